"""A numbered rules text (Diplonomic): read, written back, and edited rule by rule.

The text is a run of rules, each starting on a line ``n. text``; the lines that follow,
blank ones included, belong to that rule until the next rule starts. Numbers need not be
consecutive (the seed's rules skip 10), but they rise: a line ``2. ...`` inside rule 7 is
a numbered list within rule 7, not a new rule.
"""

from __future__ import annotations

import re

from mailjudge.game.errors import ServiceError

_RULE_START = re.compile(r"^\s*(\d{1,4})\.\s+(\S.*)$")


class RulebookError(ServiceError):
    """A rules text that cannot be read, or an edit that cannot be made; says why."""


Rules = dict[int, str]  # rule number -> its text (paragraphs joined by blank lines)


def parse_rules(text: str) -> Rules:
    rules: Rules = {}
    current: int | None = None
    lines: list[str] = []

    def close() -> None:
        if current is not None:
            rules[current] = "\n".join(lines).strip("\n")

    for raw in text.splitlines():
        line = raw.rstrip()
        start = _RULE_START.match(line)
        if start and (current is None or int(start.group(1)) > current):
            close()
            current, lines = int(start.group(1)), [start.group(2)]
        elif current is None:
            if line.strip():
                first = line.strip()
                raise RulebookError(
                    f"the rules must start with a numbered rule like '1. text', not {first!r}"
                )
        else:
            lines.append(line)
    close()
    if not rules:
        raise RulebookError("there is no rule in it; write each rule as '1. text', '2. text', ...")
    return rules


def render_rules(rules: Rules) -> str:
    return "\n\n".join(f"{n}. {rules[n]}" for n in sorted(rules)) + "\n"


def _existing(rules: Rules, number: int) -> str:
    if number not in rules:
        have = ", ".join(str(n) for n in sorted(rules)) or "none"
        raise RulebookError(f"there is no rule {number} (the rules are numbered {have})")
    return rules[number]


def append_paragraph(rules: Rules, number: int, text: str) -> Rules:
    return {**rules, number: _existing(rules, number) + "\n\n" + text}


def replace_rule(rules: Rules, number: int, text: str) -> Rules:
    _existing(rules, number)
    return {**rules, number: text}


def add_rule(rules: Rules, number: int, text: str) -> Rules:
    if number in rules:
        raise RulebookError(f"rule {number} exists already; REPLACE RULE {number} WITH {{...}}")
    return {**rules, number: text}


def repeal_rule(rules: Rules, number: int) -> Rules:
    _existing(rules, number)
    return {n: t for n, t in rules.items() if n != number}


# Typographic and plain quotes match each other: proposals are typed in many mail clients.
_SAME = {"'": "['’‘]", "’": "['’‘]", "‘": "['’‘]", '"': '["“”]', "“": '["“”]', "”": '["“”]'}


def _loose(old: str) -> re.Pattern[str]:
    """``old`` matched whatever the line breaks, runs of spaces and kinds of quote."""
    parts = []
    for word in old.split():
        parts.append("".join(_SAME.get(ch, re.escape(ch)) for ch in word))
    return re.compile(r"\s+".join(parts))


def replace_text(rules: Rules, number: int, old: str, new: str) -> Rules:
    """Every occurrence of ``old`` in rule ``number`` becomes ``new``."""
    text = _existing(rules, number)
    if not old.split():
        raise RulebookError("the text to replace is empty")
    pattern = _loose(old)
    if not pattern.search(text):
        raise RulebookError(f"rule {number} does not contain {old!r}")
    return {**rules, number: pattern.sub(lambda _: new, text)}

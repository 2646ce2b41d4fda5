"""A Diplonomic rule-change proposal read into amendments the judge can apply itself.

The forms (keywords in any case; ``{...}`` text may run over several lines):

    AMEND RULE n APPEND {text}
    AMEND RULE n REPLACE "old" WITH "new"
    REPLACE RULE n WITH {text}
    ADD RULE n {text}
    REPEAL RULE n
    SET RULE +NO_PRESS -PUBLIC_PRESS
    SET VICTORY 16
    SET TIMING MOVE 2D AT 12:00 UTC

and the same in the words of seed 003's own proposals (case, a colon, "the paragraph",
"by", and a closing full stop as they come):

    Amend rule 7 by appending the paragraph: {text}
    Amend rule 22 by replacing "old" with "new".
    Replace rule 9 with: {text}
    Add rule 30: {text}
    Repeal rule 12.

A proposal is all its amendments or nothing: if one cannot be applied, none is.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from mailjudge.engine.timing import Timing, TimingError
from mailjudge.game.errors import ServiceError
from mailjudge.variants.diplonomic import rulebook as rb

FORMS = (
    "AMEND RULE n APPEND {text}",
    'AMEND RULE n REPLACE "old" WITH "new"',
    "REPLACE RULE n WITH {text}",
    "ADD RULE n {text}",
    "REPEAL RULE n",
    "SET RULE +FLAG -FLAG",
    "SET VICTORY n",
    "SET TIMING ...",
)
SEED_FORMS = (
    "Amend rule n by appending the paragraph: {text}",
    'Amend rule n by replacing "old" with "new"',
    "Replace rule n with: {text}",
    "Add rule n: {text}",
    "Repeal rule n",
)


class AmendmentError(ServiceError):
    """A proposal that cannot be read, or an amendment that cannot apply; says why."""


@dataclass(frozen=True)
class TextAmendment:
    """An edit of the rules text."""

    kind: str  # append, replace-text, replace-rule, add, repeal
    rule: int
    text: str = ""
    old: str = ""

    def apply(self, rules: rb.Rules) -> rb.Rules:
        edits: dict[str, Callable[[], rb.Rules]] = {
            "append": lambda: rb.append_paragraph(rules, self.rule, self.text),
            "replace-text": lambda: rb.replace_text(rules, self.rule, self.old, self.text),
            "replace-rule": lambda: rb.replace_rule(rules, self.rule, self.text),
            "add": lambda: rb.add_rule(rules, self.rule, self.text),
            "repeal": lambda: rb.repeal_rule(rules, self.rule),
        }
        return edits[self.kind]()


@dataclass(frozen=True)
class SettingChange:
    """A change of the game's settings: rules flags, victory count or timing."""

    setting: str  # rule, victory, timing
    value: str


Amendment = TextAmendment | SettingChange

_N = r"\s+(?:RULE|ARTICLE)\s+(\d{1,4})"
_BY = r"(?:\s+BY)?"
_COLON = r"\s*:?\s*"
_TEXT_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("append", re.compile(
        r"AMEND" + _N + _BY + r"\s+APPEND(?:ING)?(?:\s+(?:THE|A)\b)?(?:\s+PARAGRAPH\b)?" + _COLON,
        re.I)),
    ("replace-text", re.compile(r"AMEND" + _N + _BY + r"\s+REPLAC(?:E|ING)\b\s*", re.I)),
    ("replace-rule", re.compile(r"REPLACE" + _N + r"\s+WITH\b" + _COLON, re.I)),
    ("add", re.compile(r"ADD(?:\s+(?:A|NEW)\b)?" + _N + _COLON, re.I)),
    ("repeal", re.compile(r"REPEAL" + _N + r"\b", re.I)),
)  # fmt: skip
_SETTING = re.compile(r"SET\s+(RULES?|VICTORY|TIMING)\b[ \t]*([^\n]*)", re.I)
_WITH = re.compile(r"\s*WITH\b\s*", re.I)
_OPEN_QUOTES, _CLOSE_QUOTES = '"“', '"”'


_FORMS_NOTE = (
    "a proposal is made of: "
    + "; ".join(FORMS)
    + " -- or, in the seed's own words: "
    + "; ".join(SEED_FORMS)
    + " (a closing full stop is fine)"
)


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _braced(text: str, at: int, what: str) -> tuple[str, int]:
    """The text between ``{`` at ``at`` and its matching ``}``, and the position after."""
    if at >= len(text) or text[at] != "{":
        raise AmendmentError(
            f"line {_line(text, at)}: {what} needs its text in braces: {{the new text}}"
        )
    depth = 0
    for end in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            body = textwrap.dedent(text[at + 1 : end].strip("\n")).strip()
            if not body:
                raise AmendmentError(f"line {_line(text, at)}: the text in braces is empty")
            return body, end + 1
    raise AmendmentError(f"line {_line(text, at)}: no '}}' closes the '{{' opened here")


def _quoted(text: str, at: int) -> tuple[str, int]:
    if at >= len(text) or text[at] not in _OPEN_QUOTES:
        raise AmendmentError(
            f'line {_line(text, at)}: write the texts in quotes: REPLACE "old" WITH "new"'
        )
    for end in range(at + 1, len(text)):
        if text[end] in _CLOSE_QUOTES:
            return text[at + 1 : end], end + 1
    raise AmendmentError(f"line {_line(text, at)}: no closing quote for the quote opened here")


def _text_amendment(kind: str, rule: int, text: str, at: int) -> tuple[TextAmendment, int]:
    if kind == "repeal":
        return TextAmendment(kind, rule), at
    if kind == "replace-text":
        old, at = _quoted(text, at)
        with_word = _WITH.match(text, at)
        if not with_word:
            raise AmendmentError(f'line {_line(text, at)}: write REPLACE "old" WITH "new"')
        new, at = _quoted(text, with_word.end())
        return TextAmendment(kind, rule, new, old), at
    body, at = _braced(text, at, f"rule {rule}")
    return TextAmendment(kind, rule, body), at


def _setting(name: str, value: str, line: int) -> SettingChange:
    setting = {"rule": "rule", "rules": "rule"}.get(name.lower(), name.lower())
    value = value.strip()
    if not value:
        raise AmendmentError(f"line {line}: SET {name.upper()} needs a value")
    if setting == "victory" and not (value.isdigit() and int(value) > 0):
        raise AmendmentError(f"line {line}: write SET VICTORY and a number of centres, like 16")
    if setting == "timing":
        try:
            value = str(Timing.parse(value))
        except TimingError as err:
            raise AmendmentError(f"line {line}: {err}") from None
    return SettingChange(setting, value)


def parse_amendments(text: str) -> list[Amendment]:
    """Every amendment in a proposal's text, in order; anything else is an error."""
    found: list[Amendment] = []
    at = 0
    while True:
        # Between amendments: blank space, and the full stop that ends a sentence.
        while at < len(text) and (text[at].isspace() or text[at] in ".;"):
            at += 1
        if at >= len(text):
            break
        setting = _SETTING.match(text, at)
        if setting:
            found.append(_setting(setting.group(1), setting.group(2), _line(text, at)))
            at = setting.end()
            continue
        for kind, pattern in _TEXT_FORMS:
            start = pattern.match(text, at)
            if start:
                amendment, at = _text_amendment(kind, int(start.group(1)), text, start.end())
                found.append(amendment)
                break
        else:
            words = text[at:].split("\n", 1)[0].strip()
            raise AmendmentError(
                f"line {_line(text, at)}: {words[:60]!r} is not an amendment; {_FORMS_NOTE}"
            )
    if not found:
        raise AmendmentError(f"the proposal is empty; {_FORMS_NOTE}")
    return found


def apply_text(rules: rb.Rules | None, amendments: list[Amendment]) -> rb.Rules | None:
    """The rules after every text amendment, in order; None when nothing changed them."""
    edits = [(n, a) for n, a in enumerate(amendments, 1) if isinstance(a, TextAmendment)]
    if not edits:
        return None
    if rules is None:
        raise AmendmentError("this game has no rules text to amend (the master loads it)")
    for n, edit in edits:
        try:
            rules = edit.apply(rules)
        except rb.RulebookError as err:
            raise AmendmentError(f"amendment {n} cannot apply: {err}") from None
    return rules

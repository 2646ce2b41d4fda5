"""The game rules flags: a catalogue read from data/rules.toml, and rule changes checked
against it.

A rule set is kept closed under the catalogue's implications: every "+X" of a rule in
the set is in the set, no "-X" or "!X" of a rule in the set is. A change either yields
such a set or is refused with a RuleError that says what clashed and how to fix it.
"""

from __future__ import annotations

import difflib
import re
import textwrap
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mailjudge.config.paths import DATA_DIR
from mailjudge.remembered import remembered

RULES_FILE = DATA_DIR / "rules.toml"

_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_IMPLICATION = re.compile(r"([+\-!])([A-Z][A-Z0-9_]*)")
_CHANGE_TOKEN = re.compile(r"([+-]?)([A-Za-z][A-Za-z0-9_]*)")
_RULE_KEYS = frozenset({"group", "summary", "description", "implies", "variants", "at_creation"})
_CHANGE_HINT = "write +NAME to set a rule and -NAME to drop one, e.g. +NO_PRESS -POWER_CHOICE"


class RuleError(ValueError):
    """A rule change a user asked for cannot be made; the message says why."""


class CatalogueError(ValueError):
    """The rules data file itself is wrong (a bug in data/, not a user's mistake)."""


class RuleSet(frozenset[str]):
    """The rules flags of one game; stored as text as the names sorted, space-separated."""

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> RuleSet:
        """From the stored text ("CIVIL_DISORDER NO_PRESS", commas too) or names."""
        if isinstance(text, RuleSet):
            return text
        if isinstance(text, str) and cls is RuleSet:
            return _parsed_text(text)  # a game's stored flags, read with every mail
        words = re.split(r"[\s,]+", text) if isinstance(text, str) else list(text)
        return cls(word.upper() for word in words if word)

    def __str__(self) -> str:
        return " ".join(sorted(self))

    def __repr__(self) -> str:
        return f"RuleSet({sorted(self)!r})"

    def has(self, name: str) -> bool:
        """Whether the flag is set. A name the catalogue does not know is a bug in the
        caller, not a flag that is off: it raises."""
        if name not in catalogue().rules:
            raise KeyError(f"no rules flag is called {name!r} (data/rules.toml)")
        return name in self


@remembered(256)
def _parsed_text(text: str) -> RuleSet:
    """RuleSet.parse of stored text (a RuleSet is a frozenset: one can be shared)."""
    return RuleSet.parse(re.split(r"[\s,]+", text))


@dataclass(frozen=True)
class Rule:
    name: str
    group: str
    summary: str
    description: str
    adds: tuple[str, ...] = ()
    removes: tuple[str, ...] = ()
    forbids: tuple[str, ...] = ()
    # None: fits every variant.
    variants: frozenset[str] | None = None
    # A rule of game creation: named on the CREATE line, never set or lifted later.
    at_creation: bool = False

    @property
    def implications(self) -> str:
        """The seed's notation, e.g. "+NO_DEADLINE +CD_DUMMIES" or "!ALWAYS_WAIT"."""
        return " ".join(
            [f"+{n}" for n in self.adds]
            + [f"-{n}" for n in self.removes]
            + [f"!{n}" for n in self.forbids]
        )


class Catalogue:
    """Every known rule, and the logic that applies a change to a rule set."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: Mapping[str, Rule] = {rule.name: rule for rule in rules}
        # "!" is a two-way ban even when the data states only one side of it.
        conflicts: dict[str, set[str]] = {name: set() for name in self.rules}
        for rule in self.rules.values():
            for other in rule.forbids:
                conflicts[rule.name].add(other)
                conflicts.setdefault(other, set()).add(rule.name)
        self._conflicts = {name: frozenset(names) for name, names in conflicts.items()}
        self._check_consistent_data()

    @property
    def names(self) -> list[str]:
        return sorted(self.rules)

    def get(self, name: str) -> Rule:
        rule = self.rules.get(name.upper())
        if rule is None:
            raise RuleError(self._unknown_message(name))
        return rule

    def describe(self, name: str) -> str:
        """The HELP text for one rule."""
        rule = self.get(name)
        head = f"{rule.name} ({rule.implications})" if rule.implications else rule.name
        lines = [head, f"  {rule.summary}", ""]
        lines += textwrap.wrap(
            rule.description,
            width=72,
            initial_indent="  ",
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
        if rule.variants is not None:
            lines += ["", f"  Only for the variants: {', '.join(sorted(rule.variants))}."]
        return "\n".join(lines)

    def apply(
        self,
        current: Iterable[str],
        change: str | Iterable[str],
        *,
        variant: str | None = None,
    ) -> RuleSet:
        """Return `current` with `change` applied, its implications followed through.

        `change` is text like "+NO_PRESS -POWER_CHOICE" or a list of such words; a bare
        name means "+". With `variant`, rules meant for other variants are refused.
        """
        adds, removes = self._parse_change(change)
        for name in adds:
            if name in removes:
                raise RuleError(
                    f"{name} is both set (+{name}) and dropped (-{name}) in one change; "
                    "keep only the one you mean."
                )
        result = {name.upper() for name in current} - set(removes)
        brought = self._close_over_adds(adds, set(removes))
        result |= brought.keys()
        removed_by: dict[str, str] = {}
        for name in brought:
            for gone in self.rules[name].removes:
                if gone in brought:
                    raise RuleError(
                        f"{self._origin(name, brought)} takes away {gone}, but "
                        f"{self._origin(gone, brought)} is asked for in the same change; "
                        "ask for only one of them."
                    )
                result.discard(gone)
                removed_by[gone] = name
        if variant is not None:
            for name in brought:
                self._check_variant(name, variant, brought)
        self._check_closed(result, brought, removed_by)
        return RuleSet(result)

    # -- parsing ---------------------------------------------------------------------

    def _parse_change(self, change: str | Iterable[str]) -> tuple[list[str], list[str]]:
        tokens = re.split(r"[\s,]+", change) if isinstance(change, str) else list(change)
        adds: list[str] = []
        removes: list[str] = []
        for token in (t.strip() for t in tokens):
            if not token:
                continue
            match = _CHANGE_TOKEN.fullmatch(token)
            if match is None:
                raise RuleError(f"{token!r} is not a rule change; {_CHANGE_HINT}.")
            sign, name = match.group(1), match.group(2).upper()
            if name not in self.rules:
                raise RuleError(self._unknown_message(name))
            (removes if sign == "-" else adds).append(name)
        return adds, removes

    def _unknown_message(self, name: str) -> str:
        near = difflib.get_close_matches(name.upper(), self.names, n=1)
        hint = f" Did you mean {near[0]}?" if near else ""
        return (
            f"There is no rule called {name.upper()}.{hint} The rules are: {', '.join(self.names)}."
        )

    # -- closure and checks --------------------------------------------------------------

    def _close_over_adds(self, adds: list[str], removes: set[str]) -> dict[str, str | None]:
        """Every rule the adds bring in, mapped to the rule that brought it (None: asked)."""
        brought: dict[str, str | None] = {}
        queue: list[tuple[str, str | None]] = [(name, None) for name in adds]
        while queue:
            name, by = queue.pop(0)
            if name in brought:
                continue
            brought[name] = by
            if name in removes:
                asked = self._chain(name, brought)[0]
                raise RuleError(
                    f"{self._origin(name, brought)} cannot also be dropped in the same "
                    f"change (-{name}); keep {name} or leave out +{asked}."
                )
            queue.extend((implied, name) for implied in self.rules[name].adds)
        return brought

    def _check_closed(
        self,
        result: set[str],
        brought: Mapping[str, str | None],
        removed_by: Mapping[str, str],
    ) -> None:
        for name in sorted(result):
            rule = self.rules.get(name)
            if rule is None:
                # A stored rule this catalogue no longer knows: keep it, judge nothing by it.
                continue
            for needed in rule.adds:
                if needed in result:
                    continue
                if needed in removed_by:
                    raise RuleError(
                        f"{self._origin(removed_by[needed], brought)} takes away {needed}, "
                        f"but {name} needs {needed}; drop {name} as well (-{name})."
                    )
                raise RuleError(
                    f"{needed} cannot be dropped while {name} is set, because {name} "
                    f"brings in {needed}; drop both (-{name} -{needed}) or keep {needed}."
                )
            for other in sorted(self._conflicts[name]):
                if other in result and name < other:
                    raise RuleError(self._conflict_message(name, other, brought))

    def _conflict_message(self, first: str, second: str, brought: Mapping[str, str | None]) -> str:
        # Put the rule this change brought in first, so the advice drops the one already set.
        new, old = (first, second) if first in brought else (second, first)
        if old in brought:
            advice = "Ask for only one of them."
        else:
            advice = f"Set only one of them, e.g. -{old} +{self._chain(new, brought)[0]}."
        return (
            f"{self._origin(new, brought)} may not be combined with {old}. "
            f"{new}: {self.rules[new].summary}. {old}: {self.rules[old].summary}. {advice}"
        )

    def _check_variant(self, name: str, variant: str, brought: Mapping[str, str | None]) -> None:
        allowed = self.rules[name].variants
        if allowed is not None and variant.lower() not in allowed:
            raise RuleError(
                f"{self._origin(name, brought)} is only for the "
                f"{' or '.join(sorted(allowed))} variant, and this game is {variant.lower()}."
            )

    @staticmethod
    def _chain(name: str, brought: Mapping[str, str | None]) -> list[str]:
        """The rules that led to `name`, the one asked for first."""
        chain = [name]
        while (by := brought.get(chain[-1])) is not None:
            chain.append(by)
        return chain[::-1]

    def _origin(self, name: str, brought: Mapping[str, str | None]) -> str:
        """ "X" when X was asked for, "X (brought in by A via B)" when implied."""
        chain = self._chain(name, brought)
        if len(chain) == 1:
            return name
        via = f" via {', '.join(chain[1:-1])}" if len(chain) > 2 else ""
        return f"{name} (brought in by {chain[0]}{via})"

    def _check_consistent_data(self) -> None:
        for rule in self.rules.values():
            for other in rule.adds + rule.removes + rule.forbids:
                if other not in self.rules:
                    raise CatalogueError(f"rule {rule.name} refers to unknown rule {other}")
                if other == rule.name:
                    raise CatalogueError(f"rule {rule.name} refers to itself")
        for name in self.rules:
            try:
                self.apply(RuleSet(), [name])
            except RuleError as exc:
                raise CatalogueError(f"rule {name} cannot be set on its own: {exc}") from exc


def load_catalogue(path: Path = RULES_FILE) -> Catalogue:
    """Read a rules file; `CatalogueError` names the file and the fault."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from exc
    try:
        return Catalogue(_rule_from_table(name, table) for name, table in data.items())
    except CatalogueError as exc:
        raise CatalogueError(f"{path}: {exc}") from exc


def _rule_from_table(name: str, table: object) -> Rule:
    if not _NAME.fullmatch(name) or not isinstance(table, dict):
        raise CatalogueError(f"[{name}] must be an upper-case rule name heading a table")
    unknown = set(table) - _RULE_KEYS
    if unknown:
        raise CatalogueError(f"rule {name} has unknown keys: {', '.join(sorted(unknown))}")
    texts = {}
    for key in ("group", "summary", "description"):
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            raise CatalogueError(f"rule {name} needs a non-empty {key}")
        texts[key] = " ".join(value.split())
    parts: dict[str, list[str]] = {"+": [], "-": [], "!": []}
    for item in table.get("implies", []):
        match = _IMPLICATION.fullmatch(item) if isinstance(item, str) else None
        if match is None:
            raise CatalogueError(f"rule {name}: implication {item!r} is not +NAME, -NAME or !NAME")
        parts[match.group(1)].append(match.group(2))
    variants = table.get("variants")
    if variants is not None and (
        not isinstance(variants, list) or not all(isinstance(v, str) for v in variants)
    ):
        raise CatalogueError(f"rule {name}: variants must be a list of variant names")
    at_creation = table.get("at_creation", False)
    if not isinstance(at_creation, bool):
        raise CatalogueError(f"rule {name}: at_creation must be true or false")
    return Rule(
        name=name,
        at_creation=at_creation,
        adds=tuple(parts["+"]),
        removes=tuple(parts["-"]),
        forbids=tuple(parts["!"]),
        variants=None if variants is None else frozenset(v.lower() for v in variants),
        **texts,
    )


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue, read once per process."""
    return load_catalogue()


def apply_change(
    current: Iterable[str], change: str | Iterable[str], *, variant: str | None = None
) -> RuleSet:
    """Apply a change such as "+NO_PRESS -POWER_CHOICE" to a game's rules."""
    return catalogue().apply(current, change, variant=variant)


def later_change(
    current: Iterable[str], change: str | Iterable[str], *, variant: str | None = None
) -> RuleSet:
    """A change to the rules of a game that exists (the master's SET RULE, an enacted
    Diplonomic proposal). A rule of creation may not come or go then: seed 001 on
    SOLITAIRE, "Make sure to have all relevant rules in place during preparation or when
    creating the game"; set later it would leave the players ordering and no dummies."""
    before = RuleSet(current)
    after = apply_change(before, change, variant=variant)
    for name in sorted(set(before) ^ set(after)):
        rule = catalogue().get(name)
        if rule.at_creation:
            came = "set" if name in after else "lifted"
            raise RuleError(
                f"{name} cannot be {came} once the game exists: it is a rule of game creation "
                f"({rule.summary}); name it on the CREATE line: CREATE game password RULES {name}"
            )
    return after


def describe(name: str) -> str:
    """HELP text for one rule; RuleError for a name that is not a rule."""
    return catalogue().describe(name)


def known_rules() -> list[str]:
    return catalogue().names

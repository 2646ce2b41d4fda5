"""njudge's conditions for conditional orders (``IF A PAR AND NOT F BRE``): read into a
small tree, written back in one canonical form, and judged against a board.

The rule: a condition is made of unit positions (``A PAR``, ``F SPA/NC``, ``RUSSIAN A
MOS``: true when such a unit, of that power if one is named, stands in that province when
the phase begins) and ownership (``FRANCE OWNS BEL``: true when that power holds the
supply centre), combined with NOT, AND, OR and parentheses; NOT binds tightest, then AND,
then OR. As njudge's syntax file writes them, the unit's type may be left out (any unit:
``Russian Prussia``), the power, type and province may come in any order (``Army French
Burgundy``), a power may be cut to two letters or more (``Fr Bur``) and a province
written in full (``North Sea``); a trailing THEN is a word for old Fortran hands, and the
end of the line closes any parenthesis left open. Anything else is refused with an error
naming the word that could not be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mailjudge.engine.maps import GameMap, normalize_name, province_of
from mailjudge.engine.state import Position

UNIT_WORDS = {"A": "A", "ARMY": "A", "F": "F", "FLEET": "F"}
EXAMPLE = "IF A PAR AND NOT (F BRE OR GERMAN A BUR)"
# NOTs and parentheses inside each other: a person writes two or three; a thousand would
# only exhaust the reader's (and the tree's) recursion.
MOST_NESTED = 20


class ConditionError(ValueError):
    """A condition that could not be read."""


@dataclass(frozen=True)
class UnitAt:
    """A unit of this type (any, when None) and power (when named) stands in the province."""

    type: str | None
    province: str
    power: str | None = None

    def holds(self, pos: Position) -> bool:
        unit = pos.units.get(self.province)
        if unit is None:
            return False
        return self.type in (None, unit.type) and self.power in (None, unit.power)

    def __str__(self) -> str:
        who = f"{self.power} " if self.power else ""
        kind = f"{self.type} " if self.type else ""
        return f"{who}{kind}{self.province.upper()}"


@dataclass(frozen=True)
class Owns:
    """The power holds the supply centre in the province."""

    power: str
    province: str

    def holds(self, pos: Position) -> bool:
        return pos.sc_owners.get(self.province) == self.power

    def __str__(self) -> str:
        return f"{self.power} OWNS {self.province.upper()}"


@dataclass(frozen=True)
class Not:
    inner: Condition

    def holds(self, pos: Position) -> bool:
        return not self.inner.holds(pos)

    def __str__(self) -> str:
        return f"NOT {_wrapped(self.inner, (And, Or))}"


@dataclass(frozen=True)
class And:
    parts: tuple[Condition, ...]

    def holds(self, pos: Position) -> bool:
        return all(p.holds(pos) for p in self.parts)

    def __str__(self) -> str:
        return " AND ".join(_wrapped(p, (Or,)) for p in self.parts)


@dataclass(frozen=True)
class Or:
    parts: tuple[Condition, ...]

    def holds(self, pos: Position) -> bool:
        return any(p.holds(pos) for p in self.parts)

    def __str__(self) -> str:
        return " OR ".join(str(p) for p in self.parts)


Condition = UnitAt | Owns | Not | And | Or


def _wrapped(cond: Condition, loose: tuple[type, ...]) -> str:
    """Parentheses only where the inner condition binds looser than its place needs."""
    return f"({cond})" if isinstance(cond, loose) else str(cond)


def all_of(conditions: list[Condition]) -> Condition:
    """The conditions together (the IFs a nested block lies within)."""
    parts: list[Condition] = []
    for c in conditions:
        parts += list(c.parts) if isinstance(c, And) else [c]
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"\s+|([()])", text.strip()) if t]


class _Parser:
    def __init__(self, text: str, gmap: GameMap) -> None:
        self.text = text
        self.gmap = gmap
        self.tokens = _tokens(text)
        self.i = 0
        self.depth = 0  # the NOTs and open parentheses around the word read now

    def peek(self) -> str | None:
        return self.tokens[self.i].upper() if self.i < len(self.tokens) else None

    def take(self) -> str:
        word = self.peek()
        if word is None:
            raise self.error("the condition ends too soon")
        self.i += 1
        return word

    def error(self, what: str) -> ConditionError:
        text = " ".join(self.text.split())
        shown = text if len(text) <= 80 else text[:77] + "..."
        return ConditionError(
            f"cannot read the condition {shown!r}: {what}. Write unit positions "
            f"(A PAR, F SPA/NC, RUSSIAN A MOS, FRENCH BUR for any unit) or ownership (FRANCE "
            f"OWNS BEL) joined by NOT, AND, OR and parentheses, like {EXAMPLE}"
        )

    def parse(self) -> Condition:
        if self.tokens and self.tokens[-1].upper() == "THEN":
            self.tokens.pop()  # njudge: IF A PAR THEN
        if not self.tokens:
            raise self.error("there is no condition after IF")
        cond = self.any_of()
        if self.peek() is not None:
            raise self.error(f"{self.tokens[self.i]!r} is not AND, OR or a closing parenthesis")
        return cond

    def any_of(self) -> Condition:
        parts = [self.every()]
        while self.peek() == "OR":
            self.take()
            parts.append(self.every())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def every(self) -> Condition:
        parts = [self.factor()]
        while self.peek() == "AND":
            self.take()
            parts.append(self.factor())
        return all_of(parts)

    def factor(self) -> Condition:
        word = self.peek()
        if word not in ("NOT", "("):
            return self.atom()
        self.take()
        self.depth += 1
        if self.depth > MOST_NESTED:
            raise self.error(f"NOT and parentheses nest more than {MOST_NESTED} deep")
        if word == "NOT":
            inner = self.factor()
            # NOT NOT x is x
            found: Condition = inner.inner if isinstance(inner, Not) else Not(inner)
        else:
            found = self.any_of()
            if self.peek() is None:  # njudge: the end of the line closes a parenthesis
                self.depth -= 1
                return found
            if self.peek() != ")":
                raise self.error("a parenthesis is not closed")
            self.take()
        self.depth -= 1
        return found

    def atom(self) -> Condition:
        """A power, a unit type and a province, in any order (type and power may be left
        out), or POWER OWNS PROVINCE."""
        power: str | None = None
        kind: str | None = None
        province: str | None = None
        start = self.i
        while (word := self.peek()) is not None and word not in ("AND", "OR", "NOT", "(", ")"):
            if word == "OWNS" and power is not None and kind is None and province is None:
                self.take()
                return Owns(power, self.province(self.take()))
            if kind is None and word in UNIT_WORDS:
                kind = UNIT_WORDS[self.take()]
                continue
            if province is None and (found := self.province_at()) is not None:
                province = found
                continue
            named = self.power(word) if power is None else None
            if named is None:
                break
            power = named
            self.take()
        if province is None:
            if self.peek() is None and (self.i == start or kind is None):
                raise self.error("the condition ends too soon")
            word = self.tokens[self.i] if self.i < len(self.tokens) else self.tokens[-1]
            if kind is not None:
                raise self.error(f"{word!r} is not a province of this map")
            raise self.error(
                f"{word!r} is not a unit (A or F), a power, a province, NOT or a parenthesis"
            )
        return UnitAt(kind, province, power)

    def power(self, word: str) -> str | None:
        """A power by name or adjective, or (njudge) cut to two letters or more."""
        found = []
        for p in self.gmap.powers.values():
            names = (p.name.upper(), p.adjective.upper())
            if word in names:
                return p.name
            if len(word) >= 2 and any(n.startswith(word) for n in names):
                found.append(p.name)
        return found[0] if len(found) == 1 else None

    def province_at(self) -> str | None:
        """The province the next words name (three at most: "St Petersburg", "North Sea"),
        taken; None when they name none."""
        for size in (3, 2, 1):
            words = self.tokens[self.i : self.i + size]
            if len(words) < size or any(w in ("(", ")") for w in words):
                continue
            code = self.gmap.names.get(province_of(normalize_name(" ".join(words))))
            if code is not None:
                self.i += size
                return code
        return None

    def province(self, word: str) -> str:
        code = self.gmap.names.get(province_of(normalize_name(word)))
        if code is None:
            raise self.error(f"{word!r} is not a province of this map")
        return code


def parse_condition(text: str, gmap: GameMap) -> Condition:
    """The condition written after IF, as a tree; ConditionError says what was unreadable."""
    return _Parser(text, gmap).parse()

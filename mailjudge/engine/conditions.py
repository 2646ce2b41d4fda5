"""njudge's conditions for conditional orders (``IF A PAR AND NOT F BRE``): read into a
small tree, written back in one canonical form, and judged against a board.

The rule: a condition is made of unit positions (``A PAR``, ``F SPA/NC``, ``RUSSIAN A
MOS``: true when such a unit, of that power if one is named, stands in that province when
the phase begins) and ownership (``FRANCE OWNS BEL``: true when that power holds the
supply centre), combined with NOT, AND, OR and parentheses; NOT binds tightest, then AND,
then OR. Anything else is refused with an error naming the word that could not be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mailjudge.engine.maps import GameMap, normalize_name, province_of
from mailjudge.engine.state import Position

UNIT_WORDS = {"A": "A", "ARMY": "A", "F": "F", "FLEET": "F"}
EXAMPLE = "IF A PAR AND NOT (F BRE OR GERMAN A BUR)"


class ConditionError(ValueError):
    """A condition that could not be read."""


@dataclass(frozen=True)
class UnitAt:
    """A unit of this type (and power, when named) stands in the province."""

    type: str
    province: str
    power: str | None = None

    def holds(self, pos: Position) -> bool:
        unit = pos.units.get(self.province)
        if unit is None:
            return False
        return unit.type == self.type and self.power in (None, unit.power)

    def __str__(self) -> str:
        who = f"{self.power} " if self.power else ""
        return f"{who}{self.type} {self.province.upper()}"


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

    def peek(self) -> str | None:
        return self.tokens[self.i].upper() if self.i < len(self.tokens) else None

    def take(self) -> str:
        word = self.peek()
        if word is None:
            raise self.error("the condition ends too soon")
        self.i += 1
        return word

    def error(self, what: str) -> ConditionError:
        return ConditionError(
            f"cannot read the condition {self.text.strip()!r}: {what}. Write unit positions "
            f"(A PAR, F SPA/NC, RUSSIAN A MOS) or ownership (FRANCE OWNS BEL) joined by "
            f"NOT, AND, OR and parentheses, like {EXAMPLE}"
        )

    def parse(self) -> Condition:
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
        if word == "NOT":
            self.take()
            return Not(self.factor())
        if word == "(":
            self.take()
            inner = self.any_of()
            if self.peek() != ")":
                raise self.error("a parenthesis is not closed")
            self.take()
            return inner
        return self.atom()

    def atom(self) -> Condition:
        word = self.take()
        power = self.power(word)
        if power is not None:
            word = self.take()
            if word == "OWNS":
                return Owns(power, self.province(self.take()))
        if word not in UNIT_WORDS:
            raise self.error(f"{word!r} is not a unit (A or F), a power, NOT or a parenthesis")
        return UnitAt(UNIT_WORDS[word], self.province(self.take()), power)

    def power(self, word: str) -> str | None:
        for p in self.gmap.powers.values():
            if word in (p.name.upper(), p.adjective.upper()):
                return p.name
        return None

    def province(self, word: str) -> str:
        code = self.gmap.names.get(province_of(normalize_name(word)))
        if code is None:
            raise self.error(f"{word!r} is not a province of this map")
        return code


def parse_condition(text: str, gmap: GameMap) -> Condition:
    """The condition written after IF, as a tree; ConditionError says what was unreadable."""
    return _Parser(text, gmap).parse()

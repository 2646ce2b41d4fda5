"""Orders as values: the order kinds, their canonical text, and the three kinds of error.

Reading an order happens in two steps. :func:`mailjudge.engine.reader.read_order` turns text
into a :class:`Syntax` using only the map (names, aliases, order words): it raises
:class:`UnreadableOrder` for text that is not an order (the "Urk check") and
:class:`AmbiguousOrder` for a name that could mean two places.
:func:`mailjudge.engine.checker.check_order` then holds the syntax against a position and a
power and returns an :class:`Order`, or raises :class:`IllegalOrder` (no such unit, not
adjacent, ...) or :class:`AmbiguousOrder` (a coast that could be either).
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from mailjudge.engine.state import Unit


class OrderError(ValueError):
    """Base of the three order errors; ``str(err)`` is the message for the player."""

    kind = "error"


class UnreadableOrder(OrderError):
    kind = "unreadable"


class AmbiguousOrder(OrderError):
    kind = "ambiguous"


class IllegalOrder(OrderError):
    kind = "illegal"


# --- orders ---------------------------------------------------------------------------------


class Hold(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} H"


class Move(NamedTuple):
    unit: Unit
    dest: str  # location, with a coast for fleets on split coasts
    via: bool = False  # explicitly by convoy ("VIA" or a route)
    route: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.route:
            return (
                f"{self.unit} - {' - '.join(r.upper() for r in self.route)} - {self.dest.upper()}"
            )
        return f"{self.unit} - {self.dest.upper()}{' VIA' if self.via else ''}"


class SupportHold(NamedTuple):
    unit: Unit
    target: Unit

    def __str__(self) -> str:
        return f"{self.unit} S {self.target}"


class SupportMove(NamedTuple):
    unit: Unit
    target: Unit
    dest: str  # province, or the exact coast when the order named one (it must then match)

    def __str__(self) -> str:
        return f"{self.unit} S {self.target} - {self.dest.upper()}"


class Convoy(NamedTuple):
    unit: Unit
    target: Unit
    dest: str  # province

    def __str__(self) -> str:
        return f"{self.unit} C {self.target} - {self.dest.upper()}"


class Retreat(NamedTuple):
    unit: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} R {self.dest.upper()}"


class Disband(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Build(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} B"


class Remove(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Waive(NamedTuple):
    power: str

    def __str__(self) -> str:
        return "WAIVE"


Order: TypeAlias = (
    Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Remove | Waive
)
Place: TypeAlias = tuple[str, str | None]  # (province, coast or None)


class Syntax(NamedTuple):
    """What the text says, before any position is consulted."""

    kind: str  # hold move support convoy retreat disband build remove waive adjust
    utype: str | None = None
    loc: Place | None = None
    ttype: str | None = None  # supported or convoyed unit
    tloc: Place | None = None
    dest: Place | None = None
    via: bool = False
    route: tuple[str, ...] = ()

    def __str__(self) -> str:
        """Canonical text as far as the words alone allow (used under NO_CHECK)."""

        def unit(t: str | None, p: Place | None) -> str:
            return f"{t + ' ' if t else ''}{_place(p)}"

        head = unit(self.utype, self.loc)
        if self.kind == "waive":
            return "WAIVE"
        if self.kind == "hold":
            return f"{head} H"
        if self.kind == "move":
            if self.route:
                return f"{head} - {' - '.join(r.upper() for r in self.route)} - {_place(self.dest)}"
            return f"{head} - {_place(self.dest)}{' VIA' if self.via else ''}"
        if self.kind == "retreat":
            return f"{head} R {_place(self.dest)}"
        if self.kind in ("disband", "remove"):
            return f"{head} D"
        if self.kind == "build":
            return f"{head} B"
        if self.kind == "adjust":  # njudge's bare "A LON" in a build phase
            return head
        target = unit(self.ttype, self.tloc)
        if self.kind == "convoy":
            return f"{head} C {target} - {_place(self.dest)}"
        if self.dest is None:
            return f"{head} S {target}"
        return f"{head} S {target} - {_place(self.dest)}"


def _place(p: Place | None) -> str:
    if p is None:
        return "?"
    return (f"{p[0]}/{p[1]}" if p[1] else p[0]).upper()

"""Fog of war: what one power sees of a board, and of a phase's orders.

The rule followed is vDiplomacy's (its Classic - Fog of War): a power sees

- every province where it has a unit (dislodged ones too), and every province next to it;
- every supply centre it owns, and every province next to it.

"Next to" is any army or fleet move from the province, from any of its coasts. Nothing
else: not its other home centres once lost, not a province it merely passed through. In
what it sees it sees everything: the units and their owners, who owns a centre there, a
standoff there. Of the rest it sees nothing, and it never learns another power's centre
or unit count (vDiplomacy shows "?" until the game ends). Of a phase's orders it sees its
own, and another's when every place the order names (its unit's, the unit it supports or
convoys, where it goes) was in its sight when the orders were given.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from mailjudge.engine.maps import GameMap, province_of
from mailjudge.engine.phases import OrderResult, ResultRow
from mailjudge.engine.state import Position


def neighbours(gmap: GameMap, prov: str) -> frozenset[str]:
    """The provinces one army or fleet move away from ``prov`` (any coast of it)."""
    near = set(gmap.army_moves.get(prov, ()))
    for loc in gmap.fleet_locations(prov) if prov in gmap.provinces else ():
        near.update(province_of(n) for n in gmap.fleet_moves.get(loc, ()))
    return frozenset(near)


def sight(gmap: GameMap, pos: Position, power: str) -> frozenset[str]:
    """The provinces ``power`` sees on ``pos`` (the module's rule)."""
    eyes = {province_of(u.loc) for u in pos.units.values() if u.power == power}
    eyes |= {province_of(d.unit.loc) for d in pos.dislodged.values() if d.unit.power == power}
    eyes |= {c for c, owner in pos.sc_owners.items() if owner == power}
    seen = set(eyes)
    for prov in eyes:
        seen |= neighbours(gmap, prov)
    return frozenset(seen)


def fogged(gmap: GameMap, pos: Position, power: str) -> Position:
    """``pos`` as ``power`` sees it: the units, dislodged units, centre owners and
    standoffs in its sight, nothing elsewhere."""
    return fogged_for(gmap, pos, (power,))


# The words of a canonical order that are not places (``F ENG C A PIC - BRE``).
_ORDER_WORDS = frozenset({"A", "F", "-", "S", "C", "H", "R", "B", "D", "VIA", "WAIVE"})


def places_named(order: str) -> frozenset[str] | None:
    """The provinces a canonical order names (its unit's place, the unit it supports or
    convoys, where it goes), or None for one that names no unit (WAIVE, an order that could
    not be read, kept as written)."""
    words = order.split()
    if len(words) < 2 or words[0] not in ("A", "F"):
        return None
    return frozenset(province_of(w.lower()) for w in words if w not in _ORDER_WORDS)


def shown_to(power: str, order: str, powers: frozenset[str], seen: frozenset[str]) -> bool:
    """Whether a seat holding ``powers`` reads ``power``'s ``order``: its own always;
    another's when every place the order names is in ``seen`` (stricter than vDiplomacy,
    which shows a seen unit's whole order: a convoy or support would name a unit out of
    sight)."""
    if power in powers:
        return True
    places = places_named(order)
    return places is not None and places <= seen


def seen_results(
    results: Iterable[OrderResult], power: str, seen: frozenset[str]
) -> list[OrderResult]:
    """The results ``power`` may read (:func:`shown_to`), ``seen`` its sight of the board
    the orders were given on."""
    return [r for r in results if shown_to(r.power, r.text, frozenset({power}), seen)]


def seen_rows(
    rows: Iterable[ResultRow], powers: frozenset[str], seen: frozenset[str]
) -> list[ResultRow]:
    """:func:`seen_results` of stored results, for a seat holding ``powers``."""
    return [row for row in rows if shown_to(row["power"], row["order"], powers, seen)]


def sight_of(gmap: GameMap, pos: Position, powers: Iterable[str]) -> frozenset[str]:
    """What a seat holding ``powers`` sees: each power's sight, together."""
    seen: frozenset[str] = frozenset()
    for power in powers:
        seen |= sight(gmap, pos, power)
    return seen


def fogged_for(gmap: GameMap, pos: Position, powers: Iterable[str]) -> Position:
    """:func:`fogged` for a seat holding ``powers``."""
    seen = sight_of(gmap, pos, powers)
    return Position(
        phase=pos.phase,
        units=MappingProxyType({p: u for p, u in pos.units.items() if p in seen}),
        sc_owners=MappingProxyType({c: o for c, o in pos.sc_owners.items() if c in seen}),
        dislodged=MappingProxyType({p: d for p, d in pos.dislodged.items() if p in seen}),
        contested=frozenset(p for p in pos.contested if p in seen),
    )

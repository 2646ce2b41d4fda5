"""Fog of war: what one power sees of a board, and of a phase's orders.

The rule followed is vDiplomacy's (its Classic - Fog of War): a power sees

- every province where it has a unit (dislodged ones too), and every province next to it;
- every supply centre it owns, and every province next to it.

"Next to" is any army or fleet move from the province, from any of its coasts. Nothing
else: not its other home centres once lost, not a province it merely passed through. In
what it sees it sees everything: the units and their owners, who owns a centre there, a
standoff there. Of the rest it sees nothing, and it never learns another power's centre
or unit count (vDiplomacy shows "?" until the game ends). Of a phase's orders it sees its
own, and the orders of the units that stood where it saw when they were ordered.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from mailjudge.engine.maps import GameMap, province_of
from mailjudge.engine.phases import OrderResult
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
    seen = sight(gmap, pos, power)
    return Position(
        phase=pos.phase,
        units=MappingProxyType({p: u for p, u in pos.units.items() if p in seen}),
        sc_owners=MappingProxyType({c: o for c, o in pos.sc_owners.items() if c in seen}),
        dislodged=MappingProxyType({p: d for p, d in pos.dislodged.items() if p in seen}),
        contested=frozenset(p for p in pos.contested if p in seen),
    )


def seen_results(
    results: Iterable[OrderResult], power: str, seen: frozenset[str]
) -> list[OrderResult]:
    """The results ``power`` may read: its own, and those of orders given to units that
    stood in ``seen`` (its sight of the board the orders were given on). An order that
    could not be read, or a WAIVE, names no unit: only its power sees it."""
    shown = []
    for result in results:
        unit = getattr(result.order, "unit", None)
        if result.power == power or (unit is not None and province_of(unit.loc) in seen):
            shown.append(result)
    return shown

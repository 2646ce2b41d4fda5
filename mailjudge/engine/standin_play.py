"""The stand-in that plays (the STANDIN rule without STANDIN_CARETAKER): it plays to win as
a weak player would, from the values of engine/valuation.py (DumbBot's published design).

Movement, each step on the public board and one seeded draw:
1. In the Fall a unit on a centre its power does not own yet stays to take it, a unit on a
   home centre of its own that another power could enter stays to keep it, and an empty
   centre of its own that another power could enter is covered by a neighbouring unit
   moving in (the one worth least where it stands).
2. Every other unit, in an order the draw shuffles, ranks the places it could stand after
   the phase (where it is, or a move) by their value, and takes the best; with a chance
   that grows as the next one's value nears the best, the draw passes to the next, and so
   on. A place another unit of the power stays in or moves into is left out (no
   self-bounce), as is a swap with one of its own units.
3. A move into a place an own unit does not leave after all turns into staying. A move
   onto another power's unit that no unit of its own would support gets a supporter (a
   neighbour of the target that takes no centre stays instead), or is called off when the
   defender could be supported.
4. Each unit that stays supports, where it can reach: a move of its own power into a
   province another power stands in or could enter (the most valuable first), else a
   unit of its power that stays where another power could attack it; else it holds.

Retreats: to the most valuable place open, never two to one; none open: disband.
Builds: the most valuable sites, each as the more valuable of an army and a fleet on one of
its coasts. Removals: the units off the power's own centres first, each time the one
standing where the power's values are lowest; a unit on a centre of its own that another
power could enter goes last.

No convoy is ordered and no unit is left without an order; only moves of its own power are
supported. ``str(order)`` is the text the reader reads back to the same order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import ARMY, FLEET, LAND, GameMap, province_of
from mailjudge.engine.orders import (
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
)
from mailjudge.engine.state import Position, Unit
from mailjudge.engine.valuation import ADJUST, FALL, SPRING, Values, reach_of, values_for

# The chance of passing to the next place when the two are worth the same; it shrinks as
# the gap grows, and is nothing once the next is worth less than (1 - 1/CLOSENESS) of it.
ALTERNATIVE = 0.15
CLOSENESS = 5.0


def _places(gmap: GameMap, unit: Unit) -> list[str]:
    """Where the unit could stand after the phase: here, or a move without a convoy."""
    moves = gmap.army_moves[unit.province] if unit.type == ARMY else gmap.fleet_moves[unit.loc]
    return [unit.loc, *sorted(moves)]


def pick(ranked: list[tuple[float, str]], rng: random.Random, chance: float) -> str:
    """The first of ``ranked`` (best first), or by the draw a later one worth nearly as much."""
    i = 0
    while i + 1 < len(ranked):
        best, nxt = ranked[i][0], ranked[i + 1][0]
        gap = (best - nxt) / abs(best) if best else 1.0
        if rng.random() < chance * max(0.0, 1.0 - gap * CLOSENESS):
            i += 1
        else:
            break
    return ranked[i][1]


class Plan:
    """Where each unit of one power will stand after the movement phase."""

    def __init__(self, gmap: GameMap, pos: Position, power: str) -> None:
        self.gmap, self.pos, self.power = gmap, pos, power
        self.units = sorted(pos.units_of(power), key=lambda u: u.loc)
        self.dest: dict[str, str] = {}  # the unit's province -> the location it ends in

    def claimed(self) -> set[str]:
        return {province_of(d) for d in self.dest.values()}

    def moving(self, prov: str) -> bool:
        return prov in self.dest and province_of(self.dest[prov]) != prov

    def stays(self, prov: str) -> bool:
        return prov in self.dest and not self.moving(prov)

    def choose(self, unit: Unit, values: Values, rng: random.Random, chance: float) -> None:
        """Step 2 for one unit."""
        claimed = self.claimed()
        coming = {p for p, d in self.dest.items() if province_of(d) == unit.province}
        options = []
        for loc in _places(self.gmap, unit):
            prov = province_of(loc)
            if prov == unit.province:
                if coming:  # an own unit is moving in: stay only if nothing else is open
                    continue
            elif prov in claimed or (prov in coming):
                continue
            options.append((values.of(unit.type, loc), loc))
        options.sort(key=lambda o: (-o[0], o[1]))
        self.dest[unit.province] = pick(options, rng, chance) if options else unit.loc

    def settle(self) -> None:
        """Step 3: a move into a province whose own unit stays after all stays too."""
        changed = True
        while changed:
            changed = False
            for prov, loc in sorted(self.dest.items()):
                into = province_of(loc)
                if into != prov and into in self.dest and not self.moving(into):
                    self.dest[prov] = self.pos.units[prov].loc
                    changed = True

    def enlist(self, values: Values) -> None:
        """An attack on another power's unit that no unit of its own will support gets a
        supporter: a neighbour of the target whose own move takes no centre stays instead
        (and so supports it, step 4). An attack nobody can support is called off."""
        pos = self.pos
        for src, loc in sorted(self.dest.items()):
            into = province_of(loc)
            if into == src or not self._foreign(into) or self._backers(into):
                continue
            spare = [
                (values.of(u.type, self.dest[u.province]), u.province)
                for u in self.units
                if u.province != src
                and into in reach_of(self.gmap, u)
                and not self._takes_centre(u.province)
                and not (self.moving(u.province) and self._foreign(self._into(u.province)))
            ]
            if spare:
                self.dest[min(spare)[1]] = pos.units[min(spare)[1]].loc
            elif values.competition(into) > 0:  # the defender would be supported
                self.dest[src] = pos.units[src].loc
        self.settle()

    def _into(self, prov: str) -> str:
        return province_of(self.dest[prov])

    def _foreign(self, prov: str) -> bool:
        unit = self.pos.units.get(prov)
        return unit is not None and unit.power != self.power

    def _takes_centre(self, prov: str) -> bool:
        into = self._into(prov)
        return into in self.gmap.centres and self.pos.sc_owners.get(into) != self.power

    def _backers(self, into: str) -> int:
        """Own units that stay and could support a move into ``into``."""
        return sum(
            1 for u in self.units if self.stays(u.province) and into in reach_of(self.gmap, u)
        )

    def orders(self, values: Values) -> list[Order]:
        """Step 4: moves as planned; the units that stay support or hold."""
        found: dict[str, Order] = {}
        for unit in self.units:
            if self.moving(unit.province):
                found[unit.province] = Move(unit, self.dest[unit.province])
        for unit in self.units:
            if unit.province not in found:
                found[unit.province] = self._support(unit, values)
        return [found[u.province] for u in self.units]

    def _support(self, unit: Unit, values: Values) -> Order:
        reach = reach_of(self.gmap, unit)
        pos = self.pos
        attacks = []
        for src, loc in self.dest.items():
            into = province_of(loc)
            if into == src or into not in reach:
                continue
            foreign = into in pos.units and pos.units[into].power != self.power
            if foreign or values.competition(into):
                mover = pos.units[src]
                attacks.append((-values.of(mover.type, loc), src, into))
        if attacks:
            _, src, into = min(attacks)
            return SupportMove(unit, pos.units[src], into)
        held = [
            (-values.competition(p), p)
            for p in sorted(reach)
            if self.stays(p) and p != unit.province and values.competition(p)
        ]
        if held:
            return SupportHold(unit, pos.units[min(held)[1]])
        return Hold(unit)


def _fall_duties(plan: Plan, values: Values) -> None:
    """Step 1: what a unit must do in the Fall before it may roam."""
    gmap, pos, power = plan.gmap, plan.pos, plan.power
    owned = {c for c, p in pos.sc_owners.items() if p == power}
    homes = gmap.home_centres.get(power, frozenset())
    for unit in plan.units:
        prov = unit.province
        taking = prov in gmap.centres and prov not in owned
        if taking or (prov in homes and prov in owned and values.competition(prov)):
            plan.dest[prov] = unit.loc
    empty = sorted(c for c in owned if c not in pos.units and values.competition(c))
    for centre in empty:
        helpers = []
        for unit in plan.units:
            if unit.province in plan.dest or centre in plan.claimed():
                continue
            locs = [loc for loc in _places(gmap, unit)[1:] if province_of(loc) == centre]
            if locs:
                helpers.append((values.of(unit.type, unit.loc), locs[0], unit.province))
        if helpers:
            _, loc, prov = min(helpers)
            plan.dest[prov] = loc


def play_movement(
    gmap: GameMap,
    pos: Position,
    power: str,
    rng: random.Random,
    around: Mapping[str, Mapping[str, int]] | None = None,
) -> list[Order]:
    """The stand-in's movement orders for one power."""
    values = values_for(gmap, pos, power, SPRING if pos.phase.season == "S" else FALL, around)
    plan = Plan(gmap, pos, power)
    if pos.phase.season != "S":
        _fall_duties(plan, values)
    free = [u for u in plan.units if u.province not in plan.dest]
    rng.shuffle(free)
    for unit in free:
        plan.choose(unit, values, rng, ALTERNATIVE)
    plan.settle()
    plan.enlist(values)
    return plan.orders(values)


def play_retreats(gmap: GameMap, pos: Position, power: str) -> list[Order]:
    values = values_for(gmap, pos, power, SPRING if pos.phase.season == "S" else FALL)
    taken: set[str] = set()
    orders: list[Order] = []
    for prov in sorted(pos.dislodged):
        unit, options = pos.dislodged[prov].unit, pos.dislodged[prov].options
        if unit.power != power:
            continue
        open_ = sorted(
            (o for o in options if province_of(o) not in taken),
            key=lambda o: (-values.of(unit.type, o), o),
        )
        if open_:
            taken.add(province_of(open_[0]))
            orders.append(Retreat(unit, open_[0]))
        else:
            orders.append(Disband(unit))
    return orders


def play_adjustments(gmap: GameMap, pos: Position, power: str, build_any: bool) -> list[Order]:
    due = adjustment_due(pos, power)
    if due == 0:
        return []
    values = values_for(gmap, pos, power, ADJUST)
    if due < 0:
        return [Remove(u) for u in removals(gmap, pos, power, values, -due)]
    chosen: list[tuple[float, Unit]] = []
    for site in build_sites(gmap, pos, power, build_any):
        kinds = [Unit(power, ARMY, site)]
        if gmap.provinces[site].kind != LAND:
            kinds += [Unit(power, FLEET, loc) for loc in gmap.fleet_locations(site)]
        best = max(kinds, key=lambda u: (values.of(u.type, u.loc), u.type == ARMY, u.loc))
        chosen.append((values.of(best.type, best.loc), best))
    chosen.sort(key=lambda c: (-c[0], c[1].loc))
    return [Build(unit) for _, unit in chosen[:due]]


def removals(gmap: GameMap, pos: Position, power: str, values: Values, count: int) -> list[Unit]:
    """The units off the power's own centres before those on them, each the one standing
    where it is worth least first; a guard of a centre another power could enter last."""

    def key(unit: Unit) -> tuple[bool, bool, float, str]:
        on_own = pos.sc_owners.get(unit.province) == power
        guard = on_own and values.competition(unit.province) > 0
        return (guard, on_own, values.of(unit.type, unit.loc), unit.loc)

    return sorted(pos.units_of(power), key=key)[:count]

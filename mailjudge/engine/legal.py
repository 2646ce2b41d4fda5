"""Every order a unit may usefully be given in a position: for the ORDERS block a player is
mailed, and the comment line under each unit in it.

Movement: hold; each move by land or sea; each move by convoy along a chain of fleets now at
sea from the army's coast to the landing (written with VIA when the army could also walk
there, DATC 4.A.3); support of the hold of every unit the supporter could move to; support
of every move another unit could make into a province the supporter could move to (a move
by convoy only if some route leaves the supporter out: a fleet cannot convoy and support);
and, for a fleet at sea, each convoy it would be part of. A convoy route is a chain of fleets
none of which could be left out (a fleet on a detour adds nothing: every route through it
holds a shorter one without it), so a fleet is offered the convoys it could make a
difference to. The checker (engine/checker.py) accepts more, none of which can help: convoys
and moves by convoy along seas where no fleet stands now (they fail, DATC 6.D.32), convoys
by a fleet on a detour, supports of moves that need the supporter to convoy them.

Retreat: each of the dislodged unit's retreat options, and disband. Adjustment: for a power
owed builds, an army and a fleet (on each coast) in each vacant home centre it owns (any
centre it owns under BUILD_ANY), and WAIVE; for a power with too many units, the removal of
each of them.

The orders are the engine's own values; their text (``str(order)``) is the canonical form
the reader reads back to the same order. Keys are provinces: the unit's (the dislodged
unit's in a retreat phase), or the build site's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import ARMY, FLEET, LAND, WATER, GameMap
from mailjudge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT, Position, Unit

# army province -> landing province -> the routes there (each a set of sea provinces)
Routes = dict[str, dict[str, list[frozenset[str]]]]
LegalOrders = dict[str, list[Order]]


def legal_orders(
    gmap: GameMap, pos: Position, power: str | None = None, *, build_any: bool = False
) -> LegalOrders:
    """Province -> the orders the unit (or build site) there may be given; only ``power``'s
    when one is named. ``build_any`` lets a power build in any centre it owns."""
    if pos.phase.type == MOVEMENT:
        return _movement(gmap, pos, power)
    if pos.phase.type == RETREAT:
        return {
            prov: [*(Retreat(d.unit, loc) for loc in d.options), Disband(d.unit)]
            for prov, d in sorted(pos.dislodged.items())
            if power is None or d.unit.power == power
        }
    assert pos.phase.type == ADJUSTMENT
    found: LegalOrders = {}
    for name in gmap.power_names if power is None else (power,):
        found.update(_adjustments(gmap, pos, name, build_any))
    return dict(sorted(found.items()))


def legal_order_texts(
    gmap: GameMap, pos: Position, power: str | None = None, *, build_any: bool = False
) -> dict[str, list[str]]:
    """:func:`legal_orders` as the text a player writes (and the reader reads back)."""
    return {
        prov: [str(o) for o in orders]
        for prov, orders in legal_orders(gmap, pos, power, build_any=build_any).items()
    }


def comment_line(orders: Sequence[Order]) -> str:
    """One unit's (or build site's) orders in short, each without the unit that opens it:
    ``A PAR: H, - BUR, - GAS, S A MAR - BUR``; ``STP: A STP B, F STP/NC B, ..., WAIVE``."""
    head = _head(orders)
    cut = len(head) + 1
    texts = [str(o) for o in orders]
    return f"{head}: " + ", ".join(t[cut:] if t.startswith(head + " ") else t for t in texts)


def _head(orders: Sequence[Order]) -> str:
    for order in orders:
        if isinstance(order, Build):
            return order.unit.province.upper()
        if not isinstance(order, Waive):
            return str(order.unit)
    return ""


def convoy_routes(gmap: GameMap, pos: Position) -> Routes:
    """For each army on a coast, the landings it could reach through the fleets now at sea,
    each with its routes: the sets of fleets' seas none of which could be left out."""
    at_sea = frozenset(
        prov for prov, u in pos.units.items() if u.type == FLEET and gmap.is_water(prov)
    )
    routes: Routes = {}
    if not at_sea:
        return routes
    water = gmap.coastal_water
    for prov, unit in pos.units.items():
        if unit.type == ARMY and not water.get(prov, frozenset()).isdisjoint(at_sea):
            found = _routes_from(gmap, prov, at_sea)
            if found:
                routes[prov] = found
    return routes


def _routes_from(
    gmap: GameMap, start: str, at_sea: frozenset[str]
) -> dict[str, list[frozenset[str]]]:
    """Every chain of fleets from ``start`` with no shortcut: no fleet of it touches ``start``
    but the first, or a fleet of it but its neighbours in the chain, or the landing but the
    last. Those are exactly the routes none of whose fleets could be left out."""
    reach = gmap.fleet_reach
    near_start = gmap.coastal_water[start]
    landings = _landings(gmap)
    found: dict[str, list[frozenset[str]]] = {}
    # Each entry: the chain so far, and every sea or coast its fleets but the last touch.
    stack: list[tuple[tuple[str, ...], frozenset[str]]] = [
        ((sea,), frozenset()) for sea in sorted(near_start & at_sea)
    ]
    while stack:
        chain, touched = stack.pop()
        last = chain[-1]
        for landing in landings[last]:
            if landing != start and landing not in touched:
                found.setdefault(landing, []).append(frozenset(chain))
        inner = touched | reach[last]
        for sea in reach[last] & at_sea:
            if sea not in touched and sea not in chain and sea not in near_start:
                stack.append(((*chain, sea), inner))
    return found


@cache
def _landings(gmap: GameMap) -> Mapping[str, tuple[str, ...]]:
    """Sea province -> the coastal provinces an army could land on from it."""
    table: dict[str, list[str]] = {
        p: [] for p, info in gmap.provinces.items() if info.kind == WATER
    }
    for coastal, seas in gmap.coastal_water.items():
        for sea in seas:
            table[sea].append(coastal)
    return {sea: tuple(sorted(c)) for sea, c in table.items()}


def _reach(gmap: GameMap, unit: Unit) -> frozenset[str]:
    """The provinces a unit could move to by itself: where it may support."""
    if unit.type == ARMY:
        return gmap.army_moves[unit.province]
    return gmap.fleet_reach[unit.loc]


def _movement(gmap: GameMap, pos: Position, power: str | None) -> LegalOrders:
    routes = convoy_routes(gmap, pos)
    # province -> the units that could move there by themselves, and the armies by convoy
    by_land_or_sea: dict[str, list[Unit]] = {}
    by_convoy: dict[str, list[Unit]] = {}
    for prov in sorted(pos.units):
        unit = pos.units[prov]
        near = _reach(gmap, unit)
        for dest in near:
            by_land_or_sea.setdefault(dest, []).append(unit)
        for dest in routes.get(prov, ()):
            if dest not in near:
                by_convoy.setdefault(dest, []).append(unit)
    found: LegalOrders = {}
    for prov in sorted(pos.units):
        unit = pos.units[prov]
        if power is not None and unit.power != power:
            continue
        orders: list[Order] = [Hold(unit), *_moves(gmap, unit, routes.get(prov, {}))]
        orders += _supports(gmap, pos, unit, routes, by_land_or_sea, by_convoy)
        if unit.type == FLEET and gmap.is_water(prov):
            orders += _convoys(pos, unit, routes)
        found[prov] = orders
    return found


def _moves(gmap: GameMap, unit: Unit, landings: Mapping[str, object]) -> list[Order]:
    if unit.type == FLEET:
        return [Move(unit, loc) for loc in sorted(gmap.fleet_moves[unit.loc])]
    walks = gmap.army_moves[unit.province]
    return [
        *(Move(unit, prov) for prov in sorted(walks)),
        *(Move(unit, prov, prov in walks) for prov in sorted(landings)),
    ]


def _supports(
    gmap: GameMap,
    pos: Position,
    unit: Unit,
    routes: Routes,
    by_land_or_sea: Mapping[str, Iterable[Unit]],
    by_convoy: Mapping[str, Iterable[Unit]],
) -> list[Order]:
    here = unit.province
    near = sorted(_reach(gmap, unit))
    holds: list[Order] = [SupportHold(unit, pos.units[p]) for p in near if p in pos.units]
    moves: list[Order] = []
    for dest in near:
        movers = [t for t in by_land_or_sea.get(dest, ()) if t.province != here]
        for army in by_convoy.get(dest, ()):
            # A fleet at sea cannot support a move that needs it to convoy.
            if army.province != here and any(here not in r for r in routes[army.province][dest]):
                movers.append(army)
        movers.sort(key=lambda t: t.province)
        moves += [SupportMove(unit, target, dest) for target in movers]
    return holds + moves


def _convoys(pos: Position, fleet: Unit, routes: Routes) -> list[Order]:
    here = fleet.province
    return [
        Convoy(fleet, pos.units[army], dest)
        for army, landings in sorted(routes.items())
        for dest in sorted(landings)
        if any(here in r for r in landings[dest])
    ]


def _adjustments(gmap: GameMap, pos: Position, power: str, build_any: bool) -> LegalOrders:
    due = adjustment_due(pos, power)
    if due < 0:
        return {u.province: [Remove(u)] for u in pos.units_of(power)}
    if due == 0:
        return {}
    found: LegalOrders = {}
    for site in build_sites(gmap, pos, power, build_any):
        builds: list[Order] = []
        if gmap.provinces[site].kind != WATER:
            builds.append(Build(Unit(power, ARMY, site)))
        if gmap.provinces[site].kind != LAND:
            builds += [Build(Unit(power, FLEET, loc)) for loc in gmap.fleet_locations(site)]
        found[site] = [*builds, Waive(power)]
    return found

"""A greedy player for the demo: every unit heads for the nearest centre its power does not
own, stays on one until it is taken, and helps a neighbour's attack when it has nothing
better to do. Simple, legal, and strong enough against random players to win the game
in a few minutes of mail.
"""

from __future__ import annotations

import random

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import ARMY, GameMap, distances, province_of
from mailjudge.engine.state import MOVEMENT, RETREAT, Position, Unit

UNREACHABLE = 10_000


def _targets(gmap: GameMap, pos: Position, power: str) -> dict[str, dict[str, int]]:
    """Distance tables to the centres `power` does not own, for armies and for fleets."""
    wanted = [c for c in gmap.centres if pos.sc_owners.get(c) != power]
    fleet_starts = [
        loc for c in wanted for loc in gmap.fleet_locations(c) if loc in gmap.fleet_moves
    ]
    return {
        ARMY: distances(wanted, gmap.army_moves),
        "F": distances(fleet_starts, gmap.fleet_moves),
    }


def movement(gmap: GameMap, pos: Position, power: str, rng: random.Random) -> list[str]:
    tables = _targets(gmap, pos, power)
    mine = pos.units_of(power)

    def distance(unit: Unit, loc: str) -> int:
        return tables[unit.type].get(loc, UNREACHABLE)

    staying = {u.province for u in mine}  # provinces own units end in, as things stand
    orders: dict[str, str] = {}
    moves: dict[str, str] = {}  # unit's province -> destination province
    for unit in sorted(mine, key=lambda u: (distance(u, u.loc), u.loc)):
        on_target = unit.province in gmap.centres and pos.sc_owners.get(unit.province) != power
        options = sorted(
            gmap.army_moves[unit.province] if unit.type == ARMY else gmap.fleet_moves[unit.loc]
        )
        rng.shuffle(options)
        free = [o for o in options if province_of(o) not in staying]
        best = min(free, key=lambda o: distance(unit, o), default=None)
        if on_target or best is None or distance(unit, best) >= distance(unit, unit.loc):
            continue
        staying.discard(unit.province)
        staying.add(province_of(best))
        moves[unit.province] = province_of(best)
        orders[unit.province] = f"{unit} - {best.upper()}"
    for unit in mine:
        if unit.province in orders:
            continue
        helped = [
            (src, dest)
            for src, dest in sorted(moves.items())
            if gmap.can_reach_province(unit.type, unit.loc, dest)
        ]
        if helped:
            src, dest = rng.choice(helped)
            orders[unit.province] = f"{unit} S {pos.units[src]} - {dest.upper()}"
        else:
            orders[unit.province] = f"{unit} H"
    return [orders[u.province] for u in mine]


def retreats(gmap: GameMap, pos: Position, power: str, rng: random.Random) -> list[str]:
    orders = []
    for d in pos.dislodged.values():
        if d.unit.power != power:
            continue
        if not d.options:
            orders.append(f"{d.unit} D")
            continue
        centres = [o for o in d.options if province_of(o) in gmap.centres]
        orders.append(f"{d.unit} R {rng.choice(centres or list(d.options)).upper()}")
    return orders


def adjustments(gmap: GameMap, pos: Position, power: str, rng: random.Random) -> list[str]:
    due = adjustment_due(pos, power)
    if due > 0:
        sites = build_sites(gmap, pos, power, False)
        rng.shuffle(sites)
        orders = []
        for site in sites[:due]:
            fleet = gmap.provinces[site].kind != "land" and rng.random() < 0.4
            loc = rng.choice(gmap.fleet_locations(site)) if fleet else site
            orders.append(f"{'F' if fleet else 'A'} {loc.upper()} B")
        return orders
    if due < 0:
        units = pos.units_of(power)
        rng.shuffle(units)
        return [f"{u} D" for u in units[:-due]]
    return []


def greedy_orders(gmap: GameMap, pos: Position, power: str, rng: random.Random) -> list[str]:
    """The power's orders for this phase, as lines a player would mail."""
    if pos.phase.type == MOVEMENT:
        return movement(gmap, pos, power, rng)
    if pos.phase.type == RETREAT:
        return retreats(gmap, pos, power, rng)
    return adjustments(gmap, pos, power, rng)

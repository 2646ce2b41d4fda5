"""Random legal orders for any position: the benchmark's and the property tests' opponent.

Orders come out as text in the varied spellings players use (codes, full names, lower
case, VIA, coasts in brackets) so that playing them exercises the reader as well as the
adjudicator. Every order produced is legal in its position.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import ARMY, FLEET, GameMap, province_of
from mailjudge.engine.phases import EngineOptions, PhaseOutcome, process_phase
from mailjudge.engine.state import MOVEMENT, RETREAT, Position, Unit, initial_position

Orders = dict[str, list[str]]


def _loc_text(gmap: GameMap, loc: str, rng: random.Random) -> str:
    prov, _, coast = loc.partition("/")
    roll = rng.random()
    if roll < 0.7:
        name = prov.upper()
    elif roll < 0.85:
        name = prov
    else:
        name = gmap.provinces[prov].name
    if coast:
        return f"{name}/{coast}" if rng.random() < 0.5 else f"{name}({coast.upper()})"
    return name


def _unit_text(gmap: GameMap, unit: Unit, rng: random.Random) -> str:
    return f"{unit.type} {_loc_text(gmap, unit.loc, rng)}"


def _moves_of(gmap: GameMap, unit: Unit) -> list[str]:
    if unit.type == ARMY:
        return sorted(gmap.army_moves[unit.province])
    return sorted(gmap.fleet_moves[unit.loc])


def movement_orders(gmap: GameMap, pos: Position, rng: random.Random) -> Orders:
    orders: Orders = {}
    units = pos.units
    taken: set[str] = set()  # units already given an order (by a convoy plan)
    plans: dict[str, str] = {}
    # Convoys first: an army on a coast, a fleet at sea beside it, a landing beyond.
    for prov, fleet in units.items():
        if fleet.type != FLEET or not gmap.is_water(prov) or rng.random() < 0.6:
            continue
        armies = [
            u
            for u in units.values()
            if u.type == ARMY
            and prov in gmap.coastal_water.get(u.province, ())
            and u.province not in taken
        ]
        if not armies:
            continue
        army = rng.choice(armies)
        landings = sorted(
            p for p in gmap.fleet_reach[prov] if p in gmap.coastal_water and p != army.province
        )
        if not landings:
            continue
        dest = rng.choice(landings)
        via = " VIA" if dest in gmap.army_moves[army.province] else rng.choice(["", " via convoy"])
        plans[prov] = f"F {_loc_text(gmap, prov, rng)} C A {army.province.upper()} - {dest.upper()}"
        plans[army.province] = f"{_unit_text(gmap, army, rng)} - {_loc_text(gmap, dest, rng)}{via}"
        taken.update((prov, army.province))
    moving: dict[str, str] = {}  # province -> destination province of planned moves
    supporters: list[Unit] = []
    for prov, unit in units.items():
        if prov in plans:
            continue
        roll = rng.random()
        head = _unit_text(gmap, unit, rng)
        if roll < 0.15 or not _moves_of(gmap, unit):  # an army on an island may only hold
            plans[prov] = f"{head} H" if rng.random() < 0.7 else f"{head} HOLD"
        elif roll < 0.6:
            dest = rng.choice(_moves_of(gmap, unit))
            moving[prov] = province_of(dest)
            arrow = rng.choice([" - ", "-", " -> ", " to "])
            plans[prov] = f"{head}{arrow}{_loc_text(gmap, dest, rng)}"
        else:
            supporters.append(unit)
    for unit in supporters:
        head = _unit_text(gmap, unit, rng)
        plans[unit.province] = _support(gmap, pos, unit, head, moving, rng) or f"{head} H"
    for prov, unit in units.items():
        orders.setdefault(unit.power, []).append(plans[prov])
    return orders


def _support(
    gmap: GameMap, pos: Position, unit: Unit, head: str, moving: dict[str, str], rng: random.Random
) -> str | None:
    """Support a planned move or a unit that stays, where this unit can reach."""
    choices: list[tuple[Unit, str | None]] = []
    for p, target in pos.units.items():
        if p == unit.province:
            continue
        dest = moving.get(p)
        if dest is None:
            if gmap.can_reach_province(unit.type, unit.loc, p):
                choices.append((target, None))
        elif dest != unit.province and gmap.can_reach_province(unit.type, unit.loc, dest):
            choices.append((target, dest))
    if not choices:
        return None
    target, dest = rng.choice(choices)
    if dest is None:
        return f"{head} {rng.choice(['S', 'supports'])} {_unit_text(gmap, target, rng)}"
    return f"{head} S {_unit_text(gmap, target, rng)} - {_loc_text(gmap, dest, rng)}"


def retreat_orders(gmap: GameMap, pos: Position, rng: random.Random) -> Orders:
    orders: Orders = {}
    for d in pos.dislodged.values():
        head = _unit_text(gmap, d.unit, rng)
        if rng.random() < 0.15:
            orders.setdefault(d.unit.power, []).append(f"{head} D")
        else:
            dest = rng.choice(d.options)
            orders.setdefault(d.unit.power, []).append(f"{head} R {_loc_text(gmap, dest, rng)}")
    return orders


def adjustment_orders(
    gmap: GameMap, pos: Position, rng: random.Random, build_any: bool = False
) -> Orders:
    orders: Orders = {}
    for power in gmap.power_names:
        due = adjustment_due(pos, power)
        mine: list[str] = []
        if due > 0:
            sites = build_sites(gmap, pos, power, build_any)
            rng.shuffle(sites)
            for site in sites[:due]:
                if rng.random() < 0.1:
                    mine.append("WAIVE")
                    continue
                kind = gmap.provinces[site].kind
                if kind == "land" or rng.random() < 0.5:
                    mine.append(f"A {_loc_text(gmap, site, rng)} B")
                else:
                    loc = rng.choice(gmap.fleet_locations(site))
                    mine.append(
                        rng.choice([f"F {_loc_text(gmap, loc, rng)} B", f"BUILD F {loc.upper()}"])
                    )
        elif due < 0:
            units = sorted(pos.units_of(power))
            rng.shuffle(units)
            # Leave some removals out now and then, so the civil-disorder rule is played too.
            count = -due if rng.random() < 0.8 else rng.randrange(-due)
            for u in units[:count]:
                mine.append(
                    f"{_unit_text(gmap, u, rng)} D" if rng.random() < 0.5 else f"REMOVE {u}"
                )
        if mine:
            orders[power] = mine
    return orders


def random_orders(gmap: GameMap, pos: Position, rng: random.Random) -> Orders:
    if pos.phase.type == MOVEMENT:
        return movement_orders(gmap, pos, rng)
    if pos.phase.type == RETREAT:
        return retreat_orders(gmap, pos, rng)
    return adjustment_orders(gmap, pos, rng)


def play(
    gmap: GameMap, seed: int, phases: int, options: EngineOptions | None = None
) -> Iterator[tuple[Position, Orders, PhaseOutcome]]:
    """Play a random game: yields (position, orders, outcome) for each phase."""
    rng = random.Random(seed)
    pos = initial_position(gmap)
    for _ in range(phases):
        orders = random_orders(gmap, pos, rng)
        outcome = process_phase(gmap, pos, orders, options)
        yield pos, orders, outcome
        if outcome.winners:
            return
        pos = outcome.next

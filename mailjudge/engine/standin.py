"""The stand-in: orders for a silent power, as a cautious player would give them.

Under the STANDIN rule a power nobody orders (a dummy, a vacant or abandoned power, one
late at the deadline, or a player away on a SET ABSENCE who asked for it) is played by
this, instead of being left to the civil-disorder defaults. It never attacks a power, never
negotiates and never writes press. What it does, in this order:

Movement.
1. A unit on a centre the power owns that a foreign unit could move into holds.
2. The power's other units support those holds (a unit already needed is not moved), most
   threatened centre first, no more supports than there are foreign units able to attack.
3. An empty centre of the power's that a foreign unit could enter is covered: a free unit
   beside it moves in, so the attacker at worst stands off with it.
4. A centre nobody owns (or a home centre of the power's that another power took), empty
   and out of every foreign unit's reach, is taken by a free unit that can move there.
5. A unit on a centre it does not own yet holds (to own it after Fall); any other takes one
   step toward the nearest centre it could take, into a province no unit stands in (a
   foreign one would be an attack) and no own unit moves into; else it holds. Such a step
   may end on a centre another power could enter too: at worst the two stand off (left
   out, the stand-in kept 4.2 centres on average instead of 4.75 in the benchmark).

Retreat: toward home (the option nearest the power's home centres by the DATC 6.J count,
an empty centre of its own first); never two units to one province; no option: disband.

Adjustment: builds in the home centres (any owned centre under BUILD_ANY), the most
threatened first; a fleet where the nearest centre it could take is nearer by sea than by
land, an army otherwise. Removals: the units farthest from home first, units off the
supply centres before units on them, then by province.

Ties are broken by a random draw seeded from public data only (the seed the caller gives,
the game's name, with the phase and the power), so the same position always gets the same
orders and anybody can repeat them. The orders are the engine's own values; ``str(order)``
is the text the judge's reader reads back to the same order.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import ARMY, FLEET, LAND, GameMap, distances, province_of
from mailjudge.engine.orders import (
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
)
from mailjudge.engine.standin_play import play_adjustments, play_movement, play_retreats
from mailjudge.engine.state import MOVEMENT, RETREAT, Position, Unit
from mailjudge.engine.valuation import adjacent_counts, reach_of

FAR = 10_000
MARK = "stand-in"  # how the results show an order the stand-in gave
# Its two modes: it plays to win (the STANDIN rule), or it takes care of the power's
# centres and attacks nobody (STANDIN_CARETAKER, and the caretaker described above).
PLAYS = "plays"
CARETAKER = "caretaker"
MODES = (PLAYS, CARETAKER)


def rng_for(seed: str, phase: str, power: str) -> random.Random:
    """The draw for one power's orders in one phase: public data only."""
    digest = hashlib.sha256(f"{seed}:{phase}:{power}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def standin_orders(
    gmap: GameMap,
    pos: Position,
    powers: Iterable[str],
    seed: str,
    *,
    build_any: bool = False,
    mode: str = PLAYS,
) -> dict[str, list[Order]]:
    """The stand-in's orders for each of ``powers`` in this phase (a power with nothing to
    order gets none): played (engine/standin_play.py) or, as a caretaker, as below."""
    around = adjacent_counts(gmap, pos)
    play = mode == PLAYS
    found: dict[str, list[Order]] = {}
    for p in sorted(set(powers)):
        if pos.phase.type == MOVEMENT:
            rng = rng_for(seed, str(pos.phase), p)
            found[p] = (play_movement if play else _movement)(gmap, pos, p, rng, around)
        elif pos.phase.type == RETREAT:
            found[p] = (play_retreats if play else _retreats)(gmap, pos, p)
        elif play:
            found[p] = play_adjustments(gmap, pos, p, build_any)
        else:
            found[p] = _adjustments(gmap, pos, p, around, build_any)
    return found


def standin_texts(
    gmap: GameMap,
    pos: Position,
    powers: Iterable[str],
    seed: str,
    *,
    build_any: bool = False,
    mode: str = PLAYS,
) -> dict[str, list[str]]:
    """:func:`standin_orders` as order lines (a power with nothing to order is left out)."""
    found = standin_orders(gmap, pos, powers, seed, build_any=build_any, mode=mode)
    return {p: [str(o) for o in orders] for p, orders in found.items() if orders}


# --- the board as the stand-in reads it -------------------------------------------------


def _threat(reach: Mapping[str, Mapping[str, int]], prov: str, power: str) -> int:
    return sum(n for p, n in reach.get(prov, {}).items() if p != power)


def _wanted_centres(gmap: GameMap, pos: Position, power: str) -> set[str]:
    """Centres the stand-in would take: nobody's, and its own homes another power took."""
    homes = gmap.home_centres.get(power, frozenset())
    return {
        c
        for c in gmap.centres
        if c not in pos.sc_owners or (c in homes and pos.sc_owners[c] != power)
    }


def _targetdistances(gmap: GameMap, wanted: Iterable[str]) -> dict[str, dict[str, int]]:
    """Steps from every location to the nearest wanted centre, for armies and fleets."""
    targets = list(wanted)
    fleet_starts = [loc for c in targets for loc in gmap.fleet_locations(c)]
    return {
        ARMY: distances(targets, gmap.army_moves),
        FLEET: distances(fleet_starts, gmap.fleet_moves),
    }


def _move_into(gmap: GameMap, unit: Unit, prov: str) -> Move | None:
    """A move of ``unit`` into some part of ``prov`` (the first coast a fleet can reach)."""
    if unit.type == ARMY:
        return Move(unit, prov) if prov in gmap.army_moves[unit.province] else None
    for loc in sorted(gmap.fleet_moves[unit.loc]):
        if province_of(loc) == prov:
            return Move(unit, loc)
    return None


# --- movement ---------------------------------------------------------------------------


def _movement(
    gmap: GameMap,
    pos: Position,
    power: str,
    rng: random.Random,
    reach: Mapping[str, Mapping[str, int]],
) -> list[Order]:
    mine = sorted(pos.units_of(power), key=lambda u: u.loc)
    if not mine:
        return []
    rng.shuffle(mine)  # the seeded draw breaks ties between units
    owned = {c for c, p in pos.sc_owners.items() if p == power}
    orders: dict[str, Order] = {}
    # 1. Hold the threatened centres it stands on.
    held = [u for u in mine if u.province in owned and _threat(reach, u.province, power)]
    for unit in held:
        orders[unit.province] = Hold(unit)
    # 2. Support them, the most threatened first.
    held.sort(key=lambda u: -_threat(reach, u.province, power))
    for target in held:
        room = _threat(reach, target.province, power)
        for unit in mine:
            if room <= 0:
                break
            if unit.province not in orders and target.province in reach_of(gmap, unit):
                orders[unit.province] = SupportHold(unit, target)
                room -= 1
    going: set[str] = set()  # provinces own units move into
    # 3. Cover the empty centres it owns that a foreign unit could enter.
    empty = sorted(c for c in owned if c not in pos.units and _threat(reach, c, power))
    for centre in empty:
        for unit in mine:
            move = None if unit.province in orders else _move_into(gmap, unit, centre)
            if move is not None:
                orders[unit.province] = move
                going.add(centre)
                break
    # 4. Take the wanted centres out of every foreign unit's reach.
    wanted = _wanted_centres(gmap, pos, power)
    free = sorted(c for c in wanted if c not in pos.units and not _threat(reach, c, power))
    for centre in free:
        for unit in mine:
            move = None if unit.province in orders else _move_into(gmap, unit, centre)
            if move is not None:
                orders[unit.province] = move
                going.add(centre)
                break
    # 5. The rest hold on a centre, or step toward one to take.
    tables = _targetdistances(gmap, wanted) if wanted else {ARMY: {}, FLEET: {}}
    # Never into a foreign unit, nor where an own unit stays or goes.
    staying = {p for p, u in pos.units.items() if u.power != power}
    staying |= {u.province for u in mine if type(orders.get(u.province)) is not Move}
    for unit in mine:
        if unit.province in orders:
            continue
        # A unit on a centre it has yet to own stays there until the centre is its own.
        taking = unit.province in gmap.centres and unit.province not in owned
        step = None if taking else _step(gmap, unit, tables, staying | going)
        if step is None:
            orders[unit.province] = Hold(unit)
            continue
        orders[unit.province] = step
        staying.discard(unit.province)
        going.add(province_of(step.dest))
    return [orders[u.province] for u in sorted(mine, key=lambda u: u.loc)]


def _step(
    gmap: GameMap, unit: Unit, tables: Mapping[str, Mapping[str, int]], taken: set[str]
) -> Move | None:
    """One move nearer the nearest centre to take, into a province no own unit holds or
    enters; None when no move gets nearer."""
    table = tables[unit.type]
    here = table.get(unit.loc if unit.type == FLEET else unit.province, FAR)
    options = gmap.army_moves[unit.province] if unit.type == ARMY else gmap.fleet_moves[unit.loc]
    best: tuple[int, str] | None = None
    for loc in sorted(options):
        if province_of(loc) in taken:
            continue
        d = table.get(loc, FAR)
        if d < here and (best is None or d < best[0]):
            best = (d, loc)
    return Move(unit, best[1]) if best is not None else None


# --- retreats and adjustments -----------------------------------------------------------


def _retreats(gmap: GameMap, pos: Position, power: str) -> list[Order]:
    owned = {c for c, p in pos.sc_owners.items() if p == power}
    taken: set[str] = set()
    orders: list[Order] = []
    for prov in sorted(pos.dislodged):
        d = pos.dislodged[prov]
        if d.unit.power != power:
            continue

        def key(loc: str, unit: Unit = d.unit) -> tuple[int, int, str]:
            home = gmap.civil_disorder_distance(power, unit.type, loc)
            return (0 if province_of(loc) in owned else 1, home, loc)

        options = sorted((o for o in d.options if province_of(o) not in taken), key=key)
        if options:
            taken.add(province_of(options[0]))
            orders.append(Retreat(d.unit, options[0]))
        else:
            orders.append(Disband(d.unit))
    return orders


def _adjustments(
    gmap: GameMap,
    pos: Position,
    power: str,
    reach: Mapping[str, Mapping[str, int]],
    build_any: bool,
) -> list[Order]:
    due = adjustment_due(pos, power)
    if due < 0:
        return [Remove(u) for u in removals(gmap, pos.units_of(power), -due)]
    if due == 0:
        return []
    sites = sorted(
        build_sites(gmap, pos, power, build_any), key=lambda s: (-_threat(reach, s, power), s)
    )
    tables = _targetdistances(gmap, _wanted_centres(gmap, pos, power) | _others(pos, power))
    return [Build(_new_unit(gmap, power, site, tables)) for site in sites[:due]]


def _others(pos: Position, power: str) -> set[str]:
    return {c for c, p in pos.sc_owners.items() if p != power}


def _new_unit(
    gmap: GameMap, power: str, site: str, tables: Mapping[str, Mapping[str, int]]
) -> Unit:
    """A fleet where the nearest centre to gain is nearer by sea, an army otherwise."""
    if gmap.provinces[site].kind == LAND:
        return Unit(power, ARMY, site)
    by_land = tables[ARMY].get(site, FAR)
    coasts = sorted(gmap.fleet_locations(site), key=lambda loc: (tables[FLEET].get(loc, FAR), loc))
    if coasts and tables[FLEET].get(coasts[0], FAR) < by_land:
        return Unit(power, FLEET, coasts[0])
    return Unit(power, ARMY, site)


def removals(gmap: GameMap, units: Sequence[Unit], count: int) -> list[Unit]:
    """The units to remove: farthest from home, off the centres before on them, by place."""

    def key(u: Unit) -> tuple[int, bool, str]:
        far = gmap.civil_disorder_distance(u.power, u.type, u.loc)
        return (-far, u.province in gmap.centres, u.loc)

    return sorted(units, key=key)[:count]

"""Retreat and adjustment phases: who goes where, who builds, who is removed."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from mailjudge.engine.maps import FLEET, GameMap, province_of
from mailjudge.engine.orders import Build, Order, Remove, Retreat, Waive
from mailjudge.engine.passive import NOBODY, Passive, Removal, listed_off_centre
from mailjudge.engine.state import Position, Unit


def resolve_retreats(
    pos: Position, orders: Mapping[str, Order]
) -> tuple[dict[str, Unit], dict[str, str]]:
    """Retreats to one province bounce and both units disband; no order means disband."""
    targets: dict[str, list[str]] = {}
    for prov, order in orders.items():
        if type(order) is Retreat and prov in pos.dislodged:
            targets.setdefault(province_of(order.dest), []).append(prov)
    after = dict(pos.units)
    outcomes: dict[str, str] = {}
    for prov in pos.dislodged:
        given = orders.get(prov)
        if type(given) is not Retreat:
            outcomes[prov] = "disbanded"
            continue
        rivals = targets[province_of(given.dest)]
        if len(rivals) > 1:
            outcomes[prov] = "bounces"
            continue
        outcomes[prov] = "succeeds"
        after[province_of(given.dest)] = given.unit._replace(loc=given.dest)
    return after, outcomes


def adjustment_due(pos: Position, power: str) -> int:
    """Builds (positive) or removals (negative) a power has to make."""
    centres = sum(1 for owner in pos.sc_owners.values() if owner == power)
    units = sum(1 for u in pos.units.values() if u.power == power)
    return centres - units


def last_adjustments(orders: Sequence[str], due: int) -> tuple[list[str], list[str]]:
    """A power's adjustment orders (``A PAR B``, ``F BRE D``, ``WAIVE``) as njudge keeps
    them: one for a province (the last given), and no more builds (waives count) or
    removals than it owes, the last given standing. The orders kept, in their order, and
    those left out."""
    wanted = "B" if due > 0 else "D"
    room = abs(due)
    kept: list[str] = []
    seen: set[str] = set()
    for text in reversed(orders):
        words = text.split()
        waive = text.upper() == "WAIVE"
        kind = "B" if waive else (words[-1] if len(words) == 3 else "")
        if kind not in ("B", "D"):
            kept.append(text)  # not an adjustment: left to the checks
            continue
        province = "" if waive else words[1].split("/")[0].upper()
        if kind != wanted or room == 0 or (province and province in seen):
            continue
        seen.add(province)
        room -= 1
        kept.append(text)
    kept.reverse()
    dropped = [text for text in orders if text not in kept]
    return kept, dropped


def build_sites(gmap: GameMap, pos: Position, power: str, build_any: bool) -> list[str]:
    """Empty centres the power owns and may build in (any of them on a build-any map)."""
    build_any = build_any or gmap.build_any
    homes = gmap.home_centres.get(power, frozenset())
    return sorted(
        c
        for c, owner in pos.sc_owners.items()
        if owner == power and c not in pos.units and (build_any or c in homes)
    )


def adjustments_needed(
    gmap: GameMap, pos: Position, build_any: bool, passive: Passive = NOBODY
) -> bool:
    for power in gmap.power_names:
        due = adjustment_due(pos, power)
        builds = due > 0 and power not in passive and build_sites(gmap, pos, power, build_any)
        if due < 0 or builds:
            return True
    return False


def civil_disorder_removals(gmap: GameMap, units: Sequence[Unit], count: int) -> list[Unit]:
    """DATC 6.J: farthest from home first, then fleets before armies, then by province name."""

    def key(u: Unit) -> tuple[int, int, str]:
        distance = gmap.civil_disorder_distance(u.power, u.type, u.loc)
        return (-distance, 0 if u.type == FLEET else 1, gmap.provinces[province_of(u.loc)].name)

    return sorted(units, key=key)[:count]


def seeded_removals(
    gmap: GameMap, units: Sequence[Unit], count: int, seed: str, phase: str
) -> list[Unit]:
    """Seed 001's CIVIL_DISORDER removals: "random choice from among the power's on-board
    units, with preference given to retaining units that are situated on supply centers".
    Off-centre units go first; within each group the draw is the order of
    sha256("seed:phase:POWER:location") in hex, so anyone can repeat it from public data."""

    def key(u: Unit) -> tuple[bool, str]:
        on_centre = province_of(u.loc) in gmap.centres
        draw = hashlib.sha256(f"{seed}:{phase}:{u.power}:{u.loc}".encode()).hexdigest()
        return (on_centre, draw)

    return sorted(units, key=key)[:count]


# Which rule chose a removal nobody ordered: kept with the result (its reason), so the
# results name that rule (render/results.py).
BY_DRAW = "random"  # seed 001's CIVIL_DISORDER draw
BY_DISTANCE = Removal.FARTHEST.value  # DATC 6.J, Diplonomic rule 24
BY_LISTING = Removal.LISTED_OFF_CENTRE.value  # Survive rule 4b


def passive_removals(
    gmap: GameMap, passive: Passive, units: Sequence[Unit], count: int
) -> list[Unit]:
    if passive.removal is Removal.LISTED_OFF_CENTRE:
        return listed_off_centre(gmap, units, count)
    return civil_disorder_removals(gmap, units, count)


# (power, order, outcome, the rule that chose it when nobody ordered it)
AdjustmentResult = tuple[str, Order, str, str]


def resolve_adjustments(
    gmap: GameMap,
    pos: Position,
    orders: Mapping[str, Sequence[Order]],
    build_any: bool = False,
    passive: Passive = NOBODY,
    civil_disorder_seed: str = "",
) -> tuple[dict[str, Unit], list[AdjustmentResult]]:
    """Apply builds and removals in the order given; the surplus is void; missing removals
    are made by the civil-disorder rule (seeded by ``civil_disorder_seed`` when it is set,
    DATC 6.J otherwise) and missing builds are waived. Passive powers never build, and
    lose units by their own rule whatever they ordered."""
    after = dict(pos.units)
    results: list[AdjustmentResult] = []
    build_any = build_any or gmap.build_any
    for power in gmap.power_names:
        due = adjustment_due(pos, power)
        given = orders.get(power, ())
        if power in passive:
            mine = [u for u in after.values() if u.power == power]
            for unit in passive_removals(gmap, passive, mine, max(0, -due)):
                del after[province_of(unit.loc)]
                results.append((power, Remove(unit), "civil disorder", passive.removal.value))
        elif due > 0:
            homes = gmap.home_centres.get(power, frozenset())
            used = 0
            for order in given:
                if used >= due:
                    results.append((power, order, "void", ""))
                elif type(order) is Waive:
                    used += 1
                    results.append((power, order, "succeeds", ""))
                elif type(order) is Build:
                    prov = province_of(order.unit.loc)
                    if prov in after:
                        results.append((power, order, "void", ""))
                    elif not build_any and prov not in homes:
                        results.append((power, order, "invalid", ""))
                    else:
                        after[prov] = order.unit
                        used += 1
                        results.append((power, order, "succeeds", ""))
                else:
                    results.append((power, order, "void", ""))
        elif due < 0:
            removed: set[str] = set()
            for order in given:
                if type(order) is Remove and len(removed) < -due:
                    prov = province_of(order.unit.loc)
                    if prov in removed or after.get(prov) != order.unit:
                        results.append((power, order, "void", ""))
                        continue
                    removed.add(prov)
                    del after[prov]
                    results.append((power, order, "succeeds", ""))
                else:
                    results.append((power, order, "void", ""))
            missing = -due - len(removed)
            if missing > 0:
                left = [u for u in after.values() if u.power == power]
                chosen = (
                    seeded_removals(gmap, left, missing, civil_disorder_seed, str(pos.phase))
                    if civil_disorder_seed
                    else civil_disorder_removals(gmap, left, missing)
                )
                rule = BY_DRAW if civil_disorder_seed else BY_DISTANCE
                for unit in chosen:
                    del after[province_of(unit.loc)]
                    results.append((power, Remove(unit), "civil disorder", rule))
        else:
            results.extend((power, order, "void", "") for order in given)
    return after, results

"""Property tests over thousands of phases of seeded random games (legal orders of every
kind), plus hypothesis-chosen noise: the engine never crashes and keeps the board sound."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from mailjudge.engine.maps import ARMY, GameMap, load_map
from mailjudge.engine.phases import PhaseOutcome, process_phase
from mailjudge.engine.randomplay import Orders, play, random_orders
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT, Position, initial_position

MAP = load_map("standard")


def _units_sound(gmap: GameMap, pos: Position) -> None:
    for prov, unit in pos.units.items():
        assert gmap.loc_province[unit.loc] == prov, "unit filed under the wrong province"
        if unit.type == ARMY:
            assert not gmap.is_water(prov) and "/" not in unit.loc
        else:
            assert unit.loc in gmap.fleet_moves


def check_invariants(gmap: GameMap, before: Position, out: PhaseOutcome) -> None:
    after = out.after
    _units_sound(gmap, after)
    _units_sound(gmap, out.next)
    kinds = Counter((u.power, u.type) for u in before.units.values())
    ptype = before.phase.type
    if ptype == MOVEMENT:
        moved = Counter((u.power, u.type) for u in after.units.values())
        moved.update((d.unit.power, d.unit.type) for d in after.dislodged.values())
        moved.update((u.power, u.type) for u in out.destroyed)
        assert moved == kinds, "units after = units before minus destroyed"
        for prov, d in after.dislodged.items():
            assert d.options, "a dislodged unit listed without a retreat is destroyed instead"
            assert prov not in after.units or after.units[prov] != d.unit
            for loc in d.options:
                p = gmap.loc_province[loc]
                assert p not in after.units and p not in after.contested
                assert p != d.attacker_from or d.via_convoy
                assert gmap.can_move(d.unit.type, d.unit.loc, loc)
        for u in out.destroyed:
            assert gmap.loc_province[u.loc] not in after.dislodged
    elif ptype == RETREAT:
        retreated = sum(1 for r in out.results if r.outcome == "succeeds")
        assert len(after.units) == len(before.units) + retreated
        assert not after.dislodged
    else:
        builds = sum(
            1 for r in out.results if r.outcome == "succeeds" and str(r.text).endswith(" B")
        )
        removals = sum(
            1 for r in out.results
            if r.outcome in ("succeeds", "civil disorder") and str(r.text).endswith(" D")
        )  # fmt: skip
        assert len(after.units) == len(before.units) + builds - removals
        for power in gmap.power_names:
            centres = sum(1 for o in after.sc_owners.values() if o == power)
            assert sum(1 for u in after.units.values() if u.power == power) <= max(
                centres, sum(1 for u in before.units.values() if u.power == power)
            )
    if ptype == ADJUSTMENT or (before.phase.season == "F" and out.next.phase.season != "F"):
        for prov in gmap.centres:
            unit = out.next.units.get(prov)
            if unit is not None and before.phase.season == "F":
                assert out.next.sc_owners[prov] == unit.power


def test_thousands_of_random_phases() -> None:
    phases = Counter[str]()
    for seed in range(30):
        for before, _, out in play(MAP, 1000 + seed, 110):
            check_invariants(MAP, before, out)
            phases[before.phase.type] += 1
            assert not [r for r in out.results if r.outcome == "invalid"]
    assert sum(phases.values()) >= 3000
    assert phases[RETREAT] > 100 and phases[ADJUSTMENT] > 500


def _noise(rng: random.Random, orders: Orders, drop: float) -> Orders:
    """Legal orders with some dropped, some duplicated for other units, and some garbage."""
    noisy: Orders = {}
    junk = [
        "A PAR - URK",
        "F XYZ H",
        "",
        "WAIVE",
        "A MUN S F KIE - BER",
        "BUILD F MOS",
        "A BUR R PAR",
    ]
    for power, lines in orders.items():
        kept = [line for line in lines if rng.random() > drop]
        if rng.random() < 0.3:
            kept.append(rng.choice(junk))
        if lines and rng.random() < 0.2:
            kept.append(rng.choice(lines))
        noisy[power] = kept
    return noisy


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), drop=st.floats(0.0, 0.9), length=st.integers(1, 40))
def test_no_crash_on_noisy_orders(seed: int, drop: float, length: int) -> None:
    rng = random.Random(seed)
    pos = initial_position(MAP)
    for _ in range(length):
        orders = _noise(rng, random_orders(MAP, pos, rng), drop)
        out = process_phase(MAP, pos, orders)
        check_invariants(MAP, pos, out)
        if out.winners:
            break
        pos = out.next

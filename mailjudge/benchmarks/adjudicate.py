"""`mailjudge bench adjudicate`: phases per second of the engine, order reading included.

Seeded random games are played once to record every phase's position and order texts
(that time is not counted); then each recorded phase is processed again from its text
orders under the clock: reading, checking, adjudicating and moving to the next phase.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any

from mailjudge.engine.maps import MapError, load_map
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import Orders, play
from mailjudge.engine.reader import clear_reader_cache
from mailjudge.engine.state import MOVEMENT, Position


def record(
    games: int, phases: int, seed: int, map_name: str = "standard"
) -> list[tuple[Position, Orders]]:
    gmap = load_map(map_name)
    return [(pos, orders) for g in range(games) for pos, orders, _ in play(gmap, seed + g, phases)]


def measure(
    recorded: list[tuple[Position, Orders]], cold: bool, rounds: int, map_name: str = "standard"
) -> dict[str, Any]:
    gmap = load_map(map_name)
    per_round = []
    for _ in range(rounds):
        clear_reader_cache()
        move_time = 0.0
        all_time = 0.0
        moves = 0
        for pos, orders in recorded:
            if cold:
                clear_reader_cache()
            start = time.perf_counter()
            process_phase(gmap, pos, orders)
            spent = time.perf_counter() - start
            all_time += spent
            if pos.phase.type == MOVEMENT:
                move_time += spent
                moves += 1
        per_round.append((moves / move_time, move_time / moves * 1e6, len(recorded) / all_time))
    best = max(per_round)
    move_units = [len(p.units) for p, _ in recorded if p.phase.type == MOVEMENT]
    return {
        "phases": len(recorded),
        "movement_phases": sum(1 for p, _ in recorded if p.phase.type == MOVEMENT),
        "mean_units_per_movement_phase": round(statistics.mean(move_units), 1),
        "movement_phases_per_s": round(best[0]),
        "us_per_movement_phase": round(best[1], 1),
        "all_phases_per_s": round(best[2]),
        "median_movement_phases_per_s": round(statistics.median(r[0] for r in per_round)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench adjudicate", description=__doc__)
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--phases", type=int, default=120, help="phases per game at most (default 120)")
    ap.add_argument("--seed", type=int, default=1, help="first game's seed (default 1)")
    ap.add_argument(
        "--rounds", type=int, default=5, help="timed passes; the best is shown (default 5)"
    )
    ap.add_argument(
        "--cold",
        action="store_true",
        help="forget every memoised order reading before each phase (worst case for the reader)",
    )
    ap.add_argument("--map", default="standard", help="data/maps/NAME.toml (default standard)")
    args = ap.parse_args(argv)
    try:
        load_map(args.map)
    except MapError as err:
        ap.error(str(err))
    recorded = record(args.games, args.phases, args.seed, args.map)
    # The recorded games are the benchmark's fixture, not the engine's work: keep the
    # collector from rescanning them, while it still runs for everything the engine makes.
    gc.collect()
    gc.freeze()
    result = measure(recorded, args.cold, args.rounds, args.map)
    mode = "cold reader (no memo)" if args.cold else "memoised reader"
    print(
        f"mailjudge bench adjudicate: map {args.map}, {args.games} seeded random games, "
        f"{mode}, one core"
    )
    for key, value in result.items():
        print(f"  {key}: {value}")
    return 0

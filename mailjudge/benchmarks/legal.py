"""`mailjudge bench legal`: the time to list every legal order of a position, with their
text (engine/legal.py), as a mail with ready-to-send orders needs them (issue 34: under
5 ms for a mid-game position).

Seeded random games are played once to record their mid-game movement phases (1903 to
1908 by default, when the board is fullest); each position's orders are then listed under
the clock, a few times, and the least CPU time of those counts (the process's own time,
which other work on the machine does not lengthen). Retreat and adjustment phases are
timed too; they list far fewer orders.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from mailjudge.engine.legal import legal_order_texts
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.randomplay import play
from mailjudge.engine.state import MOVEMENT, Position

TARGET_MS = 5.0


def record(games: int, seed: int, first_year: int, last_year: int) -> list[Position]:
    gmap = load_map("standard")
    return [
        pos
        for g in range(games)
        for pos, _, _ in play(gmap, seed + g, (last_year - 1900) * 5)
        if first_year <= pos.phase.year <= last_year
    ]


def time_one(gmap: GameMap, pos: Position, tries: int) -> tuple[float, int]:
    """The least CPU time (ms) of ``tries`` listings of the position's orders, and how many
    orders there are."""
    best = float("inf")
    count = 0
    for _ in range(tries):
        started = time.process_time()
        found = legal_order_texts(gmap, pos)
        best = min(best, time.process_time() - started)
        count = sum(len(texts) for texts in found.values())
    return best * 1000, count


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"median {statistics.median(ordered):.2f} ms, 95th percentile {p95:.2f} ms, "
        f"worst {ordered[-1]:.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench legal", description=__doc__)
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="first game's seed (default 1)")
    ap.add_argument("--from-year", type=int, default=1903, help="first year timed (1903)")
    ap.add_argument("--to-year", type=int, default=1908, help="last year timed (1908)")
    ap.add_argument("--tries", type=int, default=5, help="timings per position (default 5)")
    args = ap.parse_args(argv)
    gmap = load_map("standard")
    positions = record(args.games, args.seed, args.from_year, args.to_year)
    gc.collect()
    gc.freeze()  # the recorded positions are the fixture, not the work
    moving: list[float] = []
    other: list[float] = []
    units: list[int] = []
    orders: list[int] = []
    for pos in positions:
        ms, count = time_one(gmap, pos, args.tries)
        if pos.phase.type == MOVEMENT:
            moving.append(ms)
            units.append(len(pos.units))
            orders.append(count)
        else:
            other.append(ms)
    if not moving:
        print("no movement phase in those years")
        return 1
    print(
        f"mailjudge bench legal: {args.games} seeded random games, {args.from_year}-"
        f"{args.to_year}, least CPU time of {args.tries} listings, one core"
    )
    print(
        f"  movement phases: {len(moving)} ({statistics.mean(units):.1f} units and "
        f"{statistics.mean(orders):.0f} orders on average, {max(orders)} at most)"
    )
    print(f"  all legal orders of a movement phase: {_figures(moving)}")
    if other:
        print(f"  retreat and adjustment phases ({len(other)}): {_figures(other)}")
    verdict = "under" if max(moving) < TARGET_MS else "NOT under"
    print(f"  every movement phase {verdict} the {TARGET_MS:g} ms target")
    return 0

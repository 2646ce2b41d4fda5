"""Seconds to count a million ranked ballots, as lists and as grouped rankings.

Ballots are seeded random rankings of random length (1 to the number of options), the
worst realistic spread: about half of a million such ballots are distinct rankings.
Making them, and grouping them for ``count_grouped``, is not timed.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections import Counter
from collections.abc import Callable

from mailjudge.voting import count, count_grouped


def make_ballots(ballots: int, options: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    ids = list(range(options))
    return [rng.sample(ids, rng.randint(1, options)) for _ in range(ballots)]


def best_of(rounds: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench voting", description=__doc__)
    ap.add_argument("--ballots", type=int, default=1_000_000, help="default 1000000")
    ap.add_argument("--options", type=int, default=10, help="default 10")
    ap.add_argument("--seed", type=int, default=1, help="the ballots' seed (default 1)")
    ap.add_argument("--rounds", type=int, default=5, help="timed runs; the best is shown")
    args = ap.parse_args(argv)
    ballots = make_ballots(args.ballots, args.options, args.seed)
    groups = Counter(map(tuple, ballots))
    options = list(range(args.options))
    seed = f"bench:{args.seed}"
    # The ballots are the fixture, not the count's work: keep the collector from
    # rescanning them, while it still runs for everything the count makes.
    gc.collect()
    gc.freeze()
    try:
        as_lists = best_of(args.rounds, lambda: count(ballots, options, seed))
        as_groups = best_of(args.rounds, lambda: count_grouped(groups, options, seed))
    finally:
        gc.unfreeze()
    print(f"ballots: {args.ballots}")
    print(f"options: {args.options}")
    print(f"distinct rankings: {len(groups)}")
    print(f"count seconds (best of {args.rounds}): {as_lists:.3f}")
    print(f"count_grouped seconds (best of {args.rounds}): {as_groups:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

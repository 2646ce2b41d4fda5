"""The kill soak, long form: `python tests/soak/soak_kills.py --kills 100`.

Three judges on a PostgreSQL primary and its synchronous standby (started here on
loopback), 20 order mails a second over the judges' three ports; every few seconds a
judge, the primary or the standby is killed at random (SIGKILL) and mended (the judge
started again; the standby promoted and a new standby made; the standby started again).
Prints each kill, then the figures; exits 1 when a mail was lost, answered twice or
processed twice, or a phase was processed twice, skipped, or its results not sent to
each player once. With --sqlite: one judge on a SQLite file, killed (as a whole) and
started again. tests/ops/test_kill_soak.py is the same in pytest."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.ha import run_kill_soak


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--rate", type=float, default=20.0, help="mails per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sqlite", action="store_true",
                    help="one judge on SQLite instead, killed and started again")  # fmt: skip
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mailjudge-soak-") as folder:
        figures = run_kill_soak(Path(folder), args.kills, args.rate, args.seed,
                                say=lambda line: print(line, flush=True),
                                sqlite=args.sqlite)  # fmt: skip
    print("\n".join(figures.lines()))
    print(f"seconds: {time.monotonic() - started:.0f}")
    return 0 if figures.ok() else 1


if __name__ == "__main__":
    sys.exit(main())

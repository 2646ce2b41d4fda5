"""Crash safety, long form: `python tests/soak/soak_crash.py --kills 50`.

`mailjudge serve` (one worker process, one sender) is SIGKILLed with its children at random
moments while order mails stream in over SMTP, and started again; then every mail that got
250 is looked for at the outbound sink. Prints the figures; exits 1 when a mail was lost,
answered twice or processed twice."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.reliability import run_crash


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--rate", type=float, default=30.0, help="mails per second")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mailjudge-soak-") as folder:
        figures = run_crash(Path(folder), args.kills, args.rate, args.seed)
    print("\n".join(figures.lines()))
    print(f"seconds: {time.monotonic() - started:.0f}")
    return 0 if figures.ok() else 1


if __name__ == "__main__":
    sys.exit(main())

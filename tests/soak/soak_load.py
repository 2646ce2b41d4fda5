"""Load, long form: `python tests/soak/soak_load.py --minutes 10 --rate 100`.

Order mails over SMTP at a steady rate into `mailjudge serve` (one worker process, one
sender, SQLite) for the given time; the resident memory of the judge's processes is
sampled every few seconds. Prints the figures, and whether memory stayed flat (the last
minute's mean within 10 % of the second minute's); exits 1 on a lost or doubled mail."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.reliability import run_load


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=100.0, help="mails per second")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mailjudge-soak-") as folder:
        figures = run_load(Path(folder), args.minutes * 60, args.rate)
    print("\n".join(figures.lines()))
    return 0 if figures.ok() and not figures.resent else 1


if __name__ == "__main__":
    sys.exit(main())

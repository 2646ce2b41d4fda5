"""SMTP outage, long form: `python tests/soak/soak_outage.py --mails 3000 --outages 5 --down 20`.

The judge's relay (an aiosmtpd sink) is stopped and started again on the same port,
`--outages` times for `--down` seconds, while order mails stream in; then each answer is
counted at the sink by Message-ID. Prints the figures; exits 1 on a lost or doubled mail."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.reliability import run_outage


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mails", type=int, default=3000)
    ap.add_argument("--outages", type=int, default=5)
    ap.add_argument("--down", type=float, default=20.0, help="seconds each outage lasts")
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mailjudge-soak-") as folder:
        figures = run_outage(Path(folder), args.mails, args.outages, args.down)
    print("\n".join(figures.lines()))
    print(f"seconds: {time.monotonic() - started:.0f}")
    return 0 if figures.ok() and not figures.resent else 1


if __name__ == "__main__":
    sys.exit(main())

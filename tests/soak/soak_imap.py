"""IMAP restarts, long form: `python tests/soak/soak_imap.py --mails 3000 --restarts 20`.

A throw-away Dovecot on loopback holds the judge's mailbox; mail is APPENDed to it while
`mailjudge serve` polls it and Dovecot is stopped (by its process id) and started again.
With `--judges 2 --postgres URL` two judges share one PostgreSQL database and the mailbox.
Prints the figures; exits 1 on a lost, doubled or twice-processed mail."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.reliability import own_dovecot, run_imap

from mailjudge.benchmarks.mail_rig import scratch_postgres


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mails", type=int, default=3000)
    ap.add_argument("--restarts", type=int, default=20)
    ap.add_argument("--judges", type=int, default=1)
    ap.add_argument("--postgres", metavar="URL", help="server for a scratch database")
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mailjudge-soak-") as folder, own_dovecot() as server:
        if args.postgres:
            with scratch_postgres(args.postgres) as url:
                figures = run_imap(
                    Path(folder), server, args.mails, args.restarts, url, args.judges
                )
        else:
            figures = run_imap(Path(folder), server, args.mails, args.restarts, None, args.judges)
    print("\n".join(figures.lines()))
    print(f"seconds: {time.monotonic() - started:.0f}")
    return 0 if figures.ok() and not figures.resent else 1


if __name__ == "__main__":
    sys.exit(main())

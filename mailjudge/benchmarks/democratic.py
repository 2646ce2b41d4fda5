"""`mailjudge bench democratic`: a Democratic game with 100,000 citizens processes a phase.

Setup (not timed): the game starts, the citizens are placed round the home centres as the
start places them (written in bulk, with one real scrypt hash shared, since hashing a
hundred thousand passwords takes hours), three order sets are proposed and three citizens
nominated in each country by the commands a citizen sends (PROPOSAL ORDERS, NOMINATE),
the first citizen of each country votes by VOTE ORDERS and VOTE DIPLOMAT, and every
other citizen's two ballots (random rankings) are written in bulk like theirs. Timed: one
movement phase processed at its deadline, with the seven order counts, the engine, and the
seven diplomat elections of the next phase. Peak memory: the process's, from just before
the phase.

With --by-mail the ballots come as mail instead (benchmarks/democratic_mail.py): the judge
runs and every citizen's SIGNON and VOTE ORDERS arrive over SMTP in one burst; with
--postgres, on PostgreSQL, as --judges judge processes. With --spooled N, N ballot mails
are stored first and answered by the worker's loop in this process: the worker's share
alone, its processor time a mail.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from mailjudge.benchmarks.democratic_game import (
    fill_game,
    memory_mb,
    process_at_deadline,
    reset_peak_memory,
)
from mailjudge.benchmarks.democratic_mail import run_by_mail, spooled
from mailjudge.game.state import get_game
from mailjudge.store import db
from mailjudge.tools import migrations


def run(citizens: int, seed: int) -> dict[str, float]:
    """The phase of a game whose ballots were written straight into the database."""
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-democratic-"))
    db.connect(f"sqlite:///{folder / 'judge.db'}")
    migrations.upgrade()
    setup = time.perf_counter()
    ballots = fill_game(citizens, seed)
    setup = time.perf_counter() - setup
    before_mb = memory_mb("VmRSS")
    reset_peak_memory()  # the peak of the phase, not of the set-up
    spent, done = process_at_deadline(get_game("big"))
    peak_mb = memory_mb("VmHWM")
    db.close()
    return {
        "citizens": citizens,
        "ballots": ballots,
        "setup_seconds": setup,
        "phase_seconds": spent,
        "memory_before_phase_mb": before_mb,
        "peak_memory_in_phase_mb": peak_mb,
        "notices": len(done.notices),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench democratic", description=__doc__)
    ap.add_argument("--citizens", type=int, default=100_000, help="citizens (default 100000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--by-mail",
        action="store_true",
        help="every citizen's ballot comes by SMTP to a running judge",
    )
    ap.add_argument("--clients", type=int, default=4, help="SMTP clients with --by-mail")
    ap.add_argument(
        "--postgres",
        metavar="URL",
        help="with --by-mail or --spooled: this PostgreSQL database, in a schema of the run's own",
    )
    ap.add_argument(
        "--schema",
        help="with --postgres: the schema's name (made, then dropped; default: a new one)",
    )
    ap.add_argument(
        "--judges",
        type=int,
        default=1,
        help="with --postgres: judge processes, each with its own listener (default 1)",
    )
    ap.add_argument(
        "--spooled",
        type=int,
        metavar="N",
        help="the worker's share alone: N ballot mails stored, then answered in this process",
    )
    args = ap.parse_args(argv)
    if args.spooled:
        where = "PostgreSQL" if args.postgres else "SQLite"
        print(f"mailjudge bench democratic --spooled: {where}, one worker's loop in this process")
        found = spooled(args.citizens, args.seed, args.spooled, args.postgres, args.schema)
        for key, value in found.items():
            print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
        return 0
    if (args.postgres or args.judges != 1) and not args.by_mail:
        ap.error("--postgres and --judges go with --by-mail (--postgres also with --spooled)")
    if args.judges != 1 and not args.postgres:
        ap.error("several judges share one PostgreSQL database: give --postgres URL")
    if args.by_mail:
        result = run_by_mail(
            args.citizens, args.seed, args.clients, args.postgres, args.judges, args.schema
        )
        where = f"PostgreSQL, {args.judges} judge processes" if args.postgres else "SQLite"
        print(f"mailjudge bench democratic --by-mail: {where}, {args.clients} SMTP clients, "
              "1 worker process + 1 sender a judge")  # fmt: skip
        for key, value in result.items():
            print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
        return 0 if result["ballots_counted"] == result["ballots_mailed"] else 1
    result = run(args.citizens, args.seed)
    print("mailjudge bench democratic: SQLite, one process, the ballots written in bulk")
    for key, value in result.items():
        print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
    return 0

"""`mailjudge bench smtp_spool`: mails per second taken into the spool by the SMTP listener.

The listener runs as the judge runs it (aiosmtpd event loop; each mail stored by
spool.store in a worker thread) on a free loopback port, over a fresh SQLite database
(or --database). Clients are separate processes sending ~2 kB mails with smtplib, one
connection each: first one client, then several at once. A run counts only once every
mail of it is in the spool.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import smtplib
import tempfile
import time
from pathlib import Path
from typing import Any

from mailjudge.config.settings import JudgeSettings, Settings, SmtpSettings
from mailjudge.inbound.smtp import Listener
from mailjudge.store import db
from mailjudge.store.models import InboundMessage
from mailjudge.tools import migrations

JUDGE = "judge@example.org"
_ORDERS = "A PAR - BUR, F BRE - MAO, A MAR S A PAR - BUR, F LON - NTH, A LVP - YOR.\r\n"


def make_mail(run: str, n: int) -> bytes:
    head = (
        f"From: player{n % 7}@example.org\r\nTo: {JUDGE}\r\nSubject: orders {n}\r\n"
        f"Message-ID: <bench-{run}-{n}@example.org>\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"
    )
    return (head + _ORDERS * 26).encode()


def _client(job: tuple[int, str, list[int]]) -> int:
    port, run, numbers = job
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        for n in numbers:
            smtp.sendmail(f"player{n % 7}@example.org", [JUDGE], make_mail(run, n))
    return len(numbers)


def _run(pool: Any, port: int, run: str, messages: int, clients: int) -> float:
    jobs = [(port, run, list(range(k, messages, clients))) for k in range(clients)]
    started = time.perf_counter()
    sent = sum(pool.map(_client, jobs))
    elapsed = time.perf_counter() - started
    stored = (
        InboundMessage.select()
        .where(InboundMessage.message_id.startswith(f"<bench-{run}-"))
        .count()
    )
    if sent != messages or stored != messages:
        raise RuntimeError(f"run {run}: sent {sent}, stored {stored}, expected {messages}")
    return messages / elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench smtp_spool", description=__doc__)
    ap.add_argument("--messages", type=int, default=2000, help="mails per run (default 2000)")
    ap.add_argument(
        "--clients", type=int, default=4, help="client processes in the second run (default 4)"
    )
    ap.add_argument("--rounds", type=int, default=3, help="runs of each kind; best shown (3)")
    ap.add_argument("--database", help="database URL (default: a new SQLite file)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="mailjudge-bench-") as tmp:
        url = args.database or f"sqlite:///{Path(tmp) / 'bench.db'}"
        # Client processes are forked before any thread or connection exists here.
        context = multiprocessing.get_context("fork")
        with context.Pool(args.clients) as pool:
            pool.map(abs, range(args.clients))  # start them outside the timed part
            db.connect(url)
            migrations.upgrade()
            settings = Settings(
                judge=JudgeSettings(address=JUDGE),
                smtp=SmtpSettings(host="127.0.0.1", port=1, lmtp_port=0),
            )
            with Listener(settings, free_ports=True) as listener:
                assert listener.smtp_port is not None
                results: dict[int, float] = {}
                for clients in (1, args.clients):
                    results[clients] = max(
                        _run(pool, listener.smtp_port, f"{clients}x{r}", args.messages, clients)
                        for r in range(args.rounds)
                    )
            db.close()
    workers = min(32, (os.cpu_count() or 1) + 4)
    kind = url.partition(":")[0]
    print(
        f"SMTP listener -> spool ({kind}), {args.messages} mails of {len(make_mail('x', 0))} bytes "
        f"per run, best of {args.rounds}, {os.cpu_count()} CPUs"
    )
    for clients, rate in results.items():
        noun = "client" if clients == 1 else "clients"
        print(f"  {clients:3d} {noun:7s} (one smtplib connection each): {rate:7.0f} mails/s")
    print(
        f"  server: one aiosmtpd event loop; spool.store in asyncio.to_thread "
        f"(default pool, up to {workers} threads)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

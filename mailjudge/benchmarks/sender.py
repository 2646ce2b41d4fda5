"""`python -m mailjudge.benchmarks.sender`: what a reply costs the sender, and the relay.

The replies of ``--mails`` order mails (those of `bench mail`) are answered and queued
first, with no SMTP; then this process sends them the way the judge's sender process
does (`outbox.flush` with the SQLite record) to an aiosmtpd sink in a process of its own.
With ``--round N`` the replies fall due N at a time and each round is one flush, as when
the sender is rung for each batch the worker answers; without it they are one backlog.
``--connections N`` sends over N relay connections at once, as the judge's
``outbound.connections`` does; ``--relay-delay-ms D`` makes the sink answer each mail D
ms late, as a relay across a network would. Printed: processor time a reply of the
sender (this process) and of the sink, and the clock's replies a second.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from mailjudge.app import pipeline
from mailjudge.benchmarks.mail_rig import (
    JUDGE,
    bench_game_and_mails,
    bench_settings,
    cpu_seconds,
    relay_process,
)
from mailjudge.config.settings import use_settings
from mailjudge.demo.sink import free_port
from mailjudge.inbound import spool
from mailjudge.outbound.connections import RelayConnections
from mailjudge.outbound.outbox import flush
from mailjudge.outbound.retry import RetryPolicy
from mailjudge.outbound.send import SmtpSender
from mailjudge.outbound.sent_record import SentRecord
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, Outbox, utcnow
from mailjudge.tools import migrations


class _Arrivals:
    """The sink's notes go nowhere: only its processor time is looked at."""

    def put(self, arrival: Any) -> None:
        pass


class _FarSink:
    """A relay across a network: each mail's DATA answered ``delay`` seconds late (a
    relay's round trip and its own work), without holding up its other sessions."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.delay)
        return "250 OK"


def _counting_relay(port: int, stop: Any, delay: float = 0.0) -> None:
    if not delay:
        relay_process(port, _Arrivals(), stop)
        return
    relay = Controller(_FarSink(delay), hostname="127.0.0.1", port=port)
    relay.start()
    stop.wait()
    relay.stop()


def _queue_replies(folder: Path, mails: int, sink_port: int) -> int:
    """The replies of ``mails`` order mails, queued; how many."""
    settings = bench_settings(f"sqlite:///{folder / 'judge.db'}", sink_port)
    use_settings(settings)
    db.connect(settings.database.url)
    migrations.upgrade()
    for _, raw in bench_game_and_mails(mails):
        spool.store(raw.replace(b"\n", b"\r\n"), "player@bench.test", [JUDGE], "smtp")

    def handle(row: InboundMessage, prepared: Any = None) -> None:
        pipeline.handle(row, settings, prepared=prepared)

    spool.process_pending(handle, prepare=lambda row: pipeline.prepare(row, settings))
    return int(Outbox.select().where(Outbox.state == "queued").count())


def _send_all(port: int, rounds: int, connections: int) -> tuple[int, float, float]:
    """Send every queued reply, ``rounds`` at a time (0: all in one flush), over
    ``connections`` relay connections; the replies sent, the seconds taken and the
    processor seconds of this process."""
    sender = RelayConnections([SmtpSender("127.0.0.1", port, JUDGE) for _ in range(connections)])
    record = SentRecord.beside_database()
    retry = RetryPolicy()
    start = utcnow()
    ids = [row.id for row in Outbox.select(Outbox.id).order_by(Outbox.id)]
    step = rounds or len(ids)
    for n in range(0, len(ids), step):  # round k falls due at start + k seconds
        due = start + timedelta(seconds=n // step)
        Outbox.update(next_attempt_at=due).where(Outbox.id.in_(ids[n : n + step])).execute()
    sent, began, cpu = 0, time.perf_counter(), time.process_time()
    for k in range(0, len(ids) // step + 1):
        sent += flush(sender, now=start + timedelta(seconds=k), retry=retry, record=record).sent
    spent, cpu = time.perf_counter() - began, time.process_time() - cpu
    sender.close()
    if record is not None:
        record.close()
    return sent, spent, cpu


def run(mails: int, rounds: int, connections: int = 1, delay: float = 0.0) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-bench-sender-"))
    port = free_port()
    mp = multiprocessing.get_context("spawn")
    stop = mp.Event()
    relay = mp.Process(target=_counting_relay, args=(port, stop, delay), daemon=True)
    relay.start()
    try:
        queued = _queue_replies(folder, mails, port)
        time.sleep(1.0)  # the relay process is up
        relay_cpu = cpu_seconds(relay.pid or 0)
        sent, spent, cpu = _send_all(port, rounds, connections)
        relay_cpu = cpu_seconds(relay.pid or 0) - relay_cpu
    finally:
        stop.set()
        relay.join(timeout=10)
        db.close()
    return {"queued": queued, "sent": sent, "sent_per_s": sent / max(spent, 1e-9),
            "cpu_ms_per_reply_sender": cpu * 1000 / max(sent, 1),
            "cpu_ms_per_reply_relay": relay_cpu * 1000 / max(sent, 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mailjudge.benchmarks.sender", description=__doc__)
    ap.add_argument("--mails", type=int, default=2000, help="replies to send (default 2000)")
    ap.add_argument("--round", type=int, default=0, help="replies due at a time (0: all)")
    ap.add_argument("--runs", type=int, default=1, help="runs; the median is printed too")
    ap.add_argument(
        "--connections", type=int, default=1, help="relay connections at once (default 1)"
    )
    ap.add_argument(
        "--relay-delay-ms",
        type=float,
        default=0.0,
        help="the relay answers each DATA this late, as one across a network (default 0)",
    )
    args = ap.parse_args(argv)
    delay = args.relay_delay_ms / 1000
    results = [run(args.mails, args.round, args.connections, delay) for _ in range(args.runs)]
    for n, result in enumerate(results):
        print(f"run {n + 1}: " + ", ".join(f"{k} {v:.3f}" for k, v in result.items()))
    if args.runs > 1:
        for key in results[0]:
            print(f"  median {key}: {statistics.median(r[key] for r in results):.3f}")
    return 0 if all(r["sent"] == r["queued"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())

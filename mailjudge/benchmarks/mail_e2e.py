"""`mailjudge bench mail`: order mails per second through the whole judge.

A judge runs on loopback with SQLite; its outbound relay is a local aiosmtpd sink. Seven
players of one game (all with SET WAIT, so the phase never processes) send order mails over
SMTP from several client threads: SIGNON with the real password (scrypt, remembered after
the first check), three orders. A mail counts when its reply has reached the sink: accepted,
stored, processed, the reply queued and sent. The same mails then go, from the same
clients, to a bare aiosmtpd server that only counts them: the ratio of the two rates says
how much of the SMTP path's speed the judge keeps.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import queue
import smtplib
import statistics
import tempfile
import threading
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from mailjudge.app import pipeline
from mailjudge.app.runner import Judge
from mailjudge.benchmarks import mail_judges
from mailjudge.benchmarks.db_distance import at_a_distance
from mailjudge.benchmarks.mail_rig import (
    JUDGE,
    PLAYERS,
    CpuAccount,
    bench_game_and_mails,
    bench_settings,
    gathering_relay_process,
    scratch_database,
)
from mailjudge.benchmarks.round_trips import round_trips
from mailjudge.config.settings import use_settings
from mailjudge.demo.sink import free_port
from mailjudge.inbound import spool
from mailjudge.outbound.outbox import render_draft
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, Outbox
from mailjudge.tools import migrations


class _Counter:
    """A bare SMTP server that only counts what it is given: the yardstick the judge's
    whole path is measured against."""

    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.count += 1
        return "250 OK"


def bare_sink_rate(prepared: list[tuple[str, bytes]], clients: int) -> float:
    """Mails per second a bare aiosmtpd server accepts from the same clients, same mails."""
    return bare_sink_run(prepared, clients)[0]


def bare_sink_run(prepared: list[tuple[str, bytes]], clients: int) -> tuple[float, float]:
    """The bare server's mails per second, and the processor time a mail of this process
    (its clients and the server; the judge's listener in it is idle meanwhile), in ms."""
    counter = _Counter()
    port = free_port()
    server = Controller(counter, hostname="127.0.0.1", port=port)
    server.start()
    try:

        def client(share: list[tuple[str, bytes]]) -> None:
            with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
                for _, raw in share:
                    smtp.sendmail("player@bench.test", [JUDGE], raw.replace(b"\n", b"\r\n"))

        start, cpu = time.time(), time.process_time()
        threads = [
            threading.Thread(target=client, args=(prepared[i::clients],)) for i in range(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu = time.process_time() - cpu
        return counter.count / max(time.time() - start, 1e-9), cpu * 1000 / max(counter.count, 1)
    finally:
        server.stop()


def run(
    mails: int,
    clients: int,
    workers: int,
    rate: float = 0.0,
    postgres: str | None = None,
    bare_first: bool = False,
    warm: bool = False,
    db_delay: float = 0.0,
) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-bench-"))
    with scratch_database(postgres, folder) as url, at_a_distance(url, db_delay) as far:
        return _run(mails, clients, workers, rate, far, bare_first, warm)


def interleaved(
    runs: int,
    mails: int,
    clients: int,
    workers: int,
    postgres: str | None = None,
    warm: bool = False,
) -> list[dict[str, float]]:
    """``runs`` pairs of a judge run and a bare server run, one after the other, so that
    the machine's drift falls on both; the bare run goes first in every second pair, so
    that neither side always has the later (or the earlier) moment of a pair."""
    results = []
    for n in range(runs):
        result = run(mails, clients, workers, postgres=postgres, bare_first=n % 2 == 1, warm=warm)
        print(
            f"  pair {n + 1}: judge {result['end_to_end_per_s']:.0f} mails/s, bare "
            f"{result['bare_sink_per_s']:.0f} mails/s, ratio {result['judge_to_sink_ratio']:.2f}",
            flush=True,
        )
        results.append(result)
    return results


def _run(
    mails: int,
    clients: int,
    workers: int,
    rate: float,
    url: str,
    bare_first: bool = False,
    warm: bool = False,
) -> dict[str, float]:
    sink_port = free_port()
    mp = multiprocessing.get_context("spawn")
    arrivals, relay_stop = mp.Queue(), mp.Event()
    relay = mp.Process(
        target=gathering_relay_process, args=(sink_port, arrivals, relay_stop), daemon=True
    )
    relay.start()
    arrived: dict[str, float] = {}
    judge = Judge(bench_settings(url, sink_port), free_ports=True, workers=workers)
    judge.start()
    try:
        prepared = bench_game_and_mails(mails + (PLAYERS if warm else 0))
        first_mails, prepared = (prepared[:PLAYERS], prepared[PLAYERS:]) if warm else ([], prepared)
        sent_at: dict[str, float] = {}
        port = judge.listener.smtp_port
        assert port is not None

        clients_cpu: list[float] = []

        def client(share: list[tuple[str, bytes]]) -> None:
            # With --rate each client keeps its share of the offered load: the mails are
            # sent at fixed moments, as players would send them, not as fast as possible.
            every = clients / rate if rate else 0.0
            began = time.thread_time()
            with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
                for n, (message_id, raw) in enumerate(share):
                    if every:
                        time.sleep(max(0.0, start + n * every - time.time()))
                    sent_at[message_id] = time.time()
                    smtp.sendmail("player@bench.test", [JUDGE], raw.replace(b"\n", b"\r\n"))
            clients_cpu.append(time.thread_time() - began)

        time.sleep(1.0)  # the relay process is up
        _warm_up(port, first_mails, arrivals)
        bare, bare_cpu = bare_sink_run(prepared, clients) if bare_first else (0.0, 0.0)
        # This process holds the clients and the judge's listener; the clients' own time is
        # taken from it below, leaving the listener's (and this loop's, small).
        cpu = CpuAccount({"listener": os.getpid(), **judge.child_pids(), "relay": relay.pid or 0})
        cpu.start()
        start = time.time()
        threads = [
            threading.Thread(target=client, args=(prepared[i::clients],)) for i in range(clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        accepted = time.time()
        deadline = time.monotonic() + 300
        while len(arrived) < mails and time.monotonic() < deadline:
            with suppress(queue.Empty):
                arrived.update(arrivals.get(timeout=0.5))
        cpu.stop()
        cpu.spent["listener"] -= sum(clients_cpu)
        cpu.spent["clients"] = sum(clients_cpu)
        done = max(arrived.values()) if arrived else time.time()
        if not bare:
            bare, bare_cpu = bare_sink_run(prepared, clients)
        timed = {"start": start, "accepted": accepted, "done": done, "bare": bare}
        judge_cpu = cpu.per_mail(mails)
        # Processor time, judge against bare server: what the machine's load changes least.
        total = sum(judge_cpu.values())
        processor = {"cpu_ms_per_mail_judge_total": total, "cpu_ms_per_mail_bare_server": bare_cpu,
                     "cpu_ratio_bare_to_judge": bare_cpu / total if total else 0.0}  # fmt: skip
        return {**_figures(mails, clients, arrived, sent_at, timed), **judge_cpu, **processor}
    finally:
        judge.stop()
        relay_stop.set()
        relay.join(timeout=10)
        db.close()
        asyncio.set_event_loop(asyncio.new_event_loop())


def _warm_up(port: int, first_mails: list[tuple[str, bytes]], arrivals: Any) -> None:
    """Each player's first mail, sent and answered before the timed run (``--warm``): a
    judge that has been running has checked its players' passwords already (scrypt, once
    a player per worker process, 0.1-0.2 s each: a second of a run of 1,500 mails)."""
    if not first_mails:
        return
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        for _, raw in first_mails:
            smtp.sendmail("player@bench.test", [JUDGE], raw.replace(b"\n", b"\r\n"))
    answered, deadline = 0, time.monotonic() + 120
    while answered < len(first_mails) and time.monotonic() < deadline:
        with suppress(queue.Empty):
            answered += len(arrivals.get(timeout=0.5))


def _figures(
    mails: int,
    clients: int,
    arrived: dict[str, float],
    sent_at: dict[str, float],
    timed: dict[str, float],
) -> dict[str, float]:
    """A judge run's figures, from when each mail was sent and its reply arrived, and
    the stored moments of each mail answered and sent."""
    start, bare = timed["start"], timed["bare"]
    latencies = [arrived[m] - sent_at[m] for m in arrived if m in sent_at]
    # Which stage set the pace: when the first and last mail was answered, and sent.
    began = datetime.fromtimestamp(start, UTC)  # the warm-up's mails left out
    handled = [r.processed_at for r in InboundMessage.select(InboundMessage.processed_at)
               if r.processed_at is not None and r.processed_at >= began]  # fmt: skip
    sent = [r.sent_at for r in Outbox.select(Outbox.sent_at).where(Outbox.sent_at >= began)]
    end_to_end = len(arrived) / (timed["done"] - start)
    return {
        "mails": mails,
        "clients": clients,
        "answered": len(arrived),
        "accepted_per_s": mails / (timed["accepted"] - start),
        "end_to_end_per_s": end_to_end,
        "bare_sink_per_s": bare,
        "judge_to_sink_ratio": end_to_end / bare if bare else 0.0,
        "median_latency_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p95_latency_ms": sorted(latencies)[int(len(latencies) * 0.95)] * 1000
        if latencies
        else 0.0,
        "answering_per_s": _rate(handled),
        "sending_per_s": _rate(sent),
        # The run's timeline, in seconds from the first mail sent: where the pace was set.
        "seconds_all_accepted": timed["accepted"] - start,
        **_span("answered", handled, began),
        **_span("sent", sent, began),
        "seconds_all_arrived": timed["done"] - start,
    }


def _span(name: str, moments: list[Any], began: datetime) -> dict[str, float]:
    """When the first and the last of some moments fell, in seconds from ``began``."""
    known = sorted(m for m in moments if m is not None)
    if not known:
        return {}
    return {f"seconds_first_{name}": (known[0] - began).total_seconds(),
            f"seconds_last_{name}": (known[-1] - began).total_seconds()}  # fmt: skip


def worker_only(
    mails: int, postgres: str | None = None, warm: bool = False, db_delay: float = 0.0
) -> dict[str, float]:
    """The worker alone, in this process: ``mails`` order mails stored first, then
    answered by the worker's own loop (spool.process_pending), with no SMTP on either
    side (the replies stay queued). What a mail costs the worker. ``postgres``: a server
    URL, where a scratch database is made (and dropped after). ``warm``: each player's
    first mail answered before the timing (their password checks left out). ``db_delay``:
    seconds each way between the worker and PostgreSQL (db_distance)."""
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-bench-"))
    with scratch_database(postgres, folder) as url, at_a_distance(url, db_delay) as far:
        return _worker_only(mails, far, warm)


def _worker_only(mails: int, url: str, warm: bool = False) -> dict[str, float]:
    settings = bench_settings(url, free_port())
    use_settings(settings)
    db.connect(settings.database.url)
    try:
        migrations.upgrade()
        first = PLAYERS if warm else 0
        for _, raw in bench_game_and_mails(mails + first):
            spool.store(raw.replace(b"\n", b"\r\n"), "player@bench.test", [JUDGE], "smtp")

        def handle(row: InboundMessage, prepared: Any = None) -> None:
            pipeline.handle(row, settings, prepared=prepared)

        if first:
            spool.process_pending(
                handle, limit=first, prepare=lambda row: pipeline.prepare(row, settings)
            )
        with round_trips() as trips:
            began, cpu = time.perf_counter(), time.process_time()
            done = spool.process_pending(
                handle, prepare=lambda row: pipeline.prepare(row, settings)
            )
            spent, cpu = time.perf_counter() - began, time.process_time() - cpu
        # What the sender would spend making the replies' bytes (their drafts rendered).
        drafts = [row.draft for row in Outbox.select(Outbox.draft) if row.draft is not None]
        rendering = time.process_time()
        for draft in drafts:
            render_draft(draft)
        rendering = time.process_time() - rendering
        # Answered: done, with its reply queued (a shunted mail is taken but not answered).
        finished = InboundMessage.select().where(InboundMessage.state == "done").count()
        answered = min(finished, Outbox.select().count()) - first
        # Processor time as well as the clock's: on a shared machine it varies far less.
        return {"mails": mails, "answered": answered, "ms_per_mail": spent * 1000 / max(done, 1),
                "cpu_ms_per_mail": cpu * 1000 / max(done, 1),
                "answered_per_s": done / max(spent, 1e-9),
                "round_trips_per_mail": trips.count / max(done, 1),  # 0 on SQLite
                "render_cpu_ms_per_reply": rendering * 1000 / max(len(drafts), 1)}  # fmt: skip
    finally:
        db.close()


def _print_interleaved(results: list[dict[str, float]]) -> int:
    """The median of each figure over the pairs, and the ratios pair by pair."""
    ratios = [r["judge_to_sink_ratio"] for r in results]
    print(f"  ratios, pair by pair: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"  median ratio, judge to bare server: {statistics.median(ratios):.2f}")
    measured = [k for k in results[0] if k.startswith(("cpu_", "seconds_"))]
    keys = ["end_to_end_per_s", "bare_sink_per_s", "accepted_per_s", "answering_per_s",
            "sending_per_s", *measured]  # fmt: skip
    for key in keys:
        values = sorted(r[key] for r in results)
        decimals = 2 if key.startswith(("cpu_", "seconds_")) else 1
        print(f"  {key}: median {statistics.median(values):.{decimals}f} "
              f"({values[0]:.{decimals}f}-{values[-1]:.{decimals}f})")  # fmt: skip
    return 0 if all(r["answered"] == r["mails"] for r in results) else 1


def _rate(moments: list[Any]) -> float:
    """Mails per second between the first and the last of some moments."""
    moments = sorted(m for m in moments if m is not None)
    if len(moments) < 2:
        return 0.0
    return float((len(moments) - 1) / max((moments[-1] - moments[0]).total_seconds(), 1e-9))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench mail", description=__doc__)
    ap.add_argument("--mails", type=int, default=2000, help="order mails to send (default 2000)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent SMTP clients (default 4)")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="answering processes, plus one sending process (0: threads of one process)",
    )
    ap.add_argument(
        "--rate", type=float, default=0.0,
        help="offered load in mails/s, spread over the clients (default: as fast as they can)",
    )  # fmt: skip
    ap.add_argument(
        "--runs", type=int, default=1,
        help="pairs of a judge run and a bare server run, alternated; each pair's ratio "
        "and their median are printed (default 1)",
    )  # fmt: skip
    ap.add_argument(
        "--postgres", metavar="URL",
        help="run on PostgreSQL: a server URL (a scratch database is made there and dropped)",
    )  # fmt: skip
    ap.add_argument(
        "--worker-only", action="store_true",
        help="time the worker alone in this process: the mails stored first, no SMTP",
    )  # fmt: skip
    ap.add_argument(
        "--warm", action="store_true",
        help="each player's first mail answered before the timing starts, as in a judge that "
        "has been running: their password checks (scrypt, once a player) left out",
    )  # fmt: skip
    ap.add_argument(
        "--db-delay-us", type=float, default=0.0, metavar="US",
        help="with --postgres: hold each exchange with the server this many microseconds "
        "each way, as across a network (default 0: loopback)",
    )  # fmt: skip
    _judges_options(ap)
    args = ap.parse_args(argv)
    db_delay = args.db_delay_us / 1e6
    if args.judges:
        return _judges_main(args)
    if args.worker_only:
        figures = worker_only(args.mails, args.postgres, args.warm, db_delay)
        where = "PostgreSQL" if args.postgres else "SQLite"
        print(f"mailjudge bench mail --worker-only: {where}, one process, the mails stored first")
        for key, value in figures.items():
            print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
        return 0 if figures["answered"] == figures["mails"] else 1
    where = "PostgreSQL" if args.postgres else "SQLite"
    offered = f", offered {args.rate:g} mails/s" if args.rate else ""
    checks = "password checks done before the timing" if args.warm else "password checks included"
    print(
        f"mailjudge bench mail: {where}, {checks}, {args.clients} SMTP "
        f"clients{offered}, {args.workers} worker process(es) + 1 sender"
    )
    if args.runs > 1:
        if args.rate:
            ap.error("--runs measures the rate as fast as the clients go: no --rate with it")
        return _print_interleaved(
            interleaved(args.runs, args.mails, args.clients, args.workers, args.postgres, args.warm)
        )
    result = run(
        args.mails, args.clients, args.workers, args.rate, args.postgres, warm=args.warm,
        db_delay=db_delay,
    )  # fmt: skip
    for key, value in result.items():
        shown = f"{value:.2f}" if "ratio" in key or "_ms_" in key else f"{value:.1f}"
        print(f"  {key}: {shown}" if isinstance(value, float) else f"  {key}: {value}")
    return 0 if result["answered"] == result["mails"] else 1


def _judges_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--judges", type=int, default=0, metavar="N",
        help="N whole judge processes (each its listener, a worker and a sender) on the one "
        "PostgreSQL of --postgres, the mails of --games games spread over their listeners; "
        "--clients is then per listener",
    )  # fmt: skip
    ap.add_argument(
        "--games", type=int, default=50, help="games the mails are for, with --judges (default 50)"
    )


def _judges_main(args: argparse.Namespace) -> int:
    if not args.postgres:
        raise SystemExit("--judges needs --postgres URL: the judges share one database")
    result = mail_judges.run(args.judges, args.mails, args.games, args.clients, args.postgres)
    print(
        f"mailjudge bench mail --judges {args.judges}: PostgreSQL, {result['games']} games, "
        f"{args.clients} SMTP clients a listener, a worker and a sender a judge"
    )
    for key, value in result.items():
        if isinstance(value, dict):
            print(f"  {key}:" + "".join(f"\n    {n} x {what}" for what, n in value.items()))
        else:
            print(f"  {key}: {value:.1f}" if isinstance(value, float) else f"  {key}: {value}")
    return 0 if result["answered"] == result["mails"] else 1

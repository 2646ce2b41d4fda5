"""`mailjudge bench democratic --by-mail`: every citizen's ballot comes as mail, in one burst.

The judge runs as `mailjudge serve` runs it (its listener, a worker process and a
sender). On SQLite it runs in this process; with --postgres it runs as --judges processes
of their own, each with its own listener (as on separate machines behind several MX
records), all on one PostgreSQL database, in a schema made for the run and dropped after
it. Every citizen's SIGNON and VOTE ORDERS arrive over SMTP in one burst from --clients
clients, spread over the judges' listeners. Timed: from the first mail sent to the last
reply at the relay; then the phase is processed and the count is checked to hold every
ballot. Peak memory: this process's (the clients, and on SQLite the listener) and the
largest of the others (a worker, a sender, a judge process).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import random
import resource
import smtplib
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from mailjudge.benchmarks.democratic_game import (
    country_of,
    memory_mb,
    process_at_deadline,
    reset_peak_memory,
    setup_game,
)
from mailjudge.benchmarks.mail_rig import relay_process, scratch_database
from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.demo.sink import free_port
from mailjudge.game.state import get_game
from mailjudge.store import db, tools
from mailjudge.store.models import Ballot, Seat
from mailjudge.tools import migrations

JUDGE_ADDRESS = "judge@bench.test"


def run_by_mail(
    citizens: int,
    seed: int,
    clients: int,
    postgres: str | None = None,
    judges: int = 1,
    schema: str | None = None,
) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-democratic-"))
    mp = multiprocessing.get_context("spawn")
    arrivals, relay_stop = mp.Queue(), mp.Event()
    sink_port = free_port()
    relay = mp.Process(target=relay_process, args=(sink_port, arrivals, relay_stop), daemon=True)
    relay.start()
    try:
        name = schema or f"bench_democratic_{uuid.uuid4().hex[:10]}"
        with scratch_database(postgres, folder, name) as url:
            settings = _judge_settings(url, sink_port)
            # The game is set up before the judge runs: writing 100,000 seats holds the
            # write lock longer than the judge's processes are willing to wait for it.
            db.connect(url)
            migrations.upgrade()
            numbers, names = setup_game(citizens, seed)
            mails = _ballot_mails(names, numbers, seed)
            db.close()
            with _judges(settings, judges, in_process=postgres is None) as ports:
                time.sleep(1.0)
                before_mb = memory_mb("VmRSS")
                reset_peak_memory()  # from here on the peak is the burst's, not the set-up's
                began = time.time()
                _send_burst(ports, mails, clients)
                stored = time.time() - began
                answered, last = _await_answers(arrivals, len(mails), began)
                peak_mb = memory_mb("VmHWM")
                db.connect(url)
                game = get_game("big")
                kind = (Ballot.game == game) & (Ballot.kind == "orders")
                counted = Ballot.select().where(kind).count()
                processed, _ = process_at_deadline(game)
                db.close()
    finally:
        relay_stop.set()
        relay.join(timeout=10)
    return {
        "citizens": citizens,
        "ballots_mailed": len(mails),
        "ballots_answered": answered,
        "ballots_counted": counted,
        "all_stored_seconds": stored,
        "all_answered_seconds": last - began,
        "mails_per_second": answered / max(last - began, 1e-9),
        "phase_seconds": processed,
        "this_process_before_burst_mb": before_mb,
        "this_process_peak_in_burst_mb": peak_mb,
        "largest_other_process_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


@contextmanager
def _judges(settings: Settings, judges: int, in_process: bool) -> Iterator[list[int]]:
    """The judge running, here or as ``judges`` processes; their listeners' ports."""
    from mailjudge.app.runner import Judge

    if in_process:
        judge = Judge(settings, free_ports=True, workers=1)
        judge.start()
        try:
            assert judge.listener.smtp_port is not None
            yield [judge.listener.smtp_port]
        finally:
            judge.stop()
        return
    mp = multiprocessing.get_context("spawn")
    ports, stop = mp.Queue(), mp.Event()
    # Not daemons: a judge starts processes of its own.
    started = [mp.Process(target=_judge_process, args=(settings, ports, stop), name=f"judge-{n}")
               for n in range(judges)]  # fmt: skip
    for process in started:
        process.start()
    try:
        yield [ports.get(timeout=120) for _ in started]
    finally:
        stop.set()
        for process in started:
            process.join(timeout=60)
            if process.is_alive():
                process.terminate()
                process.join()


def _judge_process(settings: Settings, ports: Any, stop: Any) -> None:
    """One judge, as `mailjudge serve` runs it, until ``stop`` is set."""
    from mailjudge.app.runner import Judge

    judge = Judge(settings, free_ports=True, workers=1)
    judge.start()
    ports.put(judge.listener.smtp_port)
    stop.wait()
    judge.stop()


def _judge_settings(url: str, sink_port: int) -> Settings:
    """A judge on ``url`` that relays to the sink, with no caps in the way."""
    return load_settings(None, {
        "MAILJUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
        "MAILJUDGE_DATABASE_URL": url,
        "MAILJUDGE_OUTBOUND_PORT": str(sink_port),
        "MAILJUDGE_OUTBOUND_REPLY_LIMIT": "0",
        "MAILJUDGE_SECURITY_UNPROVEN_PER_HOUR": "1000000",
        # Scripted players: no byte caps or repeated-text limit (issue 38) in the way.
        "MAILJUDGE_SECURITY_UNPROVEN_BYTES_PER_HOUR": "1000000000",
        "MAILJUDGE_SECURITY_PROVEN_BYTES_PER_HOUR": "1000000000",
        "MAILJUDGE_SECURITY_SAME_MAIL_ANSWERS": "1000000",
        "MAILJUDGE_LOGGING_LEVEL": "WARNING",
        "MAILJUDGE_WEB_PORT": "0",
    })  # fmt: skip


def _ballot_mails(names: list[str], numbers: dict[str, list[int]], seed: int) -> list[bytes]:
    """Each citizen's SIGNON and VOTE ORDERS (a random ranking of its country's sets)."""
    rng = random.Random(seed)
    countries = {s.name: country_of(s) for s in Seat.select().where(Seat.role == "citizen")}
    mails: list[bytes] = []
    for name in names:
        ranking = numbers.get(countries[name] or "", [])
        if not ranking:
            continue
        vote = " ".join(map(str, rng.sample(ranking, rng.randint(1, len(ranking)))))
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = f"{name}@bench.test", JUDGE_ADDRESS, "ballot"
        msg["Message-ID"] = make_msgid(domain="bench.test")  # the reply names it
        msg.set_content(f"SIGNON {name}@big citizen\nVOTE ORDERS {vote}\n")
        mails.append(msg.as_bytes().replace(b"\n", b"\r\n"))
    return mails


def _send_burst(ports: list[int], mails: list[bytes], clients: int) -> None:
    """Every mail over SMTP at once, from ``clients`` threads, each to one of the judges'
    listeners in turn."""

    def client(port: int, share: list[bytes]) -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=120) as smtp:
            for raw in share:
                smtp.sendmail("citizen@bench.test", [JUDGE_ADDRESS], raw)

    threads = [threading.Thread(target=client, args=(ports[i % len(ports)], mails[i::clients]))
               for i in range(clients)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _await_answers(arrivals: Any, expected: int, began: float) -> tuple[int, float]:
    """How many answers reached the relay (waiting up to three hours), and when the last did."""
    answered, last = 0, began
    deadline = time.monotonic() + 3 * 3600
    while answered < expected and time.monotonic() < deadline:
        try:
            _, last = arrivals.get(timeout=1.0)
            answered += 1
        except queue.Empty:
            pass
    return answered, last


def spooled(
    citizens: int, seed: int, mails: int, postgres: str | None = None, schema: str | None = None
) -> dict[str, Any]:
    """The worker's share alone: the first ``mails`` citizens' ballot mails stored in the
    spool, then answered in this process by the worker's loop (spool.process_pending with
    the judge's handler), on SQLite or, with ``postgres``, in a scratch schema there; its
    rate and processor time a mail (on PostgreSQL the server's session's too), and the
    rate of each tenth of the mails against the backlog it started from. On PostgreSQL the
    first WARM_UP mails are stored and answered first, untimed: the server then plans the
    worker's statements on near-empty tables, as at the start of a burst."""
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-democratic-"))
    name = schema or f"bench_democratic_{uuid.uuid4().hex[:10]}"
    with scratch_database(postgres, folder, name) as url:
        return _spooled_in(url, citizens, seed, mails)


# On PostgreSQL, ballot mails answered before the others are stored (not timed).
WARM_UP = 32


def _spooled_in(url: str, citizens: int, seed: int, mails: int) -> dict[str, Any]:
    from mailjudge.app import pipeline
    from mailjudge.config.settings import use_settings
    from mailjudge.inbound import spool

    settings = _judge_settings(url, free_port())
    use_settings(settings)
    db.connect(url)
    migrations.upgrade()
    numbers, names = setup_game(citizens, seed)
    ballots = _ballot_mails(names, numbers, seed)[:mails]

    def handle(row: Any, prepared: Any = None) -> None:
        pipeline.handle(row, settings, prepared=prepared)

    def prepare(row: Any) -> Any:
        return pipeline.prepare(row, settings)

    if db.is_postgres():
        # As in a burst, the worker's statements are first planned on small tables.
        for raw in ballots[:WARM_UP]:
            spool.store(raw, "citizen@bench.test", [JUDGE_ADDRESS], "smtp")
        spool.process_pending(handle, prepare=prepare)
        ballots, mails = ballots[WARM_UP:], mails - WARM_UP
    for raw in ballots:
        spool.store(raw, "citizen@bench.test", [JUDGE_ADDRESS], "smtp")
    server = _server_cpu_reader()
    began, cpu, server_cpu = time.perf_counter(), time.process_time(), server()
    done, tenths = 0, []
    step = max(mails // 10, 1)
    while done < mails:
        at = time.perf_counter()
        taken = spool.process_pending(handle, limit=step, prepare=prepare)
        if not taken:
            break
        tenths.append(f"{mails - done}:{taken / (time.perf_counter() - at):.0f}")
        done += taken
    spent, cpu = time.perf_counter() - began, time.process_time() - cpu
    server_cpu = server() - server_cpu
    db.close()
    found: dict[str, Any] = {
        "citizens": citizens,
        "mails_answered": done,
        "mails_per_second": done / spent,
        "worker_cpu_ms_a_mail": 1000 * cpu / max(done, 1),
        "server_session_cpu_ms_a_mail": 1000 * server_cpu / max(done, 1),
        "backlog:mails_per_second": " ".join(tenths),
    }
    if not url.startswith("postgres"):
        del found["server_session_cpu_ms_a_mail"]  # SQLite: in the worker's own process
    return found


def _server_cpu_reader() -> Any:
    """A reader of the processor seconds of this connection's PostgreSQL session (its
    process's, from /proc: the server on this machine); 0 on SQLite or when unreadable."""
    if not db.is_postgres():
        return lambda: 0.0
    pid = tools.session_pid(db.database_proxy)
    ticks = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / ticks

    return read

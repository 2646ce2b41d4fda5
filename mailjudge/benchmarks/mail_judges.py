"""`mailjudge bench mail --postgres URL --judges N`: N whole judges on one PostgreSQL.

Each judge is a process of its own as `serve` runs it (its SMTP listener, one worker
process, one sender process), as on separate machines behind several MX records; all
share one PostgreSQL database and one relay. The mails are order mails of many games
(seven players each, all waiting, so no phase processes), spread evenly over the
listeners. A mail counts when its reply has reached the relay.

While the mails are answered, the database's sessions are sampled: every session waiting
for a lock, and what it runs. A worker holds one game at a time (inbound.spool
claim_game_batch), so none should wait for another's rows.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import smtplib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from mailjudge.app.runner import Judge
from mailjudge.benchmarks.mail_rig import JUDGE, bench_settings, relay_process, scratch_postgres
from mailjudge.config.settings import Settings
from mailjudge.demo.sink import free_port
from mailjudge.game import state
from mailjudge.game.state import current_position
from mailjudge.secrecy import passwords
from mailjudge.service import games, seats
from mailjudge.store import db, tools
from mailjudge.store.models import InboundMessage
from mailjudge.tools import migrations

# Seats' passwords are hashed at this scrypt cost for the bench: every worker process checks
# each seat's password once (then remembers it), and 350 checks at the judge's own cost
# would take a worker half a minute. The checks are still made, each as the judge makes it.
BENCH_SCRYPT_N = 2**10


def make_games(count: int) -> dict[str, str]:
    """``count`` games of seven waiting players in the open database; each player's
    address and order mail body."""
    cost, passwords.SCRYPT_N = passwords.SCRYPT_N, BENCH_SCRYPT_N
    try:
        bodies: dict[str, str] = {}
        for g in range(count):
            name = f"bench{g}"
            game = games.create_game(name, "gm@bench.test", "gm-pw", rules="POWER_CHOICE")
            powers = list(state.game_map(game).power_names)
            for power in powers:
                seats.join(game, _player(power, name), f"pw-{power}", power=power)
                seats.set_wait(seats.seat_for_power(game, power), True)
            pos = current_position(state.get_game(name))
            for power in powers:
                bodies[_player(power, name)] = (
                    f"SIGNON {power.lower()}@{name} pw-{power}\n"
                    + "\n".join(f"{u} H" for u in pos.units_of(power))
                )  # fmt: skip
        return bodies
    finally:
        passwords.SCRYPT_N = cost


def _player(power: str, game: str) -> str:
    return f"{power.lower()}.{game}@bench.test"


def order_mails(bodies: dict[str, str], count: int) -> list[tuple[str, str, bytes]]:
    """``count`` mails, (Message-ID, sender, mail), the games' players taken in turn so
    that consecutive mails are of different games."""
    by_game: dict[str, list[str]] = {}
    for sender in bodies:  # game by game, as make_games made them
        by_game.setdefault(sender.split(".", 1)[1], []).append(sender)
    players = list(by_game.values())
    mails = []
    for n in range(count):
        seats_of = players[n % len(players)]
        sender = seats_of[(n // len(players)) % len(seats_of)]
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = JUDGE
        msg["Subject"] = "orders"
        msg["Message-ID"] = make_msgid(domain="bench.test")
        msg.set_content(bodies[sender])
        mails.append((str(msg["Message-ID"]), sender, msg.as_bytes().replace(b"\n", b"\r\n")))
    return mails


def _judge_process(settings: Settings, ports: Any, stop: Any) -> None:
    """One whole judge (listener, a worker, a sender) until ``stop`` is set."""
    judge = Judge(settings, free_ports=True, workers=1)
    judge.start()
    ports.put(judge.listener.smtp_port)
    try:
        stop.wait()
    finally:
        judge.stop()


class LockSampler:
    """Samples, every ``every`` seconds, the sessions of the database waiting for a lock:
    what they wait for (PostgreSQL's wait event) and the start of their statement."""

    def __init__(self, url: str, every: float = 0.05) -> None:
        self.url = url
        self.every = every
        self.samples = 0
        self.waits: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        import psycopg

        connection = psycopg.connect(self.url)
        connection.autocommit = True
        try:
            with connection.cursor() as cursor:
                while not self._stop.is_set():
                    waits = tools.lock_waits(cursor)
                    self.samples += 1
                    for event, query in waits:
                        self.waits[f"{event}: {query}"] += 1
                    time.sleep(self.every)
        finally:
            connection.close()


class CpuMeter:
    """Processor time over the timed run: of this process and every process under it (the
    judges, their workers and senders, the relay), of the database's sessions (read from
    /proc: the server runs on this machine), and the share of the machine's cores left
    idle. A rate that does not grow with more judges while nothing is idle is the
    machine's limit, not the judges'."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._start: tuple[float, float, float, float] | None = None

    def _now(self) -> tuple[float, float, float, float]:
        tick = float(os.sysconf("SC_CLK_TCK"))
        judges = sum(_cpu_of(pid) for pid in _descendants(os.getpid())) / tick
        server = sum(_cpu_of(pid) for pid in _backends(self.url)) / tick
        fields = [float(f) for f in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        return judges, server, fields[3] + fields[4], sum(fields)  # idle and iowait, all

    def start(self) -> None:
        self._start = self._now()

    def stop(self, mails: int) -> dict[str, float]:
        assert self._start is not None
        end = self._now()
        judges, server, idle, total = (b - a for a, b in zip(self._start, end, strict=True))
        return {
            "cpu_ms_per_mail_processes": judges * 1000 / max(mails, 1),
            "cpu_ms_per_mail_database": server * 1000 / max(mails, 1),
            "machine_idle_share": idle / max(total, 1.0),
        }


def _cpu_of(pid: int) -> int:
    """User and system ticks of a process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _descendants(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid] + [d for child in found for d in _descendants(int(child))]


def _backends(url: str) -> list[int]:
    import psycopg

    connection = psycopg.connect(url)
    try:
        with connection.cursor() as cursor:
            return tools.other_sessions(cursor)
    finally:
        connection.close()


@contextmanager
def judges_running(url: str, relay_port: int, count: int) -> Iterator[list[int]]:
    """``count`` judge processes on ``url``; their SMTP ports."""
    mp = multiprocessing.get_context("spawn")
    ports, stop = mp.Queue(), mp.Event()
    processes = [
        mp.Process(
            target=_judge_process,
            args=(bench_settings(url, relay_port), ports, stop),
            name=f"bench-judge-{n}",
        )
        for n in range(count)
    ]
    for process in processes:
        process.start()
    try:
        yield [int(ports.get(timeout=120)) for _ in processes]
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()


def run(judges: int, mails: int, game_count: int, clients: int, server_url: str) -> dict[str, Any]:
    """The bench: ``mails`` order mails of ``game_count`` games to ``judges`` judges, with
    ``clients`` SMTP clients for each judge's listener."""
    with scratch_postgres(server_url, "mailjudge_judges") as url:
        db.connect(url)
        try:
            migrations.upgrade()
            prepared = order_mails(make_games(game_count), mails)
        finally:
            db.close()
        return _run(judges, prepared, clients, url)


def _run(
    judges: int, prepared: list[tuple[str, str, bytes]], clients: int, url: str
) -> dict[str, Any]:
    mp = multiprocessing.get_context("spawn")
    arrivals, relay_stop = mp.Queue(), mp.Event()
    relay_port = free_port()
    relay = mp.Process(target=relay_process, args=(relay_port, arrivals, relay_stop), daemon=True)
    relay.start()
    sampler, meter = LockSampler(url), CpuMeter(url)
    try:
        with judges_running(url, relay_port, judges) as ports:
            time.sleep(1.0)  # the relay and every judge's children are up
            sampler.start()
            meter.start()
            start = time.time()
            threads = []
            for j, port in enumerate(ports):
                share = prepared[j::judges]
                for c in range(clients):
                    threads.append(threading.Thread(target=_client, args=(port, share[c::clients])))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            accepted = time.time()
            arrived = _arrivals(arrivals, len(prepared))
            cpu = meter.stop(len(prepared))
            sampler.stop()
    finally:
        relay_stop.set()
        relay.join(timeout=10)
    done = max(arrived.values()) if arrived else time.time()
    db.connect(url)
    try:
        again = InboundMessage.select().where(InboundMessage.attempts > 1).count()
        shunted = InboundMessage.select().where(InboundMessage.state == "shunted").count()
    finally:
        db.close()
    return {
        "judges": judges,
        "games": len({sender.split(".", 1)[1] for _, sender, _ in prepared}),
        "mails": len(prepared),
        "answered": len(arrived),
        "accepted_per_s": len(prepared) / (accepted - start),
        "end_to_end_per_s": len(arrived) / max(done - start, 1e-9),
        **cpu,
        "claimed_more_than_once": again,
        "shunted": shunted,
        "lock_samples": sampler.samples,
        "samples_with_a_lock_wait": sum(sampler.waits.values()),
        "lock_waits": dict(sampler.waits.most_common(5)),
    }


def _client(port: int, share: list[tuple[str, str, bytes]]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        for _, sender, raw in share:
            smtp.sendmail(sender, [JUDGE], raw)


def _arrivals(arrivals: Any, expected: int, patience: float = 300.0) -> dict[str, float]:
    arrived: dict[str, float] = {}
    deadline = time.monotonic() + patience
    while len(arrived) < expected and time.monotonic() < deadline:
        try:
            message_id, when = arrivals.get(timeout=0.5)
            arrived[message_id] = when
        except queue.Empty:
            pass
    return arrived

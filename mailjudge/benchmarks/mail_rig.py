"""What the mail benches share: the loopback relay that notes when each reply arrives, a
scratch database for a run (SQLite, or a database or schema of its own on PostgreSQL), a
bench judge's settings, the bench game and its players' order mails, and the processor
time each process spends."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from aiosmtpd.controller import Controller

from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.game import state
from mailjudge.game.state import current_position
from mailjudge.service import games, seats
from mailjudge.store import tools

JUDGE = "judge@bench.test"
PLAYERS = 7  # the bench game's players (the standard map's powers), one mail each to warm up


class _Sink:
    """The relay: notes which reply arrived when (in a process of its own, as a real relay
    would be, so that it does not share a core's time with the clients)."""

    def __init__(self, arrivals: Any) -> None:
        self.arrivals = arrivals

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content = envelope.original_content or b""
        head = content.split(b"\r\n\r\n", 1)[0]
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"in-reply-to:"):
                self.arrivals.put((line.split(b":", 1)[1].strip().decode(), time.time()))
        return "250 OK"


def cpu_seconds(pid: int) -> float:
    """Processor time (user and system) a process has used so far; 0.0 where /proc is not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuAccount:
    """Processor time used by each of some processes between ``start`` and ``stop``, in
    ms a mail: where a run's time went, process by process."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self.before: dict[str, float] = {}
        self.spent: dict[str, float] = {}

    def start(self) -> None:
        self.before = {name: cpu_seconds(pid) for name, pid in self.pids.items()}

    def stop(self) -> None:
        self.spent = {name: cpu_seconds(pid) - self.before[name] for name, pid in self.pids.items()}

    def per_mail(self, mails: int, prefix: str = "cpu_ms_per_mail_") -> dict[str, float]:
        return {f"{prefix}{name}": spent * 1000 / max(mails, 1)
                for name, spent in self.spent.items()}  # fmt: skip


def relay_process(port: int, arrivals: Any, stop: Any) -> None:
    relay = Controller(_Sink(arrivals), hostname="127.0.0.1", port=port)
    relay.start()
    stop.wait()
    relay.stop()


class _Gathered:
    """What the sink notes, kept in the relay's process and handed on in lists: a queue
    put for every reply cost the relay and the bench's process (the judge's listener's)
    about a tenth of a millisecond each, which is the bench's cost, not the judge's."""

    def __init__(self) -> None:
        self.noted: list[tuple[str, float]] = []

    def put(self, arrival: tuple[str, float]) -> None:
        self.noted.append(arrival)  # from the relay's event loop thread only


def gathering_relay_process(port: int, arrivals: Any, stop: Any) -> None:
    """The relay of `bench mail`: the replies' arrivals go to ``arrivals`` as lists, every
    tenth of a second."""
    gathered = _Gathered()
    relay = Controller(_Sink(gathered), hostname="127.0.0.1", port=port)
    relay.start()
    while True:
        stopping = stop.wait(0.1)
        noted, gathered.noted = gathered.noted, []
        if noted:
            arrivals.put(noted)
        if stopping:
            break
    relay.stop()


@contextmanager
def scratch_database(
    postgres: str | None, folder: Path, schema: str | None = None
) -> Iterator[str]:
    """A new empty database for one run: SQLite in ``folder``, or, given a PostgreSQL
    server's URL, a database of its own there (or, given ``schema``, a schema of that
    name in the URL's database), dropped afterwards."""
    if postgres is None:
        yield f"sqlite:///{folder / 'judge.db'}"
        return
    with scratch_postgres(postgres) if schema is None else scratch_schema(postgres, schema) as url:
        yield url


@contextmanager
def scratch_schema(database_url: str, name: str) -> Iterator[str]:
    """A new schema ``name`` in the PostgreSQL database ``database_url`` (its URL, whose
    sessions work in that schema), dropped afterwards."""
    joiner = "&" if "?" in database_url else "?"
    with _made_and_dropped(database_url, name, tools.create_schema, tools.drop_schema):
        yield f"{database_url}{joiner}options={quote(f'-csearch_path={name}')}"


@contextmanager
def scratch_postgres(server_url: str, prefix: str = "mailjudge_scratch") -> Iterator[str]:
    """A PostgreSQL database of its own on ``server_url``'s server (its URL, with the
    server's options kept), dropped afterwards."""
    import uuid

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with _made_and_dropped(server_url, name, tools.create_database, tools.drop_database):
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


@contextmanager
def _made_and_dropped(
    admin_url: str, name: str, make: Callable[[Any, str], None], drop: Callable[[Any, str], None]
) -> Iterator[None]:
    """Make ``name`` on a connection of its own to ``admin_url``, and drop it afterwards:
    a run that failed leaves nothing behind either."""
    import psycopg

    admin = psycopg.connect(admin_url)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            make(cursor, name)
        try:
            yield
        finally:
            with admin.cursor() as cursor:
                drop(cursor, name)
    finally:
        admin.close()


def bench_settings(url: str, sink_port: int) -> Settings:
    return load_settings(
        None,
        {
            "MAILJUDGE_JUDGE_ADDRESS": JUDGE,
            "MAILJUDGE_DATABASE_URL": url,
            "MAILJUDGE_OUTBOUND_PORT": str(sink_port),
            "MAILJUDGE_OUTBOUND_REPLY_LIMIT": "0",
            "MAILJUDGE_SECURITY_UNPROVEN_PER_HOUR": "100000",
            # Scripted players: no byte caps or repeated-text limit (issue 38) in the way.
            "MAILJUDGE_SECURITY_UNPROVEN_BYTES_PER_HOUR": "1000000000",
            "MAILJUDGE_SECURITY_PROVEN_BYTES_PER_HOUR": "1000000000",
            "MAILJUDGE_SECURITY_SAME_MAIL_ANSWERS": "1000000",
            # A line a mail would bury the figures (and cost time the figures count).
            "MAILJUDGE_LOGGING_LEVEL": "WARNING",
            "MAILJUDGE_WEB_PORT": "0",
        },
    )


def bench_game_and_mails(mails: int) -> list[tuple[str, bytes]]:
    """The bench game (seven players, all waiting) in the open database, and ``mails``
    order mails from its players: (Message-ID, the mail)."""
    game = games.create_game("bench", "gm@bench.test", "gm-pw", rules="POWER_CHOICE")
    powers = list(state.game_map(game).power_names)
    for power in powers:
        seats.join(game, f"{power.lower()}@bench.test", f"pw-{power}", power=power)
    for power in powers:
        seats.set_wait(seats.seat_for_power(game, power), True)
    pos = current_position(state.get_game("bench"))
    bodies = {
        p: f"SIGNON {p.lower()}@bench pw-{p}\n" + "\n".join(f"{u} H" for u in pos.units_of(p))
        for p in powers
    }
    prepared: list[tuple[str, bytes]] = []
    for n in range(mails):
        power = powers[n % len(powers)]
        msg = EmailMessage()
        msg["From"] = f"{power.lower()}@bench.test"
        msg["To"] = JUDGE
        msg["Subject"] = "orders"
        msg["Message-ID"] = make_msgid(domain="bench.test")
        msg.set_content(bodies[power])
        prepared.append((str(msg["Message-ID"]), msg.as_bytes()))
    return prepared

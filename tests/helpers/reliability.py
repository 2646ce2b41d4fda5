"""The parts of the reliability tests and their long forms (tests/soak/): a judge run as a
real `mailjudge serve` process that can be killed, a client that streams order mails over
SMTP and notes which ones got 250, and the count of answers at the outbound sink.

"Answered once" is counted at the sink: the replies whose In-Reply-To names a mail, by
their Message-ID. A reply is one mail; a sender killed between the relay's 250 and its own
record hands the same mail (same Message-ID) over again, which `Figures.resent` counts
apart from two different answers to one mail (`duplicates`).
"""

from __future__ import annotations

import itertools
import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from helpers.mailstack import Dovecot, Received, SmtpSink, free_port
from mailjudge.game import state
from mailjudge.game.state import current_position
from mailjudge.secrecy import passwords
from mailjudge.service import games, seats
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, Outbox
from mailjudge.tools import migrations

JUDGE = "judge@example.test"
GAME = "soak"
REPO = Path(__file__).resolve().parents[2]


def _toml(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class JudgeProcess:
    """`python -m mailjudge.tools.cli serve --config FILE` in a session of its own, so that
    `kill()` takes down the judge and every process it started, as a power cut would."""

    def __init__(self, folder: Path, settings: dict[str, dict[str, str | int | bool]],
                 workers: int = 1, name: str = "judge") -> None:  # fmt: skip
        self.folder = folder
        self.workers = workers
        self.config = folder / f"{name}.toml"
        self.log = folder / f"{name}.log"
        self.config.write_text(
            "".join(
                f"[{section}]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in keys.items()) + "\n"
                for section, keys in settings.items()
            )
        )
        smtp = settings.get("smtp", {})
        self.smtp_port = int(smtp.get("port", 0))
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout: float = 30.0) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]))
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mailjudge.tools.cli", "serve", "--config", str(self.config),
                 "--workers", str(self.workers)],
                stdout=log, stderr=log, env=env, start_new_session=True,
            )  # fmt: skip
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the judge exited: {self.log.read_text()[-2000:]}")
            if self._ready():
                return
            time.sleep(0.05)
        raise RuntimeError(f"the judge did not start: {self.log.read_text()[-2000:]}")

    def _ready(self) -> bool:
        if not self.smtp_port:  # no listener to ask: the log says when it serves
            return self.log.read_text(errors="replace").count("mailjudge serving") >= self.starts
        try:
            with socket.create_connection(("127.0.0.1", self.smtp_port), timeout=1) as conn:
                return conn.recv(64).startswith(b"220")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL to the judge and everything it started."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        if process is not None:
            process.wait(10)
        with self.log.open("a") as log:
            log.write("\n# killed\n")

    def stop(self) -> None:
        """Ctrl-C, as an operator would; SIGKILL when it lingers."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def rss_kib(self) -> int:
        """Resident memory of the judge and its children, in KiB."""
        if self.process is None:
            return 0
        total = 0
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    kids = [int(p) for p in found]
    return kids + [g for k in kids for g in _children(k)]


def judge_config(database_url: str, sink_port: int, smtp_port: int = 0,
                 **sections: dict[str, str | int | bool]) -> dict[str, dict[str, str | int | bool]]:  # fmt: skip
    """Settings for a judge under test: quick retries and claim timeouts, so that what a
    killed process left behind is taken up again within seconds."""
    config: dict[str, dict[str, str | int | bool]] = {
        "judge": {"address": JUDGE},
        "database": {"url": database_url},
        "smtp": {"host": "127.0.0.1", "port": smtp_port},
        "web": {"port": 0},  # several judges run at once here; the pages are tested elsewhere
        "inbound": {"claim_timeout_seconds": 3},
        "security": {"unproven_per_hour": 100000},  # the load comes from unsigned addresses
        "outbound": {
            "host": "127.0.0.1", "port": sink_port, "reply_limit": 0,
            "retry_first_seconds": 1, "retry_max_seconds": 2, "lease_seconds": 3,
        },
    }  # fmt: skip
    for name, keys in sections.items():
        config.setdefault(name, {}).update(keys)
    return config


# -- the game the mails are about ----------------------------------------------------------


def set_up_game(database_url: str) -> dict[str, str]:
    """A game whose seven players all WAIT (the phase never processes), so that every
    order mail is real work with one answer; returns each player's mail body."""
    cost, passwords.SCRYPT_N = passwords.SCRYPT_N, 2**10  # the hash keeps its cost
    db.connect(database_url)
    try:
        migrations.upgrade()
        game = games.create_game(GAME, "gm@example.test", "gm-pw", rules="POWER_CHOICE")
        powers = list(state.game_map(game).power_names)
        for power in powers:
            seats.join(game, player(power), f"pw-{power.lower()}", power=power)
        for power in powers:
            seats.set_wait(seats.seat_for_power(game, power), True)
        pos = current_position(state.get_game(GAME))
        return {
            player(p): f"SIGNON {p.lower()}@{GAME} pw-{p.lower()}\n"
            + "\n".join(f"{u} H" for u in pos.units_of(p))
            for p in powers
        }
    finally:
        passwords.SCRYPT_N = cost
        db.close()


def player(power: str) -> str:
    return f"{power.lower()}@players.test"


def order_mail(sender: str, body: str, n: int) -> tuple[str, bytes]:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = JUDGE
    msg["Subject"] = f"orders {n}"
    msg["Message-ID"] = make_msgid(f"m{n}", domain="players.test")
    msg.set_content(body)
    return str(msg["Message-ID"]), msg.as_bytes().replace(b"\n", b"\r\n")


# -- the client ---------------------------------------------------------------------------


class Stream:
    """Mails to the judge over SMTP from a thread, as an MTA sends: a mail not taken (the
    judge was down, or died mid-transaction) is tried again until it gets 250."""

    def __init__(self, port: int, bodies: dict[str, str], rate: float) -> None:
        self.port = port
        self.bodies = list(bodies.items())
        self.rate = rate
        self.accepted: list[str] = []
        self.refused = 0  # attempts that did not end in 250
        self.stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        self._thread.join(120)

    def _run(self) -> None:
        n = 0
        client: smtplib.SMTP | None = None
        started = time.monotonic()
        while not self.stop_event.is_set():
            sender, body = self.bodies[n % len(self.bodies)]
            message_id, raw = order_mail(sender, body, n)
            while True:
                try:
                    client = client or smtplib.SMTP("127.0.0.1", self.port, timeout=10)
                    client.sendmail(sender, [JUDGE], raw)
                    break
                except (smtplib.SMTPException, OSError):
                    self.refused += 1
                    client = _drop(client)
                    time.sleep(0.05)
            self.accepted.append(message_id)
            n += 1
            time.sleep(max(0.0, started + n / self.rate - time.monotonic()))
        _drop(client)


class MxStream:
    """Order mails at ``rate`` a second from a thread, to the first of ``ports`` that takes
    them, as an MTA goes to the next MX: a port that refuses or drops the connection (its
    judge killed, or answering 4xx while the database is away) is left for the next one,
    and the mail tried again until it gets 250. ``accepted`` holds each mail's Message-ID
    with the moment (time.monotonic) of its 250."""

    def __init__(self, ports: list[int], mails: list[tuple[str, str]], rate: float,
                 first: int = 0) -> None:  # fmt: skip
        self.ports = ports
        self.mails = mails
        self.rate = rate
        self.first = first  # the number of the first mail (Message-IDs differ by stream)
        self.accepted: list[tuple[str, float]] = []
        self.refused = 0
        self.refusals: Counter[str] = Counter()  # by SMTP code, or how the connection failed
        self.stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def message_ids(self) -> list[str]:
        return [message_id for message_id, _ in self.accepted]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        self._thread.join(120)

    def _run(self) -> None:
        ports, client = itertools.cycle(self.ports), None
        port, started = next(ports), time.monotonic()
        for n, (sender, body) in enumerate(itertools.cycle(self.mails)):
            if self.stop_event.is_set():
                break
            message_id, raw = order_mail(sender, body, self.first + n)
            while True:
                try:
                    client = client or smtplib.SMTP("127.0.0.1", port, timeout=10)
                    client.sendmail(sender, [JUDGE], raw)
                    break
                except (smtplib.SMTPException, OSError) as err:
                    self.refused += 1
                    self.refusals[_refusal(err)] += 1
                    client, port = _drop(client), next(ports)  # the next MX
                    time.sleep(0.05)
            self.accepted.append((message_id, time.monotonic()))
            time.sleep(max(0.0, started + (n + 1) / self.rate - time.monotonic()))
        _drop(client)


def _refusal(err: Exception) -> str:
    """An SMTP refusal's code ("451"), or how the connection failed."""
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        return ",".join(sorted({str(code) for code, _ in err.recipients.values()}))
    if isinstance(err, smtplib.SMTPResponseException):
        return str(err.smtp_code)
    return "no connection" if isinstance(err, OSError | smtplib.SMTPServerDisconnected) else "other"


def _drop(client: smtplib.SMTP | None) -> None:
    if client is not None:
        with suppress(OSError):
            client.close()


def send_all(port: int, mails: list[tuple[str, bytes]], sender: str = "load@players.test") -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        for _, raw in mails:
            client.sendmail(sender, [JUDGE], raw)


# -- counting -----------------------------------------------------------------------------


def _header(raw: bytes, name: bytes) -> str | None:
    head = raw.split(b"\r\n\r\n", 1)[0].replace(b"\r\n ", b" ")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(name.lower() + b":"):
            return line.split(b":", 1)[1].strip().decode("ascii", "replace")
    return None


@dataclass
class Figures:
    accepted: int = 0
    answered: int = 0
    lost: int = 0  # accepted and never answered
    duplicates: int = 0  # mails with two or more different answers
    resent: int = 0  # one answer handed to the relay more than once
    shunted: int = 0
    processed_twice: int = 0  # mails with more than one reply queued
    extra: dict[str, object] = field(default_factory=dict)

    def lines(self) -> list[str]:
        head = [f"{k}: {v}" for k, v in vars(self).items() if k != "extra"]
        return head + [f"{k}: {v}" for k, v in self.extra.items()]

    def ok(self) -> bool:
        return not (self.lost or self.duplicates or self.shunted or self.processed_twice)


def answers(mails: list[Received]) -> dict[str, Counter[str]]:
    """In-Reply-To -> how often each reply (by Message-ID) reached the sink."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for mail in list(mails):
        about = _header(mail.raw, b"In-Reply-To")
        if about:
            found[about][_header(mail.raw, b"Message-ID") or ""] += 1
    return found


def wait_for_answers(sink: SmtpSink, accepted: list[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = answers(sink.mails)
        if all(m in got for m in accepted):
            return
        time.sleep(0.25)


def count(sink: SmtpSink, accepted: list[str], database_url: str, settle: float = 2.0) -> Figures:
    """The figures once the judge has had `settle` seconds more to send anything twice."""
    time.sleep(settle)
    got = answers(sink.mails)
    figures = Figures(accepted=len(accepted))
    for message_id in accepted:
        replies = got.get(message_id, Counter())
        figures.answered += bool(replies)
        figures.lost += not replies
        figures.duplicates += len(replies) > 1
        figures.resent += sum(replies.values()) - len(replies)
    db.connect(database_url)
    try:
        figures.shunted = InboundMessage.select().where(InboundMessage.state == "shunted").count()
        per_mail = Counter(
            r.inbound_id for r in Outbox.select(Outbox.inbound).where(Outbox.inbound.is_null(False))
        )
        figures.processed_twice = sum(1 for n in per_mail.values() if n > 1)
    finally:
        db.close()
    return figures


@contextmanager
def sink_on(port: int | None = None) -> Iterator[SmtpSink]:
    sink = SmtpSink()
    if port is not None:
        sink.port = port
    sink.start()
    try:
        yield sink
    finally:
        sink.stop()


# -- answers and when they came ------------------------------------------------------------


class TimedSink(SmtpSink):
    """The relay: keeps each mail with the moment (time.monotonic) it arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []

    def keep(self, mail: Received) -> int:
        with self.changed:
            self.arrived.append(time.monotonic())
            return super().keep(mail)


@contextmanager
def timed_sink() -> Iterator[TimedSink]:
    sink = TimedSink()
    sink.start()
    try:
        yield sink
    finally:
        sink.stop()


def answer_times(sink: TimedSink) -> list[tuple[float, str]]:
    """(arrival, In-Reply-To) of every answer at the sink, in order of arrival."""
    with sink.changed:
        pairs = list(zip(sink.arrived, sink.mails, strict=True))
    found = []
    for at, mail in pairs:
        about = _header(mail.raw, b"In-Reply-To")
        if about:
            found.append((at, about))
    return found


def next_answer(sink: TimedSink, accepted: dict[str, float], after: float) -> float | None:
    """Seconds from ``after`` to the first answer to a mail accepted after it; None if no
    such answer has come yet."""
    for at, about in answer_times(sink):
        if at > after and accepted.get(about, 0.0) > after:
            return at - after
    return None


def answer_waits(sink: TimedSink, accepted: dict[str, float]) -> list[float]:
    """For each mail answered, the seconds from its 250 to its first answer."""
    first: dict[str, float] = {}
    for at, about in answer_times(sink):
        first.setdefault(about, at)
    return [first[m] - at for m, at in accepted.items() if m in first]


# -- the scenarios (short in tests/, long in tests/soak/) ------------------------------------


def run_crash(
    folder: Path, kills: int, rate: float, seed: int, uptime: tuple[float, float] = (0.3, 2.5)
) -> Figures:
    """Mail streams in while the judge is SIGKILLed `kills` times at random moments, and
    started again each time."""
    import random

    rng = random.Random(seed)
    url = f"sqlite:///{folder / 'judge.db'}"
    bodies = set_up_game(url)
    with sink_on() as sink:
        judge = JudgeProcess(folder, judge_config(url, sink.port, free_port()))
        judge.start()
        stream = Stream(judge.smtp_port, bodies, rate)
        stream.start()
        try:
            for _ in range(kills):
                time.sleep(rng.uniform(*uptime))
                judge.kill()
                time.sleep(rng.uniform(0.0, 0.3))
                judge.start()
            time.sleep(1.0)
            stream.stop()
            wait_for_answers(sink, stream.accepted, timeout=60)
            figures = count(sink, stream.accepted, url)
        finally:
            stream.stop()
            judge.stop()
    figures.extra.update(kills=kills, refused_attempts=stream.refused)
    return figures


def run_outage(folder: Path, mails: int, outages: int, down: float, workers: int = 1) -> Figures:
    """The relay goes down `outages` times for `down` seconds while mail streams in; it
    comes back on the same port each time."""
    url = f"sqlite:///{folder / 'judge.db'}"
    bodies = set_up_game(url)
    with sink_on() as sink:
        judge = JudgeProcess(folder, judge_config(url, sink.port, free_port()), workers=workers)
        judge.start()
        rate = mails / max(1.0, outages * down * 2)
        stream = Stream(judge.smtp_port, bodies, rate)
        stream.start()
        try:
            for _ in range(outages):
                sink.stop()
                time.sleep(down)
                sink.start()
                time.sleep(down)
            while len(stream.accepted) < mails:
                time.sleep(0.1)
            stream.stop()
            wait_for_answers(sink, stream.accepted, timeout=60)
            figures = count(sink, stream.accepted, url)
            db.connect(url)
            try:
                retried = Outbox.select().where(Outbox.attempts > 1).count()
                failed = Outbox.select().where(Outbox.state == "failed").count()
            finally:
                db.close()
        finally:
            stream.stop()
            judge.stop()
    figures.extra.update(outages=outages, down_seconds=down, mails_retried=retried, failed=failed)
    return figures


class Appender:
    """Mails into an IMAP folder from a thread (APPEND, as an MTA's delivery would); an
    APPEND that fails because the server is away is tried again until it is taken."""

    def __init__(
        self, server: Dovecot, folder: str, bodies: dict[str, str], mails: int, rate: float
    ) -> None:
        self.server = server
        self.folder = folder
        self.bodies = list(bodies.items())
        self.mails = mails
        self.rate = rate
        self.accepted: list[str] = []
        self.refused = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join(300)

    def _run(self) -> None:
        client = None
        started = time.monotonic()
        for n in range(self.mails):
            time.sleep(max(0.0, started + n / self.rate - time.monotonic()))
            sender, body = self.bodies[n % len(self.bodies)]
            message_id, raw = order_mail(sender, body, n)
            while True:
                try:
                    client = client or self.server.connect()
                    client.append(self.folder, raw)
                    break
                except Exception:  # the server went away: connect again and retry
                    self.refused += 1
                    client = None
                    time.sleep(0.1)
            self.accepted.append(message_id)
        if client is not None:
            with suppress(Exception):
                client.logout()


def restart_dovecot(server: Dovecot, hard: bool) -> None:
    """Stop Dovecot by its process id and start it again. A plain stop leaves the imap
    processes of open sessions serving them (their clients notice nothing), so every
    other restart is `hard`: the whole process group is killed and connections break."""
    old = server.process
    if hard:
        server.crash()
        return
    server.restart()
    if old is not None:  # what still serves the old sessions goes once the test is over
        _LEFTOVER_GROUPS.append(old.pid)


_LEFTOVER_GROUPS: list[int] = []


def _end_leftovers() -> None:
    while _LEFTOVER_GROUPS:
        with suppress(ProcessLookupError):
            os.killpg(_LEFTOVER_GROUPS.pop(), signal.SIGKILL)


def run_imap(folder: Path, server: Dovecot, mails: int, restarts: int,
             database_url: str | None = None, judges: int = 1, rate: float = 40.0) -> Figures:  # fmt: skip
    """Mail arrives in a Dovecot folder that `judges` judges poll (sharing one database)
    while Dovecot is stopped and started again `restarts` times (every other time hard)."""
    mailbox = f"soak-{folder.name[-12:]}-{int(time.time() * 1000) % 10**8}"
    client = server.connect()
    client.create_folder(mailbox)
    client.logout()
    url = database_url or f"sqlite:///{folder / 'judge.db'}"
    bodies = set_up_game(url)
    imap = {
        "host": "127.0.0.1", "port": server.imap_port, "user": "judge@example.test",
        "password": server.users["judge@example.test"], "ssl": False, "mailbox": mailbox,
        "idle_seconds": 5,
    }  # fmt: skip
    with sink_on() as sink:
        running = [
            JudgeProcess(folder, judge_config(url, sink.port, imap=imap), name=f"judge{n}")
            for n in range(judges)
        ]
        for judge in running:
            judge.start()
        appender = Appender(server, mailbox, bodies, mails, rate)
        appender.start()
        try:
            for n in range(restarts):
                while len(appender.accepted) < mails * (n + 1) // (restarts + 1):
                    time.sleep(0.05)
                restart_dovecot(server, hard=n % 2 == 0)
            appender.join()
            wait_for_answers(sink, appender.accepted, timeout=90)
            figures = count(sink, appender.accepted, url)
        finally:
            for judge in running:
                judge.stop()
            _end_leftovers()
    db.connect(url)
    try:
        stored = InboundMessage.select().count()
    finally:
        db.close()
    figures.extra.update(restarts=restarts, judges=judges, stored=stored,
                         refused_appends=appender.refused)  # fmt: skip
    return figures


@contextmanager
def own_dovecot() -> Iterator[Dovecot]:
    """A throw-away Dovecot for the long forms (the tests use the session fixture)."""
    import shutil
    import tempfile

    from helpers.mailstack import _dovecot_binary

    binary = _dovecot_binary()
    if binary is None:
        raise SystemExit("no dovecot binary: apt-get install dovecot-imapd")
    directory = Path(tempfile.mkdtemp(prefix="mailjudge-dovecot-", dir="/tmp"))
    server = Dovecot(directory, binary, users={"judge@example.test": "judge-pass"})
    try:
        server.configure()
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def run_load(folder: Path, seconds: float, rate: float, sample_every: float = 5.0) -> Figures:
    """Order mails at `rate` per second for `seconds`; the judge's resident memory (with
    its worker and sender processes) is sampled every `sample_every` seconds."""
    url = f"sqlite:///{folder / 'judge.db'}"
    bodies = set_up_game(url)
    samples: list[tuple[float, int]] = []
    with sink_on() as sink:
        judge = JudgeProcess(folder, judge_config(url, sink.port, free_port()))
        judge.start()
        stream = Stream(judge.smtp_port, bodies, rate)
        started = time.monotonic()
        stream.start()
        try:
            while (elapsed := time.monotonic() - started) < seconds:
                samples.append((elapsed, judge.rss_kib()))
                time.sleep(min(sample_every, max(0.0, seconds - elapsed)))
            stream.stop()
            sent_for = time.monotonic() - started
            wait_for_answers(sink, stream.accepted, timeout=120)
            figures = count(sink, stream.accepted, url)
        finally:
            stream.stop()
            judge.stop()

    def mean(lo: float, hi: float) -> float:
        inside = [kib for t, kib in samples if lo <= t < hi] or [0]
        return sum(inside) / len(inside) / 1024

    early, late = mean(60, 120), mean(seconds - 60, seconds)
    figures.extra.update(
        seconds=round(sent_for),
        mails_per_second=round(len(stream.accepted) / sent_for, 1),
        rss_peak_mib=round(max(kib for _, kib in samples) / 1024, 1),
        rss_second_minute_mib=round(early, 1),
        rss_last_minute_mib=round(late, 1),
        memory_flat=bool(early) and late <= early * 1.10,
        rss_samples_mib=[round(kib / 1024) for _, kib in samples[:: max(1, len(samples) // 20)]],
    )
    return figures

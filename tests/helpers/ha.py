"""The parts of the availability tests (tests/ops/test_failover.py, tests/ops/test_kill_soak.py)
and of their long form (tests/soak/soak_kills.py): two PostgreSQL servers as two machines
(a primary and its synchronous standby), several judges on one libpq multi-host URL, a
sink that notes when each answer came, a game whose order mails complete a phase now and
then, and the kill soak itself.

"The time from a kill to the next answer" is measured from the outside, as a player would
see it: from the kill to the first answer reaching the relay for a mail that got its 250
after the kill (an answer already on its way when the kill came does not count).
"""

from __future__ import annotations

import itertools
import random
import re
import shutil
import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from helpers.mailstack import SmtpSink, free_port
from helpers.private_postgres import PrivatePostgres, server_folder
from helpers.reliability import (
    Figures,
    JudgeProcess,
    MxStream,
    TimedSink,
    _header,
    answer_waits,
    count,
    judge_config,
    next_answer,
    player,
    set_up_game,
    timed_sink,
    wait_for_answers,
)
from mailjudge.game import state
from mailjudge.game.state import current_position
from mailjudge.secrecy import passwords
from mailjudge.service import games, seats
from mailjudge.store import db
from mailjudge.store.models import Game, PhaseRecord

PHASE_GAME = "phases"


# -- two database servers ------------------------------------------------------------------


class Pair:
    """A primary and its synchronous streaming standby, in two slots "a" and "b" that keep
    their ports, as two machines keep their addresses: the judges' one URL names both
    (`url`), and libpq finds whichever is the primary now (target_session_attrs).

    A standby promoted writes alone (its synchronous_standby_names is empty) until a new
    standby is made from it (`rebuild_standby`) and named there, as an operator would do
    after `pg_ctl promote`; until then it is not killed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.primary = PrivatePostgres(folder, "a")
        self.standby: PrivatePostgres | None = None
        self.ports = {"a": self.primary.port, "b": free_port()}

    def start(self) -> None:
        self.primary.init(synchronous_standby="b")
        self.primary.start()
        self.standby = self.primary.standby("b", port=self.ports["b"])
        self.primary.create_database()  # a commit: it waits for the synchronous standby
        self.wait_synchronous()

    def url(self, target: str = "read-write", database: str = "judge") -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.ports.values())
        return f"postgresql://postgres@{hosts}/{database}?target_session_attrs={target}"

    def wait_synchronous(self, timeout: float = 60.0) -> None:
        """Until the standby streams and is the primary's synchronous standby."""
        assert self.standby is not None
        want = (self.standby.name, "streaming", "sync")
        deadline = time.monotonic() + timeout
        while (found := self.primary.replication()) != [want]:
            if time.monotonic() > deadline:
                raise AssertionError(f"no synchronous standby: {found}, expected [{want}]")
            time.sleep(0.05)

    def fail_over(self) -> None:
        """The primary killed outright, the standby promoted (pg_ctl promote)."""
        assert self.standby is not None
        self.primary.kill()
        self.standby.promote()
        self.primary, self.standby = self.standby, None

    def rebuild_standby(self) -> None:
        """The dead primary's machine made the new primary's synchronous standby: its data
        thrown away, a fresh pg_basebackup -R from the new primary, the new primary's
        synchronous_standby_names naming it (ALTER SYSTEM, reload)."""
        slot = next(name for name in self.ports if name != self.primary.name)
        shutil.rmtree(self.folder / slot, ignore_errors=True)
        self.standby = self.primary.standby(slot, port=self.ports[slot])
        self.primary.set("synchronous_standby_names", slot)
        self.wait_synchronous()

    def restart_standby(self) -> None:
        """The standby killed outright and started again (crash recovery, then it streams
        again). Meanwhile every commit on the primary waits for it: that is what
        synchronous means."""
        assert self.standby is not None
        self.standby.kill()
        self.standby.start()
        self.wait_synchronous()

    def close(self) -> None:
        for server in (self.primary, self.standby):
            if server is not None:
                server.stop("immediate")
                server.kill()


@contextmanager
def running_pair() -> Iterator[Pair]:
    """A started Pair in a folder of its own (private_postgres.server_folder), stopped and
    removed at the end."""
    with server_folder() as folder:
        pair = Pair(folder)
        try:
            pair.start()
            yield pair
        finally:
            pair.close()


# -- a game whose phases process -----------------------------------------------------------


def set_up_games(database_url: str) -> list[tuple[str, str]]:
    """Two games: `soak` (set_up_game: every player WAITs, so its mails are work with one
    answer each) and `phases`, whose players do not wait: once all seven have sent their
    orders, the phase is processed and each is sent its results. The mails, in the order to
    send them: three of `soak` for each of `phases`, so that a phase completes every few
    seconds at 20 mails a second."""
    waiting = list(set_up_game(database_url).items())
    cost, passwords.SCRYPT_N = passwords.SCRYPT_N, 2**10
    db.connect(database_url)
    try:
        game = games.create_game(PHASE_GAME, "gm@example.test", "gm-pw", rules="POWER_CHOICE")
        powers = list(state.game_map(game).power_names)
        for power in powers:
            seats.join(game, _phase_player(power), f"pw-{power.lower()}", power=power)
        pos = current_position(state.get_game(PHASE_GAME))
        phased = [
            (
                _phase_player(p),
                f"SIGNON {p.lower()}@{PHASE_GAME} pw-{p.lower()}\n"
                + "\n".join(f"{u} H" for u in pos.units_of(p)),
            )
            for p in powers
        ]
    finally:
        passwords.SCRYPT_N = cost
        db.close()
    mails = []
    for n in range(len(waiting) * len(phased)):
        mails.extend(waiting[(3 * n + k) % len(waiting)] for k in range(3))
        mails.append(phased[n % len(phased)])
    return mails


def _phase_player(power: str) -> str:
    return player(power).replace("@", f".{PHASE_GAME}@")


_FOLLOWS = {"S": "F", "F": "S"}  # holds only: no retreats, no adjustments


def phase_problems(sink: SmtpSink, database_url: str) -> tuple[int, list[str]]:
    """How many phases of `phases` were processed, and what is wrong with them: a gap or
    a repeat in their sequence, a phase that does not follow the one before, a player
    sent no results or two different results for a phase."""
    db.connect(database_url)
    try:
        game = Game.get(Game.name == PHASE_GAME)
        records = list(
            PhaseRecord.select().where(PhaseRecord.game == game).order_by(PhaseRecord.sequence)
        )
        current, sequence = game.phase, game.sequence
    finally:
        db.close()
    problems = []
    numbers = [r.sequence for r in records]
    if numbers != list(range(sequence - len(records), sequence)):
        problems.append(f"the phases' sequence numbers are not gapless: {numbers}, now {sequence}")
    names = [r.phase for r in records] + [current]
    for before, after in itertools.pairwise(names):
        year = int(before[1:5]) + (before[0] == "F")
        if after != f"{_FOLLOWS[before[0]]}{year}M":
            problems.append(f"{after} follows {before}")
    results: dict[str, Counter[str]] = defaultdict(Counter)
    for mail in list(sink.mails):
        found = re.search(r"results ([SFW]\d{4}[MRA])\b", mail.subject)
        if found and mail.rcpt_tos and f".{PHASE_GAME}@" in mail.rcpt_tos[0]:
            results[found.group(1)][_header(mail.raw, b"Message-ID") or ""] += 1
            results[found.group(1)]["to:" + mail.rcpt_tos[0]] += 1
    for record in records:
        got = results.get(record.phase, Counter())
        ids = [k for k in got if not k.startswith("to:")]
        players = [k for k in got if k.startswith("to:")]
        if len(ids) != 7 or len(players) != 7:
            problems.append(
                f"{record.phase}: {len(ids)} results mails to {len(players)} players, not 7 to 7"
            )
    return len(records), problems


# -- the kill soak ---------------------------------------------------------------------------


@dataclass
class KillFigures:
    """What the soak saw: the mail figures, the phases, each kill's time to the next
    answer by kind of kill, and how long each mail waited for its answer."""

    mail: Figures = field(default_factory=Figures)
    phases: int = 0
    phase_problems: list[str] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    waits: list[float] = field(default_factory=list)  # from each mail's 250 to its answer

    def ok(self) -> bool:
        return self.mail.ok() and not self.phase_problems

    def lines(self) -> list[str]:
        found = [*self.mail.lines(), f"phases processed: {self.phases}",
                 f"phase problems: {self.phase_problems or 'none'}"]  # fmt: skip
        if self.waits:
            found.append(
                f"from a mail's 250 to its answer: median {statistics.median(self.waits):.2f} s, "
                f"worst {max(self.waits):.1f} s, over 30 s: {sum(w > 30 for w in self.waits)}"
            )
        for kind, times in sorted(self.times.items()):
            found.append(
                f"{kind} killed {len(times)} times: time to the next answer median "
                f"{statistics.median(times):.1f} s, worst {max(times):.1f} s"
            )
        return found


KINDS = ("judge", "primary", "standby")


def run_kill_soak(
    folder: Path,
    kills: int,
    rate: float = 20.0,
    seed: int = 1,
    pause: tuple[float, float] = (2.0, 5.0),
    order: list[str] | None = None,
    say: Callable[[str], None] = lambda line: None,
    sqlite: bool = False,
) -> KillFigures:
    """Three judges (`serve --workers 1` each, each its own SMTP port) on a primary and its
    synchronous standby, under ``rate`` order mails a second spread over the judges' ports
    as over three MX records. ``kills`` times, after a pause of a few seconds, one of them
    is killed at random (``order``: the kinds in that order instead): a judge (its whole
    process group, then started again), the primary (then the standby is promoted and a
    new standby made from it) or the standby (then started again). Each kill waits until
    the previous one is mended: both servers up and synchronous, the three judges
    serving. With ``sqlite``: one judge on a SQLite file, the only thing to kill."""
    rng = random.Random(seed)
    figures = KillFigures()
    servers = nullcontext(None) if sqlite else running_pair()
    with servers as pair, timed_sink() as sink:
        url = f"sqlite:///{folder / 'judge.db'}" if pair is None else pair.url()
        mails = set_up_games(url)
        with (
            judges_on(folder, url, sink, 1 if pair is None else 3) as judges,
            streams_to(judges, mails, rate, sink) as streams,
        ):
            for n in range(kills):
                time.sleep(rng.uniform(*pause))
                kind = order[n % len(order)] if order else rng.choice(KINDS[: 1 if sqlite else 3])
                killed_at = time.monotonic()
                if kind == "judge":
                    victim = rng.choice(judges)
                    victim.kill()
                    victim.start(timeout=60)
                elif pair is not None and kind == "primary":
                    pair.fail_over()
                elif pair is not None:
                    pair.restart_standby()
                waited = wait_next_answer(sink, streams, killed_at)
                figures.times[kind].append(waited)
                say(f"kill {n + 1}: {kind}, next answer after {waited:.2f} s")
                if pair is not None and kind == "primary":
                    pair.rebuild_standby()
            # The judges still running: every mail taken is answered before they stop.
            for stream in streams:
                stream.stop()
            accepted = {m: at for stream in streams for m, at in stream.accepted}
            wait_for_answers(sink, list(accepted), timeout=120)
            figures.mail = count(sink, list(accepted), url)
            figures.phases, figures.phase_problems = phase_problems(sink, url)
        figures.mail.extra.update(kills=kills, refused_attempts=sum(s.refused for s in streams))
        figures.waits = answer_waits(sink, accepted)
    return figures


# The judges run with the settings' defaults for what a dead process leaves behind (its
# claims on stored mail, its sender's leases) and for retries: what the tests show is
# what an operator gets, not what short test timeouts hide.
# The hour's caps of mail to one address are raised: 21 players send 20 mails a second
# between them and a game moves a phase every few seconds, as no game does.
AS_DEPLOYED: dict[str, dict[str, str | int | bool]] = {
    "inbound": {"claim_timeout_seconds": 600},
    "outbound": {"lease_seconds": 600, "retry_first_seconds": 30, "retry_max_seconds": 3600},
    "security": {"unproven_bytes_per_hour": 1 << 30, "proven_bytes_per_hour": 1 << 30,
                 "game_bytes_per_hour": 1 << 30},
}  # fmt: skip


@contextmanager
def judges_on(folder: Path, url: str, sink: SmtpSink, count: int) -> Iterator[list[JudgeProcess]]:
    """``count`` judges (`serve --workers 1`, each its own SMTP port) on ``url``, started
    side by side, stopped at the end."""
    judges = [
        JudgeProcess(
            folder, judge_config(url, sink.port, free_port(), **AS_DEPLOYED), name=f"judge{n}"
        )
        for n in range(count)
    ]
    try:
        _start_all(judges)
        yield judges
    finally:
        for judge in judges:
            judge.stop()


@contextmanager
def streams_to(judges: list[JudgeProcess], mails: list[tuple[str, str]], rate: float,
               sink: TimedSink) -> Iterator[list[MxStream]]:  # fmt: skip
    """``rate`` order mails a second spread over the judges' ports, one stream starting at
    each judge and at its own place in ``mails``; back once mail is answered (a judge's
    worker and sender start in processes of their own after its listener), the streams
    stopped at the end."""
    ports = [judge.smtp_port for judge in judges]
    count = len(ports)
    streams = [
        MxStream(
            ports[n:] + ports[:n], mails[n * 5 :] + mails[: n * 5], rate / count, first=n * 10**7
        )
        for n in range(count)
    ]
    started = time.monotonic()
    try:
        for stream in streams:
            stream.start()
        wait_next_answer(sink, streams, started)
        yield streams
    finally:
        for stream in streams:
            stream.stop()


def _start_all(judges: list[JudgeProcess]) -> None:
    """Start the judges side by side: each takes seconds to import and connect."""
    failures: list[BaseException] = []

    def start(judge: JudgeProcess) -> None:
        try:
            judge.start(timeout=60)
        except BaseException as err:
            failures.append(err)

    threads = [threading.Thread(target=start, args=(judge,)) for judge in judges]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def wait_next_answer(sink: TimedSink, streams: list[MxStream], after: float,
                      timeout: float = 120.0) -> float:  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        accepted = {m: at for stream in streams for m, at in list(stream.accepted)}
        waited = next_answer(sink, accepted, after)
        if waited is not None:
            return waited
        time.sleep(0.05)
    raise AssertionError(f"no answer within {timeout:.0f} s of the kill")

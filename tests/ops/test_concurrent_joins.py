"""JOINs of one game sent at once to judges on one PostgreSQL database (issue 51, point 9).

Real `mailjudge serve` processes take the JOINs over SMTP, all released together by a
barrier. Every game starts exactly once (each player gets one start mail, no seat too
many, the game active), every JOIN is answered exactly once, and none is shunted: two
JOINs for the same power are both answered, one seated and one told the power is taken.
The rounds repeat because the race they look for is one of timing; `-m soak` runs more.
The judges answer one game's mails one batch at a time (inbound.game_batches); the tests
at the end race the same commands in transactions of their own, where only the game's row
lock and the spool's retry of a unique key keep them apart.
"""

from __future__ import annotations

import re
import smtplib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from helpers.mailstack import SmtpSink, free_port
from helpers.reliability import JUDGE, JudgeProcess, answers, judge_config, sink_on

import mailjudge.config.settings
from mailjudge.app import pipeline
from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.engine.catalogue import playable_powers
from mailjudge.game import guard
from mailjudge.game.state import game_map, get_game, players
from mailjudge.inbound import answering, claims, spool
from mailjudge.outbound.draft import MailDraft
from mailjudge.secrecy import passwords
from mailjudge.service import games
from mailjudge.store import db
from mailjudge.store.models import GameState, InboundMessage, Outbox, utcnow
from mailjudge.tools import migrations

PLAYERS = 7  # the standard map's powers


@dataclass
class Join:
    sender: str
    message_id: str
    raw: bytes
    port: int  # the judge's SMTP listener it goes to


def join_mail(sender: str, line: str, port: int) -> Join:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = JUDGE
    msg["Subject"] = "joining"
    msg["Message-ID"] = make_msgid("join", domain="players.test")
    msg.set_content(line + "\n")
    return Join(sender, str(msg["Message-ID"]), msg.as_bytes().replace(b"\n", b"\r\n"), port)


def player(game: str, n: int) -> str:
    return f"{game}-p{n}@players.test"


def send_at_once(joins: list[Join]) -> None:
    """Each mail on a connection of its own, every connection open before any is sent."""
    clients = [smtplib.SMTP("127.0.0.1", join.port, timeout=30) for join in joins]
    barrier = threading.Barrier(len(joins))
    failures: list[BaseException] = []

    def send(client: smtplib.SMTP, join: Join) -> None:
        try:
            barrier.wait(30)
            client.sendmail(join.sender, [JUDGE], join.raw)
        except BaseException as err:
            failures.append(err)
        finally:
            client.quit()

    threads = [
        threading.Thread(target=send, args=pair) for pair in zip(clients, joins, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures


def wait_until(done: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for the judges' work to come out (never asserted on: the checks follow)."""
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)


def start_mails(sink: SmtpSink, game: str) -> Counter[str]:
    """How many "the game has started" mails each address got for ``game``."""
    return Counter(
        to for mail in list(sink.mails) if mail.subject == f"[{game}] the game has started"
        for to in mail.rcpt_tos
    )  # fmt: skip


def reply_bodies(sink: SmtpSink, joins: list[Join]) -> dict[str, list[str]]:
    """Each JOIN's answers at the sink, by the JOIN's sender."""
    wanted = {join.message_id: join.sender for join in joins}
    found: dict[str, list[str]] = {join.sender: [] for join in joins}
    for mail in list(sink.mails):
        if mail.in_reply_to in wanted:
            body = mail.message.get_body(("plain",))
            found[wanted[mail.in_reply_to]].append(body.get_content() if body else "")
    return found


def new_game(url: str, name: str, rules: str = "") -> None:
    db.connect(url)
    try:
        games.create_game(name, f"gm-{name}@example.test", "gm-pw", rules=rules)
    finally:
        db.close()


def answered_once(url: str, sink: SmtpSink, joins: list[Join]) -> None:
    """Every JOIN answered once: one answer at the sink, one queued, none shunted."""
    got = answers(sink.mails)
    assert all(len(got.get(join.message_id, ())) == 1 for join in joins), got
    db.connect(url)
    try:
        ids = [join.message_id for join in joins]
        rows = list(InboundMessage.select().where(InboundMessage.message_id.in_(ids)))
        assert sorted(row.state for row in rows) == ["done"] * len(joins), [
            (row.state, row.error[-300:]) for row in rows
        ]
        queued = Counter(
            box.inbound_id
            for box in Outbox.select(Outbox.inbound).where(Outbox.inbound.in_(rows))
        )  # fmt: skip
        assert sorted(queued.values()) == [1] * len(joins), queued
    finally:
        db.close()


def confirmed_at_once(url: str, sink: SmtpSink, joins: list[Join]) -> list[Join]:
    """The JOINs at once, from addresses new to the judge: each is answered once with a
    token (issue 52: a JOIN waits for its address to answer), and the tokens are sent
    back at once, each to the listener its JOIN went to. The CONFIRM mails."""
    send_at_once(joins)
    wait_until(lambda: all(m.message_id in answers(sink.mails) for m in joins))
    answered_once(url, sink, joins)
    tokens = {}
    for sender, (text,) in reply_bodies(sink, joins).items():
        found = re.search(r"CONFIRM (\w+)", text)
        assert found, text
        tokens[sender] = found.group(1)
    confirms = [join_mail(j.sender, f"CONFIRM {tokens[j.sender]}", j.port) for j in joins]
    send_at_once(confirms)
    wait_until(lambda: all(m.message_id in answers(sink.mails) for m in confirms))
    return confirms


def seven_joins_round(url: str, sink: SmtpSink, name: str, ports: list[int]) -> None:
    """Seven JOINs of one game at once, spread over ``ports``, then their seven CONFIRMs
    at once: the game starts once."""
    new_game(url, name)
    joins = [
        join_mail(player(name, n), f"JOIN {name} pw-{n}", ports[n % len(ports)])
        for n in range(PLAYERS)
    ]
    joins = confirmed_at_once(url, sink, joins)
    db.connect(url)
    try:
        started = get_game(name).state == GameState.ACTIVE
    finally:
        db.close()
    if started:  # its start mails come in the transaction that started it
        wait_until(lambda: sum(start_mails(sink, name).values()) >= PLAYERS + 1)
    answered_once(url, sink, joins)
    db.connect(url)
    try:
        game = get_game(name)
        seated = players(game)
        assert game.state == GameState.ACTIVE, (
            f"{name} is {game.state} with {len(seated)} players seated"
        )
        # One seat a player, each with a power of its own: nobody seated twice, no dummy.
        assert sorted(s.person.email for s in seated if s.person) == sorted(
            j.sender for j in joins
        ), seated
        assert sorted(p for s in seated for p in s.powers) == sorted(
            playable_powers(game_map(game))
        ), seated
    finally:
        db.close()
    # The master is told too.
    told = Counter({j.sender: 1 for j in joins}) + Counter({f"gm-{name}@example.test": 1})
    assert start_mails(sink, name) == told
    bodies = reply_bodies(sink, joins)
    assert all("you joined" in text for (text,) in bodies.values()), bodies


def same_power_round(url: str, sink: SmtpSink, name: str, ports: list[int]) -> None:
    """Two JOINs for FRANCE at once, then their CONFIRMs at once: one is seated, the
    other told FRANCE is taken."""
    new_game(url, name, rules="POWER_CHOICE")
    joins = [
        join_mail(player(name, n), f"JOIN {name} pw-{n} FRANCE", ports[n % len(ports)])
        for n in range(2)
    ]
    joins = confirmed_at_once(url, sink, joins)
    answered_once(url, sink, joins)
    bodies = {sender: text for sender, (text,) in reply_bodies(sink, joins).items()}
    seated_as = [sender for sender, text in bodies.items() if "you joined" in text]
    refused = [sender for sender, text in bodies.items() if "FRANCE is taken" in text]
    assert len(seated_as) == 1 and len(refused) == 1, bodies
    db.connect(url)
    try:
        seated = players(get_game(name))
        assert [(s.person.email, s.powers) for s in seated if s.person] == [
            (seated_as[0], ("FRANCE",))
        ], seated
    finally:
        db.close()


@contextmanager
def judges_on(
    url: str, folder: Path, sink: SmtpSink, judges: int, workers: int
) -> Iterator[list[int]]:
    """``judges`` serve processes of ``workers`` workers on one database; their SMTP ports."""
    db.connect(url)
    try:
        migrations.upgrade()
    finally:
        db.close()
    running = [
        JudgeProcess(folder, judge_config(url, sink.port, free_port()), workers=workers,
                     name=f"judge{n}")
        for n in range(judges)
    ]  # fmt: skip
    try:
        for judge in running:
            judge.start()
        yield [judge.smtp_port for judge in running]
    finally:
        for judge in running:
            judge.stop()


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The games' masters' hashes, made here, at a low cost (the judges hash at theirs)."""
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)


def play_rounds(url: str, folder: Path, judges: int, workers: int, rounds: int) -> None:
    """``rounds`` of seven JOINs of one game at once, then two JOINs for FRANCE at once,
    spread over ``judges`` judges of ``workers`` workers each (the games named after the
    folder: several runs may share the database)."""
    folder.mkdir(exist_ok=True)
    prefix = re.sub(r"[^a-z0-9]", "", folder.name.lower())[:8]
    with sink_on() as sink, judges_on(url, folder, sink, judges, workers) as ports:
        for n in range(rounds):
            seven_joins_round(url, sink, f"{prefix}-race{n}", ports)
            same_power_round(url, sink, f"{prefix}-pick{n}", ports)


def test_three_workers_start_a_game_once_and_answer_every_join(
    tmp_path: Path, postgres_url: str, cheap_hashes: None
) -> None:
    """Before: in each round the game stayed forming with its seven seats taken, and one
    of the two JOINs for FRANCE was shunted unanswered (an IntegrityError)."""
    play_rounds(postgres_url, tmp_path, judges=1, workers=3, rounds=3)


def test_two_judges_on_one_database_start_a_game_once(
    tmp_path: Path, postgres_url: str, cheap_hashes: None
) -> None:
    play_rounds(postgres_url, tmp_path, judges=2, workers=1, rounds=2)


@pytest.mark.soak
def test_joins_at_once_soak(tmp_path: Path, postgres_url: str, cheap_hashes: None) -> None:
    play_rounds(postgres_url, tmp_path / "three", judges=1, workers=3, rounds=25)
    play_rounds(postgres_url, tmp_path / "two", judges=2, workers=2, rounds=25)


# -- the game's lock and the retry, without the spool's game batches -------------------------
#
# The judges above claim one game's mails together (inbound.game_batches), so their JOINs
# are answered one after another however fast they come. Here each mail is answered in a
# thread of its own, on a connection of its own (as by workers of mails of no game known,
# or of mails keyed to another game), the threads released together: what keeps them
# apart is the game's row lock alone, and the spool's retry of a unique key written first.


@pytest.fixture
def judge_settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    found = load_settings(None, {"MAILJUDGE_JUDGE_ADDRESS": JUDGE})
    monkeypatch.setattr(mailjudge.config.settings, "_CURRENT", found)
    return found


def answer_at_once(settings: Settings, mails: list[tuple[str, str]]) -> list[InboundMessage]:
    """Store ``mails`` (sender, body), claim them, and answer each in a thread of its own,
    all at once, each transaction held open a moment after its mail's work: without a
    lock every one reads the game before any commits. A mail queued again (a unique key
    another wrote first) is answered afterwards. The stored rows, as they ended."""
    for sender, _ in mails:  # players the judge knows: their JOIN seats them at once
        guard.mark_proven(sender, utcnow())
    rows = [
        spool.store(join_mail(sender, body, 0).raw, sender, [JUDGE], "smtp")[0]
        for sender, body in mails
    ]
    claimed = claims.claim_batch(len(rows))
    assert len(claimed) == len(rows)
    barrier = threading.Barrier(len(claimed))
    failures: list[BaseException] = []

    def handle(row: InboundMessage) -> None:
        pipeline.handle(row, settings)
        time.sleep(0.2)  # the transaction stays open: the others have read by now

    def work(row: InboundMessage) -> None:
        try:
            barrier.wait(30)
            answering.process_batch([(row, handle)])
        except BaseException as err:  # reported below
            failures.append(err)
        finally:
            db.close()  # this thread's connection

    threads = [threading.Thread(target=work, args=(row,)) for row in claimed]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    spool.process_pending(lambda row: pipeline.handle(row, settings))
    return [InboundMessage.get_by_id(row.id) for row in rows]


def answers_of(rows: list[InboundMessage]) -> list[str]:
    """Each mail's one queued answer; every mail done."""
    assert [row.state for row in rows] == ["done"] * len(rows), [r.error[-500:] for r in rows]
    found = []
    for row in rows:
        (reply,) = Outbox.select().where(Outbox.inbound == row.id)
        found.append(MailDraft.from_json(reply.draft).text)
    return found


def test_seven_joins_in_transactions_at_once_start_the_game_once(
    any_db: str, judge_settings: Settings
) -> None:
    games.create_game("race", "gm@example.test", "gm-pw")
    rows = answer_at_once(
        judge_settings, [(player("race", n), f"JOIN race pw-{n}") for n in range(PLAYERS)]
    )
    assert all("you joined race" in text for text in answers_of(rows))
    game = get_game("race")
    assert game.state == GameState.ACTIVE
    seated = players(game)
    assert sorted(p for s in seated for p in s.powers) == sorted(playable_powers(game_map(game)))
    assert not any(s.dummy for s in seated)
    started = Counter(
        to for box in Outbox.select() if MailDraft.from_json(box.draft).subject == "[race] the game has started"
        for to in box.draft["to"]
    )  # fmt: skip
    assert started == Counter([player("race", n) for n in range(PLAYERS)] + ["gm@example.test"])


def test_two_joins_for_one_power_in_transactions_at_once_are_both_answered(
    any_db: str, judge_settings: Settings
) -> None:
    games.create_game("race", "gm@example.test", "gm-pw", rules="POWER_CHOICE")
    rows = answer_at_once(
        judge_settings, [(player("race", n), f"JOIN race pw-{n} FRANCE") for n in range(2)]
    )
    texts = answers_of(rows)
    assert sum("you joined race as france" in text for text in texts) == 1, texts
    assert sum("FRANCE is taken; free powers: AUSTRIA" in text for text in texts) == 1, texts
    assert [s.powers for s in players(get_game("race"))] == [("FRANCE",)]


def test_two_creates_of_one_name_at_once_are_both_answered(
    any_db: str, judge_settings: Settings
) -> None:
    """No game row to lock yet: on PostgreSQL the second insert of the name breaks the
    unique index, its mail is queued again, and tried again it is told the name is taken."""
    rows = answer_at_once(
        judge_settings, [(f"gm{n}@example.test", f"CREATE race pw-{n}") for n in range(2)]
    )
    texts = answers_of(rows)
    assert sum("game race created" in text for text in texts) == 1, texts
    assert sum("a game called 'race' exists already" in text for text in texts) == 1, texts

"""On PostgreSQL a worker claims the next mails of one game together and holds that game
until its batch is committed: two workers never answer one game's mails at once, so they
never hold two games' rows in opposite orders. The game is worked out when a mail is
stored (inbound.game_key)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

from mailjudge.inbound import answering, game_batches, spool
from mailjudge.inbound.game_key import game_key
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, utcnow

JUDGE = ["judge@example.org"]


def mail(n: int, body: str) -> bytes:
    return (
        f"From: player{n}@example.org\r\nTo: judge@example.org\r\nSubject: orders\r\n"
        f"Message-ID: <games-{n}@example.org>\r\n\r\n{body}\r\n"
    ).encode()


def test_the_game_comes_from_the_signon_or_the_address() -> None:
    assert game_key(mail(1, "Hello,\r\nsignon France@Gunboat pw\r\nA PAR H"), JUDGE) == "gunboat"
    assert game_key(mail(2, "SIGNON Fgunboat pw"), JUDGE) == "gunboat"
    assert game_key(mail(3, "> SIGNON mgunboat pw"), JUDGE) == "gunboat"
    # A bare seat name goes with the judge+GAME@ address it was sent to.
    assert game_key(mail(4, "SIGNON france pw"), ["judge+Open1@example.org"]) == "open1"
    assert game_key(mail(5, "LIST"), ["judge+open1@example.org"]) == "open1"
    assert game_key(mail(6, "HELP"), JUDGE) == ""
    # Headers are not the body: a Subject that says SIGNON names nothing.
    assert game_key(b"Subject: about\r\n signon france@x\r\n\r\nHELP\r\n", JUDGE) == ""


def test_the_game_comes_from_the_commands_that_name_one_without_signon() -> None:
    # Seven JOINs of one game are one game's mails: one worker answers them in turn.
    assert game_key(mail(1, "JOIN Race pw"), JUDGE) == "race"
    assert game_key(mail(2, "Hi,\r\n> join race pw FRANCE AS Bob"), JUDGE) == "race"
    assert game_key(mail(3, "OBSERVE bob@Race pw"), JUDGE) == "race"
    assert game_key(mail(4, "TAKEOVER france@race pw"), JUDGE) == "race"
    assert game_key(mail(5, "CREATE race pw VARIANT gunboat"), JUDGE) == "race"
    assert game_key(mail(6, "STOP race"), JUDGE) == "race"
    assert game_key(mail(7, "SIGN ON france@race pw"), JUDGE) == "race"
    # The first such line counts; commands that only read a game name none.
    assert game_key(mail(8, "LIST race\r\nSIGNON france@other pw\r\nJOIN race pw"), JUDGE) == (
        "other"
    )
    assert game_key(mail(9, "HISTORY race\r\nSUMMARY race"), JUDGE) == ""
    # An OBSERVE without its @game leaves the address to say; the JOIN's own game wins.
    assert game_key(mail(10, "OBSERVE bob pw"), ["judge+race@example.org"]) == "race"
    assert game_key(mail(11, "JOIN race pw"), ["judge+other@example.org"]) == "race"


def store_games(games: list[str], each: int) -> None:
    """``each`` mails of every game, the games taken in turn."""
    n = 0
    for _ in range(each):
        for game in games:
            n += 1
            spool.store(mail(n, f"SIGNON france@{game} pw"), "p@example.org", JUDGE, "smtp")


def games_of(rows: list[InboundMessage]) -> set[str]:
    return {row.game_key for row in rows}


def test_a_claim_takes_one_games_mails_and_another_worker_the_next_game(pg: str) -> None:
    store_games(["alpha", "beta", "gamma"], 5)
    first = game_batches.claim_game_batch(4)
    assert first is not None and first[0] == "alpha" and len(first[1]) == 4
    assert games_of(first[1]) == {"alpha"}
    other: list[tuple[str, list[InboundMessage]] | None] = []

    def second_worker() -> None:  # a thread: a connection, a session of its own
        other.append(game_batches.claim_game_batch(10))
        other.append(game_batches.claim_game_batch(10))
        for claimed in other:
            if claimed is not None:
                game_batches.release_game(claimed[0])
        db.close()

    thread = threading.Thread(target=second_worker)
    thread.start()
    thread.join()
    # alpha is held here: the other worker takes beta, then gamma, never alpha's last.
    assert [(c[0], len(c[1])) if c else None for c in other] == [("beta", 5), ("gamma", 5)]
    game_batches.release_game("alpha")
    last = game_batches.claim_game_batch(10)
    assert last is not None and last[0] == "alpha" and len(last[1]) == 1
    game_batches.release_game("alpha")
    assert game_batches.claim_game_batch(10) is None


def test_a_game_behind_another_games_long_backlog_is_found(pg: str) -> None:
    """A burst of one game (a Democratic game's citizens) held by one worker does not hide
    the games whose mails came after it: another worker finds them."""
    store_games(["burst"], 300)
    for n in (1001, 1002):
        spool.store(mail(n, "SIGNON france@after pw"), "p@example.org", JUDGE, "smtp")
    first = game_batches.claim_game_batch(12)
    assert first is not None and first[0] == "burst"
    other: list[tuple[str, list[InboundMessage]] | None] = []

    def second_worker() -> None:
        other.append(game_batches.claim_game_batch(12))
        if other[0] is not None:
            game_batches.release_game(other[0][0])
        db.close()

    thread = threading.Thread(target=second_worker)
    thread.start()
    thread.join()
    game_batches.release_game("burst")
    assert other[0] is not None and other[0][0] == "after" and len(other[0][1]) == 2


def test_mails_without_a_game_go_one_at_a_time_to_any_worker(pg: str) -> None:
    for n in range(3):
        spool.store(mail(n, "HELP"), "p@example.org", JUDGE, "smtp")
    claimed = game_batches.claim_game_batch(10)
    assert claimed is not None and claimed[0] == "" and len(claimed[1]) == 1
    again = game_batches.claim_game_batch(10)  # nothing held: the next one is free
    assert again is not None and len(again[1]) == 1


def test_two_workers_never_answer_one_game_at_once(pg: str) -> None:
    """Four threads answer the mails of six games; each notes when it worked on which
    game. No two threads' spans on one game overlap, and every mail is answered once."""
    store_games([f"g{n}" for n in range(6)], 12)
    spans: list[tuple[str, int, float, float]] = []
    handled: list[int] = []

    def handler(row: InboundMessage) -> None:
        began = time.monotonic()
        time.sleep(0.002)  # long enough for the threads' work to interleave
        spans.append((row.game_key, threading.get_ident(), began, time.monotonic()))
        handled.append(int(row.__data__["id"]))

    def worker() -> None:
        spool.process_pending(handler)
        db.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(handled) == sorted(set(handled)) and len(handled) == 72
    assert spool.counts()["done"] == 72
    assert len({ident for _, ident, _, _ in spans}) > 1, "one thread did everything"
    for game, ident, began, ended in spans:
        for other_game, other_ident, other_began, other_ended in spans:
            if game == other_game and ident != other_ident:
                assert ended <= other_began or other_ended <= began, (game, ident, other_ident)


def _die_holding(claimed: tuple[str, list[InboundMessage]] | None, minutes: int = 11) -> None:
    """The worker that claimed these died: its claims are as old as ``minutes``."""
    assert claimed is not None
    game_batches.release_game(claimed[0])  # its session ended
    InboundMessage.update(claimed_at=utcnow() - timedelta(minutes=minutes)).where(
        InboundMessage.id.in_([row.id for row in claimed[1]])
    ).execute()


def test_a_dead_workers_claims_are_taken_again_with_the_games_queued_mail(pg: str) -> None:
    store_games(["alpha"], 3)
    _die_holding(game_batches.claim_game_batch(2))
    store_games(["beta"], 1)
    again = game_batches.claim_game_batch(10)
    assert again is not None and again[0] == "alpha"
    # The two abandoned and the one still queued, oldest first, each claimed once more.
    assert [row.attempts for row in again[1]] == [2, 2, 1]
    assert again[1] == sorted(again[1], key=lambda row: row.received_at)
    game_batches.release_game("alpha")


def test_a_dead_claim_past_the_oldest_looked_at_comes_before_its_games_queued_mail(
    pg: str,
) -> None:
    """Only the oldest few dead claims are looked at for each batch. A game whose dead
    claim is not among them, found by its queued mail while the games before it are held,
    is not known to have none: the claim is read, and answered before the queued mail."""
    older = [f"g{n:02d}" for n in range(game_batches._STALE)]
    store_games([*older, "late"], 1)
    claims = [game_batches.claim_game_batch(1) for _ in range(len(older) + 1)]
    for claimed in claims:
        _die_holding(claimed)
    spool.store(mail(999, "SIGNON france@late pw"), "p@example.org", JUDGE, "smtp")
    holding, done = threading.Event(), threading.Event()

    def other_worker() -> None:  # answering the older games meanwhile
        for key in older:
            assert game_batches._lock_game(key)
        holding.set()
        done.wait(10)
        for key in older:
            game_batches.release_game(key)
        db.close()

    thread = threading.Thread(target=other_worker)
    thread.start()
    try:
        assert holding.wait(10)
        claimed = game_batches.claim_game_batch(10)
    finally:
        done.set()
        thread.join()
    assert claimed is not None and claimed[0] == "late"
    assert [row.attempts for row in claimed[1]] == [2, 1]  # the dead claim, then the new
    game_batches.release_game("late")


def test_a_mail_claimed_without_a_lock_is_not_marked_once_another_worker_took_it(
    pg: str,
) -> None:
    spool.store(mail(1, "HELP"), "p@example.org", JUDGE, "smtp")
    claimed = game_batches.claim_game_batch(10)
    assert claimed is not None and claimed[0] == ""
    [row] = claimed[1]
    # Its claim ran out and another worker took it meanwhile (one more attempt).
    InboundMessage.update(attempts=row.attempts + 1).where(InboundMessage.id == row.id).execute()
    wrote: list[str] = []
    db.database_proxy.execute_sql("CREATE TEMP TABLE note (t TEXT)")

    def handler(r: InboundMessage) -> None:
        db.database_proxy.execute_sql("INSERT INTO note VALUES ('answered')")
        wrote.append("x")

    assert answering.process_batch([(row, handler)]) == 0
    assert wrote == ["x"]
    assert db.database_proxy.execute_sql("SELECT count(*) FROM note").fetchone()[0] == 0
    assert InboundMessage.get_by_id(row.id).state == "processing"

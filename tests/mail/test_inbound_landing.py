"""The landing (inbound.landing): on SQLite the listener keeps a mail in a file of its own
and a mover carries it into the spool; nothing is lost or kept twice on the way, a crash
at any point included."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from mail.test_inbound_spool import in_threads, raw_mail
from mailjudge.inbound import group_store, spool
from mailjudge.inbound.landing import Landing, landing_path
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, utcnow


def landing_for(sqlite_db: str) -> Landing:
    database_file = db.sqlite_file()
    assert database_file is not None
    return Landing(landing_path(database_file))


def land(landing: Landing, numbers: range) -> list[int]:
    mails = [(raw_mail(n), "p@example.org", ["j@example.org"], "smtp") for n in numbers]
    return landing.land(mails, [spool.identity(m[0]) for m in mails], utcnow())


def test_the_landing_sits_beside_the_database_readable_by_its_owner_only(sqlite_db: str) -> None:
    landing = landing_for(sqlite_db)
    try:
        assert landing.path.name.endswith(".db.landing")
        assert stat.S_IMODE(landing.path.stat().st_mode) == 0o600
        numbers = landing.land(
            [(raw_mail(1), "p@example.org", ["judge@example.org", "gm@example.org"], "smtp")],
            [spool.identity(raw_mail(1))],
            utcnow(),
        )
        (mail,) = landing.waiting(10)
        assert (mail.id, mail.raw, mail.envelope_from) == (numbers[0], raw_mail(1), "p@example.org")
        assert mail.envelope_to == ["judge@example.org", "gm@example.org"]
        landing.remove([mail])
        assert landing.count() == 0
    finally:
        landing.close()


def test_mails_landed_by_a_group_store_reach_the_spool_once_when_the_worker_moves_them(
    sqlite_db: str,
) -> None:
    woken = threading.Event()
    landing = landing_for(sqlite_db)
    group = group_store.GroupStore(on_stored=woken.set, landing=landing)
    group.start()
    answers: list[bool] = []

    def send(n: int) -> None:
        _, new = group.store(raw_mail(n % 30), "p@example.org", ["judge@example.org"], "smtp")
        answers.append(new)

    try:
        in_threads(send, 40)
        assert woken.wait(10)  # the worker is told of them after each commit
    finally:
        group.stop()
    assert len(answers) == 40  # each caller answered after its mail was kept
    assert landing.count() == 40 and InboundMessage.select().count() == 0
    handled: list[str] = []
    try:
        assert spool.process_pending(lambda row: handled.append(row.message_id), landing=landing)
    finally:
        landing.close()
    assert sorted(handled) == sorted({f"<mail-{n}@example.org>" for n in range(30)})
    assert InboundMessage.select().count() == 30


def test_mails_moved_before_a_crash_are_not_kept_twice(sqlite_db: str) -> None:
    """A judge killed after the spool's commit and before the landing forgot the mails:
    the next move finds them in the spool already."""
    landing = landing_for(sqlite_db)
    try:
        land(landing, range(5))
        for mail in landing.waiting(3):  # what the killed mover had committed
            spool.store(mail.raw, mail.envelope_from, mail.envelope_to, mail.source)
        assert spool.move_landed(landing, 100) == 5
        assert InboundMessage.select().count() == 5
        assert landing.count() == 0
    finally:
        landing.close()


def test_landed_mails_are_moved_and_answered_in_order_of_arrival(sqlite_db: str) -> None:
    """Also what happens to mails a killed judge left landed: the next worker moves them."""
    landing = landing_for(sqlite_db)
    land(landing, range(4))
    handled: list[str] = []
    try:
        assert spool.process_pending(lambda row: handled.append(row.message_id), landing=landing)
        assert landing.count() == 0
    finally:
        landing.close()
    assert handled == [f"<mail-{n}@example.org>" for n in range(4)]


def test_a_mail_the_spool_refuses_stays_landed_and_the_rest_move(
    sqlite_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    landing = landing_for(sqlite_db)
    real_store = spool.store

    def refuse_the_second(raw: bytes, *args: object, **kwargs: object) -> object:
        if raw == raw_mail(1):
            raise RuntimeError("the disk is full")
        return real_store(raw, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(spool, "store", refuse_the_second)
    try:
        land(landing, range(3))
        assert spool.move_landed(landing, 100) == 2
        (left,) = landing.waiting(10)
        assert left.raw == raw_mail(1)
    finally:
        landing.close()


def test_landing_path_names_a_file_beside_the_database() -> None:
    assert landing_path(Path("/srv/judge/judge.db")) == Path("/srv/judge/judge.db.landing")


def test_a_mover_late_with_a_number_never_forgets_the_mail_that_took_it_over(
    sqlite_db: str,
) -> None:
    """Two movers (a worker, and work_once() beside it) may read the same landed mail. In a
    landing file made before numbers were never reused, the first mover's removal frees
    the number and the next mail landed takes it; the second mover's removal of the mail
    it read must not forget that newer mail, which is not in the spool yet."""
    database_file = db.sqlite_file()
    assert database_file is not None
    path = landing_path(database_file)
    old = sqlite3.connect(path)  # the schema of the earlier release: numbers reused
    old.execute(
        "CREATE TABLE landed (id INTEGER PRIMARY KEY, message_id TEXT, body_hash TEXT NOT NULL,"
        " raw BLOB NOT NULL, envelope_from TEXT NOT NULL, envelope_to TEXT NOT NULL,"
        " source TEXT NOT NULL, received_at TEXT NOT NULL)"
    )
    old.commit()
    old.close()
    landing = Landing(path)
    try:
        land(landing, range(1, 2))
        (first,) = landing.waiting(10)  # both movers read it
        landing.remove([first])  # the first mover kept it and forgets it
        (taken_over,) = land(landing, range(2, 3))
        assert taken_over == first.id  # the old schema hands the number out again
        landing.remove([first])  # the second mover forgets what it read
        assert [mail.raw for mail in landing.waiting(10)] == [raw_mail(2)]
    finally:
        landing.close()


def test_a_new_landing_never_hands_out_a_number_twice(sqlite_db: str) -> None:
    landing = landing_for(sqlite_db)
    try:
        land(landing, range(1, 2))
        landing.remove(landing.waiting(10))
        (second,) = land(landing, range(2, 3))
        assert second == 2
    finally:
        landing.close()


def test_mails_stored_from_an_event_loop_are_each_answered_once_after_their_commit(
    sqlite_db: str,
) -> None:
    """The listener's way in (GroupStore.store_async): coroutines of one loop and threads
    store at once; each is answered when its mail is landed, and a caller that went away
    meanwhile (its client hung up) leaves the answers of its group alone."""
    landing = landing_for(sqlite_db)
    group = group_store.GroupStore(landing=landing)
    group.start()
    mail = ("p@example.org", ["judge@example.org"], "smtp")

    def store(n: int) -> asyncio.Future[tuple[InboundMessage, bool]]:
        return asyncio.ensure_future(group.store_async(raw_mail(n), *mail))

    async def callers() -> list[object]:
        with landing._lock:  # the first commit waits: the next mails make one group
            first = store(98)
            await asyncio.sleep(0.2)
            gone, *stores = [store(n) for n in [99, *range(30)]]
            await asyncio.sleep(0)  # all of them are queued
            gone.cancel()
        answers = asyncio.gather(first, *stores, gone, return_exceptions=True)
        return await asyncio.wait_for(answers, 10)

    threads = threading.Thread(
        target=in_threads, args=(lambda n: group.store(raw_mail(n + 30), *mail), 10)
    )
    try:
        threads.start()
        answers = asyncio.run(callers())
        threads.join()
    finally:
        group.stop()
    try:
        assert all(new for _, new in answers[:31])  # type: ignore[misc]
        assert isinstance(answers[31], asyncio.CancelledError)
        # Landed all the same: the client that went away sends it again, and the spool
        # keeps it once (its Message-ID).
        assert sorted(m.raw for m in landing.waiting(100)) == sorted(
            raw_mail(n) for n in [*range(40), 98, 99]
        )
    finally:
        landing.close()

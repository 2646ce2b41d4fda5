"""The sender's record (outbound.sent_record): on SQLite the sender notes each outcome in a
file of its own and carries it into the outbox after each batch; a sender killed before
it carried them over sends nothing twice."""

from __future__ import annotations

import sqlite3
import stat
from datetime import timedelta

from helpers.mailstack import SmtpSink
from mail.test_outbound_outbox import FAST, notice, sender_for

from mailjudge.outbound import outbox
from mailjudge.outbound.sent_record import SentRecord, record_path
from mailjudge.store import db
from mailjudge.store.models import Outbox, utcnow


def record_for_db() -> SentRecord:
    database_file = db.sqlite_file()
    assert database_file is not None
    return SentRecord(record_path(database_file))


def test_an_outcome_comes_back_as_it_was_noted(sqlite_db: str) -> None:
    record = record_for_db()
    try:
        assert stat.S_IMODE(record.path.stat().st_mode) == 0o600
        when = utcnow()
        record.note(7, {"state": "sent", "attempts": 1, "last_error": "", "sent_at": when,
                        "raw": b"Subject: x\r\n\r\n", "relay_reply": "250 Ok"})  # fmt: skip
        record.note(8, {"state": "queued", "attempts": 2, "last_error": "refused",
                        "next_attempt_at": when + timedelta(minutes=1)})  # fmt: skip
        assert record.outcomes() == {
            7: {"state": "sent", "attempts": 1, "last_error": "", "sent_at": when,
                "raw": b"Subject: x\r\n\r\n", "relay_reply": "250 Ok"},
            8: {"state": "queued", "attempts": 2, "last_error": "refused",
                "next_attempt_at": when + timedelta(minutes=1)},
        }  # fmt: skip
        record.forget([7, 8])
        assert record.outcomes() == {}
    finally:
        record.close()


def test_flush_with_a_record_marks_every_mail_sent_and_leaves_the_record_empty(
    sqlite_db: str, smtp_sink: SmtpSink
) -> None:
    rows = [notice(n) for n in range(25)]  # more than one claimed batch
    record = record_for_db()
    try:
        with sender_for(smtp_sink) as sender:
            result = outbox.flush(sender, retry=FAST, record=record)
        assert (result.sent, result.retried, result.failed) == (25, 0, 0)
        assert record.outcomes() == {}
    finally:
        record.close()
    assert {r.state for r in Outbox.select()} == {"sent"}
    # The relay's words came through the record too, each naming its own mail.
    assert len({r.relay_reply for r in Outbox.select()}) == 25
    received = smtp_sink.wait_for(25)
    assert sorted(m.message["Message-ID"] for m in received) == sorted(r.message_id for r in rows)


def test_outcomes_a_killed_sender_noted_are_carried_over_and_nothing_is_sent_twice(
    sqlite_db: str, smtp_sink: SmtpSink
) -> None:
    """The sender handed three mails to the relay, noted them, and was killed before the
    fold: their lease runs out, yet the next sender sends none of them again."""
    rows = [notice(n) for n in range(3)]
    now = utcnow()
    claimed = outbox.claim_due(now, 10, FAST.lease)
    assert len(claimed) == 3
    record = record_for_db()
    for row in claimed:
        record.note(row.__data__["id"], {"state": "sent", "attempts": 1, "last_error": "",
                                         "sent_at": now})  # fmt: skip
    record.close()
    record = record_for_db()  # the next sender
    try:
        with sender_for(smtp_sink) as sender:
            result = outbox.flush(sender, now=now + timedelta(hours=1), record=record)
        assert result.sent == 0
    finally:
        record.close()
    assert [Outbox.get_by_id(r.__data__["id"]).state for r in rows] == ["sent"] * 3
    assert smtp_sink.mails == []


def test_folding_the_same_outcomes_twice_changes_nothing(sqlite_db: str) -> None:
    row = notice(1)
    record = record_for_db()
    try:
        when = utcnow()
        record.note(row.__data__["id"], {"state": "sent", "attempts": 1, "last_error": "",
                                         "sent_at": when})  # fmt: skip
        assert outbox.fold(record) == 1
        assert outbox.fold(record) == 0
        record.note(row.__data__["id"], {"state": "sent", "attempts": 1, "last_error": "",
                                         "sent_at": when})  # fmt: skip
        assert outbox.fold(record) == 1  # a fold the kill interrupted, done again
    finally:
        record.close()
    stored = Outbox.get_by_id(row.__data__["id"])
    assert (stored.state, stored.attempts, stored.sent_at) == ("sent", 1, when)


def test_a_record_file_of_an_earlier_sender_gains_the_relay_reply_and_keeps_its_outcomes(
    sqlite_db: str,
) -> None:
    """A sender killed before a fold, then upgraded: the file it left (without relay_reply)
    is brought up to date when opened, and its outcome still reaches the outbox."""
    row = notice(1)
    database_file = db.sqlite_file()
    assert database_file is not None
    when = utcnow()
    with sqlite3.connect(record_path(database_file)) as old:
        old.execute(
            "CREATE TABLE outcome (outbox_id INTEGER PRIMARY KEY, state TEXT NOT NULL,"
            " attempts INTEGER NOT NULL, last_error TEXT NOT NULL, sent_at TEXT,"
            " next_attempt_at TEXT, raw BLOB)"
        )
        old.execute(
            "INSERT INTO outcome VALUES (?, 'sent', 1, '', ?, NULL, NULL)",
            (row.__data__["id"], when.isoformat()),
        )
    old.close()
    record = record_for_db()
    try:
        assert outbox.fold(record) == 1
        record.note(8, {"state": "sent", "attempts": 1, "last_error": "", "relay_reply": "250"})
        assert record.outcomes()[8]["relay_reply"] == "250"
    finally:
        record.close()
    stored = Outbox.get_by_id(row.__data__["id"])
    assert (stored.state, stored.sent_at, stored.relay_reply) == ("sent", when, "")


def test_a_later_outcome_replaces_an_earlier_and_forget_drops_only_what_it_names(
    sqlite_db: str,
) -> None:
    record = record_for_db()
    try:
        record.note(3, {"state": "queued", "attempts": 1, "last_error": "421 busy"})
        record.note(4, {"state": "sent", "attempts": 1, "last_error": ""})
        record.note(3, {"state": "sent", "attempts": 2, "last_error": "", "raw": b"a\r\n"})
        assert record.outcomes() == {
            3: {"state": "sent", "attempts": 2, "last_error": "", "raw": b"a\r\n"},
            4: {"state": "sent", "attempts": 1, "last_error": ""},
        }
        record.forget([3])
        assert list(record.outcomes()) == [4]
    finally:
        record.close()


def test_an_entry_cut_short_by_a_crash_is_left_out_and_the_others_kept(sqlite_db: str) -> None:
    record = record_for_db()
    record.note(1, {"state": "sent", "attempts": 1, "last_error": "", "raw": b"one\r\n"})
    record.note(2, {"state": "sent", "attempts": 1, "last_error": "", "raw": b"two\r\n"})
    record.close()
    whole = record.path.read_bytes()
    second = whole.rindex(b'{"id":2')
    line_end = whole.index(b"\n", second) + 1
    # Cut in its JSON line, just after that line, and in the mail's bytes.
    for kept in (whole[: second + 5], whole[:line_end], whole[:-1]):
        record.path.write_bytes(kept)
        reopened = record_for_db()
        try:
            assert list(reopened.outcomes()) == [1]
        finally:
            reopened.close()

"""Backup and restore double nothing (issue 51, point 10): a judge restored from a backup
taken while its replies waited in the outbox sent them all again (328 of 400 answered
twice). The restore marks what the database it replaces shows as delivered, holds what
nothing can tell about, and says what the next start will send; `prune` refuses a
negative --days and shrinks the file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from helpers.e2e import JUDGE
from helpers.refusing_relay import Relay

from mailjudge.demo.mailroom import running_judge
from mailjudge.demo.sink import MailSink
from mailjudge.outbound.sent_record import SentRecord, record_path
from mailjudge.store import db
from mailjudge.store.models import RESTORE_HELD, InboundMessage, Outbox, utcnow
from mailjudge.tools import migrations
from mailjudge.tools.backup import backup, restore
from mailjudge.tools.running import serving

MAILJUDGE = str(Path(sys.executable).parent / "mailjudge")
QUICK_RETRIES = {"outbound_retry_first_seconds": "1", "outbound_retry_max_seconds": "1"}


def delivered_twice(sink: MailSink) -> dict[str, int]:
    counts = Counter(str(m.message["Message-ID"]) for m in sink.mails)
    return {message_id: n for message_id, n in counts.items() if n > 1}


def deferred() -> int:
    return Outbox.select().where((Outbox.state != "sent") & (Outbox.attempts > 0)).count()


def all_sent() -> bool:
    return not Outbox.select().where(Outbox.state != "sent").exists()


def test_a_restore_sends_nothing_already_delivered(
    tmp_path: Path, relay: Relay, cheap_scrypt: None
) -> None:
    """A judge answers mail; a backup is taken while four replies wait (the relay refuses
    for a while); they go out, and more mail is answered and sent; the judge is stopped,
    the backup restored and the judge started again: no reply reaches the relay twice."""
    path = tmp_path / "judge.db"
    url = f"sqlite:///{path}"
    with running_judge(path, relay, JUDGE, **QUICK_RETRIES) as h:
        for n in range(3):
            assert "HELP" in h.command(f"early{n}@players.test", "HELP")
        relay.answer = "451 4.3.0 Try again later"
        for n in range(4):
            h.send(f"waiting{n}@players.test", "HELP")
        h.wait_until(lambda: deferred() == 4, what="four replies deferred")
        backup(url, tmp_path / "taken-while-waiting.db")
        relay.answer = None
        h.wait_until(lambda: len(relay.mails) == 7 and all_sent(), what="the four replies")
        for n in range(3):
            assert "HELP" in h.command(f"later{n}@players.test", "HELP")
        h.wait_until(all_sent)
    said = restore(url, tmp_path / "taken-while-waiting.db", force=True)
    assert "4 mails the backup had waiting were delivered (or given up) since" in said
    assert "the judge sends 0 mails the backup had waiting, to 0 addresses" in said
    with running_judge(path, relay, JUDGE, **QUICK_RETRIES) as h:
        # One more mail answered: the sender has been round the outbox.
        assert "HELP" in h.command("after@players.test", "HELP")
        h.wait_until(all_sent)
    assert len(relay.mails) == 3 + 4 + 3 + 1
    assert delivered_twice(relay) == {}


def test_outcomes_in_the_senders_record_count_too(sqlite_db: str, tmp_path: Path) -> None:
    """A sender killed before it carried its last outcomes into the database leaves them
    in its record beside it (outbound.sent_record): those mails went too."""
    path = Path(sqlite_db.removeprefix("sqlite:///"))
    gone = Outbox.create(to_addrs="a@players.test", raw=b"x", message_id="<gone@judge.test>",
                         state="sending")  # fmt: skip
    Outbox.create(to_addrs="b@players.test", raw=b"x", message_id="<waits@judge.test>")
    backup(sqlite_db, tmp_path / "b.db")
    record = SentRecord(record_path(path))
    record.note(int(gone.id), {"state": "sent", "attempts": 1, "last_error": "",
                               "sent_at": utcnow(), "relay_reply": "250 ok"})  # fmt: skip
    record.close()
    db.close()
    said = restore(sqlite_db, tmp_path / "b.db", force=True)
    assert "1 mails the backup had waiting were delivered" in said
    assert "the judge sends 1 mails the backup had waiting, to 1 addresses" in said
    db.connect(sqlite_db)
    assert Outbox.get(Outbox.message_id == "<gone@judge.test>").state == "sent"
    assert Outbox.get(Outbox.message_id == "<waits@judge.test>").state == "queued"


def test_with_nothing_to_tell_the_waiting_mail_is_held(
    tmp_path: Path, relay: Relay, cheap_scrypt: None
) -> None:
    """Restored where no database was (the machine died): the backup's waiting mail is
    held, status says so, and `mailjudge release-held` lets it go."""
    first, second = tmp_path / "old" / "judge.db", tmp_path / "new" / "judge.db"
    with running_judge(first, relay, JUDGE, **QUICK_RETRIES) as h:
        relay.answer = "451 4.3.0 Try again later"
        for n in range(2):
            h.send(f"waiting{n}@players.test", "HELP")
        h.wait_until(lambda: deferred() == 2, what="two replies deferred")
        backup(f"sqlite:///{first}", tmp_path / "b.db")
    said = restore(f"sqlite:///{second}", tmp_path / "b.db")
    assert "2 mails to send and 0 to answer are held, not sent" in said
    assert "mailjudge release-held" in said
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env["MAILJUDGE_DATABASE_URL"] = f"sqlite:///{second}"
    shown = subprocess.run([MAILJUDGE, "status"], env=env, capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    assert "held at a restore: 2 to send, 0 to answer" in shown.stdout
    assert RESTORE_HELD not in shown.stdout.partition("Last errors:")[2]
    relay.answer = None
    with running_judge(second, relay, JUDGE, **QUICK_RETRIES) as h:
        assert "HELP" in h.command("after@players.test", "HELP")
        assert len(relay.mails) == 1  # held: not sent
        released = subprocess.run([MAILJUDGE, "release-held"], env=env, capture_output=True,
                                  text=True, timeout=120)  # fmt: skip
        assert released.stdout.startswith("2 mails to send and 0 to answer released")
        h.judge.send.set()
        h.wait_until(lambda: len(relay.mails) == 3, what="the released mail")
    assert {m.rcpt_tos[0] for m in relay.mails} == {
        "after@players.test", "waiting0@players.test", "waiting1@players.test",
    }  # fmt: skip


@pytest.fixture
def scratch_database(postgres_server: str) -> Iterator[str]:
    """A new PostgreSQL database of its own (pg_restore replaces a whole database)."""
    name = f"mailjudge_restore_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(postgres_server)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        yield urlunsplit(urlsplit(postgres_server)._replace(path=f"/{name}"))
    finally:
        db.close()
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def test_postgresql_restore_marks_what_went(
    scratch_database: str, tmp_path: Path, cheap_scrypt: None
) -> None:
    url = scratch_database
    db.connect(url)
    migrations.upgrade()
    for n in range(3):
        Outbox.create(to_addrs=f"p{n}@players.test", raw=b"x", message_id=f"<m{n}@judge.test>")
    InboundMessage.create(message_id="<in@players.test>", body_hash="h", raw=b"HELP")
    backup(url, tmp_path / "judge.dump")
    Outbox.update(state="sent", sent_at=utcnow(), relay_reply="250 ok").where(
        Outbox.message_id.in_(["<m0@judge.test>", "<m1@judge.test>"])
    ).execute()
    InboundMessage.update(state="done", processed_at=utcnow()).execute()
    db.close()
    said = restore(url, tmp_path / "judge.dump", force=True)
    assert "2 mails the backup had waiting were delivered" in said
    assert "1 mails the backup had waiting for an answer were answered since" in said
    assert "the judge sends 1 mails the backup had waiting, to 1 addresses, and answers 0" in said
    db.connect(url)
    states = {row.message_id: (row.state, row.relay_reply) for row in Outbox.select()}
    assert states == {"<m0@judge.test>": ("sent", "250 ok"), "<m1@judge.test>": ("sent", "250 ok"),
                      "<m2@judge.test>": ("queued", "")}  # fmt: skip
    assert InboundMessage.get().state == "done"
    tables = db.database_proxy.get_tables()
    assert not [t for t in tables if t.startswith("mailjudge_restore")]


def run(args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env["MAILJUDGE_DATABASE_URL"] = url
    return subprocess.run([MAILJUDGE, *args], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_prune_refuses_a_negative_number_and_shrinks_the_file(
    sqlite_db: str, tmp_path: Path
) -> None:
    path = Path(sqlite_db.removeprefix("sqlite:///"))
    old = utcnow() - timedelta(days=40)
    with db.database_proxy.atomic():
        for n in range(300):
            Outbox.create(to_addrs="p@players.test", raw=b"Subject: x\r\n\r\n" + b"x" * 20_000,
                          state="sent",
                          sent_at=old, message_id=f"<old{n}@judge.test>")  # fmt: skip
    db.close()
    refused = run(["prune", "--days", "-3"], sqlite_db)
    assert refused.returncode == 2 and refused.stderr.strip() == (
        "mailjudge prune: --days -3 is negative; write how many days sent mail keeps its "
        "whole text, 0 or more (--days 30)"
    )
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    before = path.stat().st_size
    with serving(sqlite_db):  # a judge runs: the file is not shrunk under it
        done = run(["prune"], sqlite_db)
    assert done.returncode == 0, done.stderr
    assert "300 sent mails older than 30 days kept their headers" in done.stdout
    assert "not shrunk while the judge runs" in done.stdout
    done = run(["prune"], sqlite_db)
    assert done.stdout.splitlines()[1].startswith(f"{path} shrunk from ")
    assert path.stat().st_size < before // 4

"""What a restore does about the mail the backup still had to send or to answer.

A backup taken while replies wait in the outbox holds them as waiting; by the time it is
restored most went out long ago. Started on it, a judge sent them all again (328 of 400
answers twice in one trial). So before the database is replaced, `restore` asks the
database being replaced (and, on SQLite, the sender's record of outcomes beside it: the
last ones not yet carried into the database) what became of each: a mail it shows as sent
or given up is marked so in the restored database, a mail waiting for an answer that it
shows as answered is marked answered (what that mail did, its orders or its press, is not
in the backup: the players send it again). The rest is sent, or answered, at the next
start, and the restore says how much and to how many addresses.

When nothing can tell (the database replaced is gone, or holds no judge), the waiting mail
of the backup is held instead: outgoing mail marked failed and incoming mail shunted, each
with RESTORE_HELD before its words, until `mailjudge release-held` lets them go (or for
ever: some may have been delivered already).

On SQLite the backup is read first and only its waiting mails are looked up in the
database being replaced. On PostgreSQL the backup cannot be read before it is restored, so
what the database being replaced knows is kept in two tables of the restore's own
(KNOWN_OUT, KNOWN_IN; pg_restore --clean leaves tables not in the dump alone), used once
the backup is in, then dropped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

from mailjudge.outbound.sent_record import SentRecord, record_path
from mailjudge.store import restore as store_restore
from mailjudge.store.db import database_proxy
from mailjudge.store.models import RESTORE_HELD, InboundMessage, Outbox, utcnow

WAITING_OUT, WAITING_IN = store_restore.WAITING_OUT, store_restore.WAITING_IN
KNOWN_OUT = "mailjudge_restore_known_out"
KNOWN_IN = "mailjudge_restore_known_in"
HOLD_NOTE = (
    f"{RESTORE_HELD}the backup had it waiting and nothing tells whether it was dealt with "
    "since; mailjudge release-held lets it go"
)


@dataclass
class Settled:
    """What the restore did about the backup's waiting mail, for the operator."""

    marked_sent: int = 0  # delivered (or given up) since the backup: not sent again
    marked_answered: int = 0  # answered since the backup: not answered again
    to_send: int = 0  # sent at the next start
    addresses: set[str] = field(default_factory=set)  # ... to these
    to_answer: int = 0  # answered at the next start
    held_out: int = 0  # nobody could tell: held
    held_in: int = 0

    def lines(self) -> list[str]:
        said = []
        if self.held_out or self.held_in:
            said.append(
                f"Nothing tells what became of the mail the backup had waiting (the database "
                f"replaced is gone or holds no judge): {self.held_out} mails to send and "
                f"{self.held_in} to answer are held, not sent: some may have gone already. "
                "`mailjudge release-held` lets them go; left alone, they stay held."
            )
        if self.marked_sent:
            said.append(
                f"{self.marked_sent} mails the backup had waiting were delivered (or given up) "
                "since: marked so, not sent again."
            )
        if self.marked_answered:
            said.append(
                f"{self.marked_answered} mails the backup had waiting for an answer were "
                "answered since: not answered again; what they did after the backup was "
                "taken is not in it (their senders must send it again)."
            )
        said.append(
            f"At the next start the judge sends {self.to_send} mails the backup had waiting, "
            f"to {len(self.addresses)} addresses, and answers {self.to_answer} mails."
        )
        return said


def release_held() -> tuple[int, int]:
    """`mailjudge release-held`: the mail a restore held goes (outgoing) and is answered
    (incoming) at the judge's next turn; how many of each. On the bound database."""
    with database_proxy.atomic():
        out = (
            Outbox.update(state="queued", last_error="", next_attempt_at=utcnow())
            .where((Outbox.state == "failed") & Outbox.last_error.startswith(RESTORE_HELD))
            .execute()
        )
        inbound = (
            InboundMessage.update(state="queued", error="", attempts=0, claimed_at=None)
            .where(
                (InboundMessage.state == "shunted") & InboundMessage.error.startswith(RESTORE_HELD)
            )
            .execute()
        )
    return int(out), int(inbound)


def held_counts() -> tuple[int, int]:
    """How many mails out and in a restore holds (for mailjudge status)."""
    out = Outbox.select().where(
        (Outbox.state == "failed") & Outbox.last_error.startswith(RESTORE_HELD)
    )
    inbound = InboundMessage.select().where(
        (InboundMessage.state == "shunted") & InboundMessage.error.startswith(RESTORE_HELD)
    )
    return out.count(), inbound.count()


# -- SQLite ------------------------------------------------------------------------------


@dataclass
class Known:
    """What the SQLite database being replaced says of the backup's waiting mail: outbox
    columns by Message-ID; an inbound mail's state and when, by its identity."""

    out: dict[str, dict[str, Any]]
    inbound: dict[tuple[str | None, str], tuple[str, Any, str]]


def sqlite_known(backup: Path, replaced: Path) -> Known | None:
    """Read before the restore: None when the database replaced cannot tell anything."""
    if not replaced.is_file():
        return None
    waiting_out, waiting_in = _sqlite_waiting(backup)
    try:  # read and write: it is replaced next, and a WAL file may need recovering
        live = sqlite3.connect(replaced, timeout=30)
    except sqlite3.Error:
        return None
    try:
        if not store_restore.has_outbox(live):
            return None
        out = _sqlite_final_out(live, [message_id for message_id, _ in waiting_out])
        out.update(_record_outcomes(replaced, live, {m for m, _ in waiting_out} - set(out)))
        inbound = _sqlite_final_in(live, waiting_in)
    except sqlite3.Error:
        return None
    finally:
        live.close()
    return Known(out, inbound)


def sqlite_settle(restored: Path, known: Known | None) -> Settled:
    """Mark or hold the restored database's waiting mail; what was done."""
    settled = Settled()
    connection = sqlite3.connect(restored, timeout=30)
    try:
        with connection:
            if known is None:
                settled.held_out, settled.held_in = store_restore.hold_waiting(
                    connection, HOLD_NOTE
                )
            else:
                # A backup of an older schema may lack a column the database replaced has.
                columns = set(store_restore.columns_of(connection, "outbox"))
                out = {
                    m: {c: v for c, v in o.items() if c in columns} for m, o in known.out.items()
                }
                settled.marked_sent = _sqlite_mark_out(connection, out)
                settled.marked_answered = _sqlite_mark_in(connection, known.inbound)
            to_send, settled.to_answer = store_restore.still_waiting(connection)
            _still_waiting(settled, to_send)
    finally:
        connection.close()
    return settled


def _sqlite_waiting(
    backup: Path,
) -> tuple[list[tuple[str, int]], list[tuple[str | None, str]]]:
    connection = sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return store_restore.waiting_out(connection), store_restore.waiting_in(connection)
    finally:
        connection.close()


# The outbox columns that say what became of a mail, carried into the restored database.
_OUTCOME = ("state", "attempts", "last_error", "sent_at", "relay_reply")


def _sqlite_final_out(
    live: sqlite3.Connection, message_ids: list[str]
) -> dict[str, dict[str, Any]]:
    columns = store_restore.columns_of(live, "outbox")
    kept = [c for c in _OUTCOME if c in columns]
    found: dict[str, dict[str, Any]] = {}
    for chunk in _chunks(message_ids, 500):
        for row in store_restore.finished_out(live, kept, chunk):
            found[str(row[0])] = dict(zip(kept, row[1:], strict=True))
    return found


def _record_outcomes(
    replaced: Path, live: sqlite3.Connection, message_ids: set[str]
) -> dict[str, dict[str, Any]]:
    """Outcomes the sender noted in its record (outbound.sent_record) and had not yet
    carried into the database replaced, by Message-ID (the record names mails by their
    number in that database)."""
    path = record_path(replaced)
    if not message_ids or not path.is_file():
        return {}
    record = SentRecord(path)
    try:
        outcomes = record.outcomes()
    finally:
        record.close()
    final = {number: o for number, o in outcomes.items() if o.get("state") in ("sent", "failed")}
    found: dict[str, dict[str, Any]] = {}
    for chunk in _chunks(sorted(final), 500):
        for number, message_id in store_restore.message_ids_of(live, chunk):
            if message_id in message_ids:
                outcome = final[int(number)]
                found[str(message_id)] = {c: _cell(outcome[c]) for c in _OUTCOME if c in outcome}
    return found


def _sqlite_final_in(
    live: sqlite3.Connection, waiting: list[tuple[str | None, str]]
) -> dict[tuple[str | None, str], tuple[str, Any, str]]:
    found: dict[tuple[str | None, str], tuple[str, Any, str]] = {}
    for message_id, body_hash in waiting:
        row = store_restore.finished_in(live, message_id, body_hash)
        if row is not None:
            found[message_id, body_hash] = row
    return found


def _sqlite_mark_out(connection: sqlite3.Connection, known: dict[str, dict[str, Any]]) -> int:
    marked = 0
    for message_id, outcome in known.items():
        marked += store_restore.mark_out(connection, message_id, outcome)
    return marked


def _sqlite_mark_in(
    connection: sqlite3.Connection, known: dict[tuple[str | None, str], tuple[str, Any, str]]
) -> int:
    marked = 0
    for (message_id, body_hash), finished in known.items():
        marked += store_restore.mark_in(connection, message_id, body_hash, finished)
    return marked


# -- PostgreSQL --------------------------------------------------------------------------


def pg_keep_known(url: str) -> None:
    """Before pg_restore: what the database being replaced knows, in tables of the
    restore's own (see the module's note)."""
    with _pg(url) as cursor:
        store_restore.pg_drop(cursor, (KNOWN_OUT, KNOWN_IN))
        kept = [c for c in _OUTCOME if c in store_restore.pg_columns(cursor, "outbox")]
        store_restore.pg_keep_finished(cursor, KNOWN_OUT, KNOWN_IN, kept)


def pg_drop_known(url: str) -> None:
    with _pg(url) as cursor:
        store_restore.pg_drop(cursor, (KNOWN_OUT, KNOWN_IN))


def pg_settle(url: str, known: bool) -> Settled:
    """After pg_restore: mark (from the tables pg_keep_known made) or hold the waiting
    mail, then drop those tables."""
    settled = Settled()
    with _pg(url) as cursor:
        if known:
            both = store_restore.pg_columns(cursor, "outbox") & store_restore.pg_columns(
                cursor, KNOWN_OUT
            )
            columns = [column for column in _OUTCOME if column in both]
            settled.marked_sent, settled.marked_answered = store_restore.pg_mark_from_kept(
                cursor, KNOWN_OUT, KNOWN_IN, columns
            )
            store_restore.pg_drop(cursor, (KNOWN_OUT, KNOWN_IN))
        else:
            settled.held_out, settled.held_in = store_restore.pg_hold_waiting(cursor, HOLD_NOTE)
        to_send, settled.to_answer = store_restore.pg_still_waiting(cursor)
        _still_waiting(settled, to_send)
    return settled


class _pg:
    """A cursor on its own connection, committed on leaving (rolled back on an error)."""

    def __init__(self, url: str) -> None:
        self.connection = psycopg.connect(url, connect_timeout=10)

    def __enter__(self) -> Any:
        return self.connection.cursor()

    def __exit__(self, kind: object, *rest: object) -> None:
        try:
            if kind is None:
                self.connection.commit()
            else:
                self.connection.rollback()
        finally:
            self.connection.close()


# -- both --------------------------------------------------------------------------------


def _still_waiting(settled: Settled, recipients: Iterable[str]) -> None:
    for to_addrs in recipients:
        settled.to_send += 1
        settled.addresses.update(a.lower() for a in str(to_addrs).split())


def _cell(value: Any) -> Any:
    """A value of the sender's record as SQLite stores the outbox's (naive UTC text)."""
    if isinstance(value, datetime):
        return str(value.astimezone(UTC).replace(tzinfo=None))
    return value


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]

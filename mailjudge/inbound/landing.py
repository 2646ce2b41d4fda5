"""The landing: where the listener keeps a mail the moment it arrives, in a small SQLite
file of its own beside the judge's database.

SQLite has one write lock for a whole database, and the worker holds it while it answers
a batch of mail: a listener storing straight into the spool waits for every batch, and
so do the SMTP clients waiting for their 250. The landing has its own lock, which only
the listener takes, so a mail is kept (and answered 250) at once. A mover then carries
landed mails into the spool in groups, whenever the spool's lock is free.

Nothing is lost or doubled on the way: a landed mail leaves the landing only after the
spool's commit that kept it; a crash in between leaves it to be moved again, and the
spool's unique indexes (Message-ID, or the identity hash of a mail without one) find it
there already, so it is kept once.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mailjudge.store import session, side_files
from mailjudge.store.db import side_file, sqlite_file


@dataclass(frozen=True)
class LandedMail:
    id: int
    message_id: str | None
    body_hash: str
    raw: bytes
    envelope_from: str
    envelope_to: list[str]
    source: str
    received_at: datetime


def landing_path(database_path: Path) -> Path:
    """The landing file of a judge's SQLite database: ``judge.db`` -> ``judge.db.landing``."""
    return database_path.with_name(database_path.name + ".landing")


class Landing:
    """The landing file, opened by one process (the listener's) and used from its
    threads."""

    @classmethod
    def beside_database(cls) -> Landing | None:
        """The landing of the open SQLite database; None on PostgreSQL, which has none."""
        database_file = sqlite_file()
        return cls(landing_path(database_file)) if database_file is not None else None

    def __init__(self, path: Path) -> None:
        self.path = path
        # It holds mails, passwords and all, until they move on: private, as the database.
        self._connection = side_file(path, side_files.LANDING_SCHEMA)
        self._lock = threading.Lock()  # one statement at a time on the one connection

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def land(
        self,
        mails: list[tuple[bytes, str, list[str], str]],
        identities: list[tuple[str | None, str]],
        now: datetime,
    ) -> list[int]:
        """Keep ``mails`` (raw, envelope sender, recipients, source) with their identities
        (Message-ID or None, hash: see spool.identity) in one commit; their landing
        numbers. Either all are kept or, on an error, none."""
        stamp = now.isoformat()
        rows = [
            (message_id, body_hash, raw, envelope_from, " ".join(envelope_to), source, stamp)
            for (raw, envelope_from, envelope_to, source), (message_id, body_hash) in zip(
                mails, identities, strict=True
            )
        ]
        with self._lock:
            numbers = side_files.land(self._connection, rows)
        return numbers

    def waiting(self, limit: int) -> list[LandedMail]:
        """The oldest landed mails, at most ``limit``."""
        with self._lock:
            rows = side_files.oldest_landed(self._connection, limit)
        return [
            LandedMail(row[0], row[1], row[2], bytes(row[3]), row[4], row[5].split(), row[6],
                       datetime.fromisoformat(row[7]))
            for row in rows
        ]  # fmt: skip

    def remove(self, mails: list[LandedMail]) -> None:
        """Forget mails the spool has kept. Each by its number and its body: two movers
        may have read the same mail, and in a landing file made before numbers were never
        reused, the second one's number may by then belong to a mail just landed, which
        must stay until it is moved."""
        with self._lock:
            side_files.forget_landed(self._connection, [(m.id, m.body_hash) for m in mails])

    def checkpoint(self) -> bool:
        """Copy the WAL into the file and empty it, without waiting for anyone: it still
        holds the mails moved on, passwords and all. True when it was emptied."""
        with self._lock:
            session.sqlite_busy_timeout(self._connection, 0)
            try:
                emptied = session.sqlite_checkpoint(self._connection)
            except sqlite3.OperationalError:
                emptied = False
            finally:
                session.sqlite_busy_timeout(self._connection, 10_000)
        return emptied

    def count(self) -> int:
        with self._lock:
            return side_files.landed_count(self._connection)

"""The statements of the small SQLite files a process keeps beside a SQLite judge's
database: the listener's landing (inbound.landing) and, from earlier releases, the
sender's record kept in SQLite (outbound.sent_record reads it once, to rewrite it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

LANDING_SCHEMA = """
CREATE TABLE IF NOT EXISTS landed (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    body_hash TEXT NOT NULL,
    raw BLOB NOT NULL,
    envelope_from TEXT NOT NULL,
    envelope_to TEXT NOT NULL,
    source TEXT NOT NULL,
    received_at TEXT NOT NULL
)
"""

# (message_id, body_hash, raw, envelope_from, envelope_to, source, received_at)
LandedRow = tuple[str | None, str, bytes, str, str, str, str]


def land(connection: sqlite3.Connection, rows: Sequence[LandedRow]) -> list[int]:
    """Keep ``rows`` in the landing in one commit; their numbers. All or, on an error,
    none."""
    cursor = connection.cursor()
    cursor.execute("BEGIN IMMEDIATE")
    try:
        numbers = []
        for row in rows:
            cursor.execute(
                "INSERT INTO landed (message_id, body_hash, raw, envelope_from,"
                " envelope_to, source, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            numbers.append(int(cursor.lastrowid or 0))
        cursor.execute("COMMIT")
    except BaseException:
        # SQLite has rolled back already after some errors (a full disk): a ROLLBACK then
        # fails, and its error would hide the one that says what happened.
        if connection.in_transaction:
            cursor.execute("ROLLBACK")
        raise
    return numbers


def oldest_landed(connection: sqlite3.Connection, limit: int) -> list[tuple[Any, ...]]:
    """(id, *LandedRow) of the ``limit`` oldest landed mails."""
    return connection.execute(
        "SELECT id, message_id, body_hash, raw, envelope_from, envelope_to, source,"
        " received_at FROM landed ORDER BY id LIMIT ?",
        (limit,),
    ).fetchall()


def forget_landed(connection: sqlite3.Connection, mails: Sequence[tuple[int, str]]) -> None:
    """Forget the landed mails of these (id, body hash)."""
    connection.executemany("DELETE FROM landed WHERE id = ? AND body_hash = ?", mails)


def landed_count(connection: sqlite3.Connection) -> int:
    return int(connection.execute("SELECT count(*) FROM landed").fetchone()[0])


def old_record_outcomes(
    connection: sqlite3.Connection, wanted: Sequence[str]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """A sender's record of an earlier release (a SQLite file): the columns of ``wanted``
    it has, after outbox_id, and every row of them."""
    has = [row[1] for row in connection.execute("PRAGMA table_info(outcome)")]
    columns = ["outbox_id", *(c for c in wanted if c in has)]
    rows = connection.execute(f"SELECT {', '.join(columns)} FROM outcome").fetchall()
    return columns, rows

"""The sender's record: what became of each mail handed to the relay, kept the moment the
relay answers, in a small SQLite file of the sender's own beside the judge's database.

The outbox must learn of every outcome as soon as the relay has answered, or a sender
killed in between hands the mail over again. On SQLite, writing it to the outbox means
taking the one write lock of the whole database, which the worker holds while it answers
a batch of mail: the sender would wait for every batch between two mails. The record has
a lock of its own; its outcomes are carried into the outbox a batch at a time (`fold`),
and again when a sender starts, so a sender killed before a fold loses none of them.
Folding twice writes the same values twice: harmless.
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from mailjudge.db import side_file, sqlite_file

# The outbox columns a send may change, and how each is kept here.
_COLUMNS = (
    "state", "attempts", "last_error", "sent_at", "next_attempt_at", "raw", "relay_reply"
)  # fmt: skip
_SCHEMA = """
CREATE TABLE IF NOT EXISTS outcome (
    outbox_id INTEGER PRIMARY KEY,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT NOT NULL,
    sent_at TEXT,
    next_attempt_at TEXT,
    raw BLOB,
    relay_reply TEXT
)
"""
# Columns added since the first record file: a file left by an earlier sender (it may hold
# outcomes a killed sender did not fold) gets them when it is opened.
_ADDED = {"relay_reply": "TEXT"}


def record_path(database_path: Path) -> Path:
    """``judge.db`` -> ``judge.db.sent``."""
    return database_path.with_name(database_path.name + ".sent")


class SentRecord:
    """The record file, used by the sender process alone."""

    @classmethod
    def beside_database(cls) -> SentRecord | None:
        """The record of the open SQLite database; None on PostgreSQL, which needs none."""
        database_file = sqlite_file()
        return cls(record_path(database_file)) if database_file is not None else None

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection = side_file(path, _SCHEMA)
        self._lock = threading.Lock()
        has = {row[1] for row in self._connection.execute("PRAGMA table_info(outcome)")}
        for column, kind in _ADDED.items():
            if column not in has:
                self._connection.execute(f"ALTER TABLE outcome ADD COLUMN {column} {kind}")

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def note(self, outbox_id: int, changes: dict[str, Any]) -> None:
        """Keep what became of outbox mail ``outbox_id`` (its new column values)."""
        unknown = set(changes) - set(_COLUMNS)
        if unknown:
            raise ValueError(f"the record keeps no {', '.join(sorted(unknown))}")
        values = [_to_cell(changes.get(column)) for column in _COLUMNS]
        with self._lock:
            self._connection.execute(
                f"INSERT OR REPLACE INTO outcome (outbox_id, {', '.join(_COLUMNS)})"
                f" VALUES (?, {', '.join('?' * len(_COLUMNS))})",
                [outbox_id, *values],
            )

    def outcomes(self) -> dict[int, dict[str, Any]]:
        """Every outcome not yet folded into the outbox: outbox id -> column values."""
        with self._lock:
            rows = self._connection.execute(
                f"SELECT outbox_id, {', '.join(_COLUMNS)} FROM outcome ORDER BY outbox_id"
            ).fetchall()
        found: dict[int, dict[str, Any]] = {}
        for outbox_id, *cells in rows:
            changes = {"state": cells[0], "attempts": cells[1], "last_error": cells[2]}
            for column, cell in zip(_COLUMNS[3:], cells[3:], strict=True):
                if cell is not None:
                    changes[column] = _from_cell(column, cell)
            found[int(outbox_id)] = changes
        return found

    def forget(self, outbox_ids: list[int]) -> None:
        """Drop outcomes the outbox now has."""
        marks = ", ".join("?" * len(outbox_ids))
        with self._lock:
            self._connection.execute(
                f"DELETE FROM outcome WHERE outbox_id IN ({marks})", outbox_ids
            )


def _to_cell(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _from_cell(column: str, cell: Any) -> Any:
    if column == "raw":
        return bytes(cell)
    if column == "relay_reply":
        return str(cell)
    return datetime.fromisoformat(cell)

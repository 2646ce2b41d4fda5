"""The sender's record: what became of each mail handed to the relay, kept the moment the
relay answers, in a small file of the sender's own beside the judge's database.

The outbox must learn of every outcome as soon as the relay has answered, or a sender
killed in between hands the mail over again. On SQLite, writing it to the outbox means
taking the one write lock of the whole database, which the worker holds while it answers
a batch of mail: the sender would wait for every batch between two mails. The record has
no lock to wait for; its outcomes are carried into the outbox a batch at a time (`fold`,
or with the sender's next claim), and again when a sender starts, so a sender killed
before a fold loses none of them. Folding twice writes the same values twice: harmless.

The file is a log: each outcome is appended by one write (a line of JSON, then the mail's
bytes when it keeps them), which the system holds once the call returns, as it held
SQLite's commit of the earlier record (WAL, synchronous=normal) that cost three times as
much a mail. A later outcome of the same mail replaces an earlier one; an unfinished last
entry (the machine stopped in the middle of a write) is left out. A file of the earlier
kind (SQLite) is read once and rewritten as a log.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from mailjudge.store import side_files
from mailjudge.store.db import private_file, sqlite_file

# The outbox columns a send may change, and how each is kept here.
_COLUMNS = (
    "state", "attempts", "last_error", "sent_at", "next_attempt_at", "raw", "relay_reply"
)  # fmt: skip
_KEPT = frozenset(_COLUMNS)
_TIMES = ("sent_at", "next_attempt_at")
# The first bytes of an SQLite file: the record as earlier senders kept it.
_SQLITE = b"SQLite format 3\x00"


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
        private_file(path)
        _rewrite_earlier_kind(path)
        self._fd = os.open(path, os.O_RDWR | os.O_APPEND)
        self._lock = threading.Lock()
        # What this process knows the file holds: the sender alone writes it, so once every
        # outcome read has been forgotten, with no note since, it holds none and the next
        # claim need not look (a file just opened may hold a killed sender's outcomes).
        self._notes = 0
        self._read: tuple[int, set[int]] | None = None
        self._empty = False

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def note(self, outbox_id: int, changes: dict[str, Any]) -> None:
        """Keep what became of outbox mail ``outbox_id`` (its new column values)."""
        unknown = changes.keys() - _KEPT
        if unknown:
            raise ValueError(f"the record keeps no {', '.join(sorted(unknown))}")
        entry = _entry(outbox_id, changes)
        with self._lock:
            self._notes += 1
            self._empty = False
            _write_all(self._fd, entry)

    def outcomes(self) -> dict[int, dict[str, Any]]:
        """Every outcome not yet folded into the outbox: outbox id -> column values."""
        with self._lock:
            if self._empty:
                return {}
            found = _read_log(_whole(self._fd))
            self._read = (self._notes, set(found))
            self._empty = not found
        return dict(sorted(found.items()))

    def forget(self, outbox_ids: list[int]) -> None:
        """Drop outcomes the outbox now has."""
        gone = set(outbox_ids)
        with self._lock:
            kept = {k: v for k, v in _read_log(_whole(self._fd)).items() if k not in gone}
            # Written again whole: it is emptied after every fold, so this is nearly always
            # a truncation to nothing.
            os.ftruncate(self._fd, 0)
            if kept:
                _write_all(self._fd, b"".join(_entry(k, v) for k, v in kept.items()))
            read = self._read
            self._empty = not kept or (
                read is not None and read[0] == self._notes and read[1] <= gone
            )


def _entry(outbox_id: int, changes: dict[str, Any]) -> bytes:
    """One outcome as the log keeps it: a JSON line, then the mail's bytes if any."""
    head: dict[str, Any] = {"id": outbox_id}
    raw = changes.get("raw")
    for column in _COLUMNS:
        value = changes.get(column)
        if value is None or column == "raw":
            continue
        head[column] = value.isoformat() if isinstance(value, datetime) else value
    if raw is not None:
        head["raw"] = len(raw)
    line = json.dumps(head, separators=(",", ":")).encode() + b"\n"
    return line + bytes(raw) if raw is not None else line


def _read_log(data: bytes) -> dict[int, dict[str, Any]]:
    """The outcomes of a log, the last of each mail; an unfinished last entry left out."""
    found: dict[int, dict[str, Any]] = {}
    at = 0
    while at < len(data):
        end = data.find(b"\n", at)
        if end < 0:
            break
        try:
            head = json.loads(data[at:end])
        except ValueError:
            break
        at = end + 1
        changes = {"state": head["state"], "attempts": head["attempts"],
                   "last_error": head["last_error"]}  # fmt: skip
        for column in _TIMES:
            if column in head:
                changes[column] = datetime.fromisoformat(head[column])
        if "relay_reply" in head:
            changes["relay_reply"] = str(head["relay_reply"])
        if "raw" in head:
            size = int(head["raw"])
            if at + size > len(data):
                break
            changes["raw"], at = data[at : at + size], at + size
        found[int(head["id"])] = changes
    return found


def _whole(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _rewrite_earlier_kind(path: Path) -> None:
    """A record an earlier sender kept in SQLite becomes a log holding its outcomes."""
    with path.open("rb") as file:
        if file.read(len(_SQLITE)) != _SQLITE:
            return
    connection = sqlite3.connect(path)
    try:
        columns, rows = side_files.old_record_outcomes(connection, _COLUMNS)
    finally:
        connection.close()
    entries = []
    for row in rows:
        cells = dict(zip(columns[1:], row[1:], strict=True))
        changes = {c: _from_cell(c, v) if c in _TIMES else v for c, v in cells.items()}
        entries.append(_entry(int(row[0]), changes))
    fresh = path.with_name(path.name + ".new")
    private_file(fresh)
    fresh.write_bytes(b"".join(entries))
    os.replace(fresh, path)
    for leftover in (f"{path}-wal", f"{path}-shm"):
        Path(leftover).unlink(missing_ok=True)


def _from_cell(column: str, cell: Any) -> Any:
    return datetime.fromisoformat(cell) if cell is not None else None

"""A running judge marks the database it serves, so that `restore` refuses while one runs.

SQLite: every `mailjudge serve` holds a shared lock (flock) on ``<database>.serving``
beside the database for as long as it runs; `restore` takes that lock exclusively without
waiting, so it fails while any judge holds it, and a judge started during a restore is
refused until the restore is done. The kernel drops the lock with the process, so a judge
that was killed leaves no stale mark.

PostgreSQL: the same with a session-level advisory lock on the judge's own key, shared by
each serving judge and exclusive for a restore, held by a connection of its own.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg2
from peewee import SqliteDatabase

from mailjudge.db import open_database

# pg_advisory_lock's key for "a judge serves this database": any fixed number of our own.
ADVISORY_KEY = 0x6D6A_7365_7276  # "mjserv"


class JudgeRunning(RuntimeError):
    """A judge serves the database (or a restore holds it); the message says what to do."""


def mark_path(database_file: Path) -> Path:
    return database_file.with_name(database_file.name + ".serving")


@contextmanager
def serving(url: str) -> Iterator[None]:
    """Held by `mailjudge serve` while it runs."""
    with _held(url, exclusive=False):
        yield


@contextmanager
def no_judge_running(url: str) -> Iterator[None]:
    """Held by `restore`: refuses (JudgeRunning) while any judge serves `url`."""
    with _held(url, exclusive=True):
        yield


@contextmanager
def _held(url: str, exclusive: bool) -> Iterator[None]:
    database = open_database(url)
    if isinstance(database, SqliteDatabase):
        if database.database == ":memory:":
            yield
            return
        with _flock(Path(database.database), exclusive):
            yield
    else:
        with _advisory(url, exclusive):
            yield


def _refusal(where: str, exclusive: bool) -> JudgeRunning:
    if exclusive:
        return JudgeRunning(
            f"a judge is running on {where}; stop it first (systemctl stop mailjudge, or "
            "the serve command's own stop), then restore"
        )
    return JudgeRunning(f"a restore is under way on {where}; start the judge when it is done")


@contextmanager
def _flock(database_file: Path, exclusive: bool) -> Iterator[None]:
    path = mark_path(database_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _refusal(str(database_file), exclusive) from None
        yield
    finally:
        os.close(fd)  # releases the lock


@contextmanager
def _advisory(url: str, exclusive: bool) -> Iterator[None]:
    try:
        connection = psycopg2.connect(url, connect_timeout=10, application_name="mailjudge")
    except psycopg2.Error as err:
        raise JudgeRunning(f"cannot reach the database: {' '.join(str(err).split())}") from err
    try:
        connection.autocommit = True
        with connection.cursor() as cursor:
            take = "pg_try_advisory_lock" if exclusive else "pg_try_advisory_lock_shared"
            cursor.execute(f"SELECT {take}(%s)", (ADVISORY_KEY,))
            row = cursor.fetchone()
        if not (row and row[0]):
            raise _refusal("this PostgreSQL database", exclusive)
        yield
    finally:
        connection.close()  # ends the session, and its advisory lock with it

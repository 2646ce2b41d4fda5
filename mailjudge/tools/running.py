"""A running judge marks the database it serves, so that `restore` refuses while one runs,
and a second judge on one SQLite file is refused.

SQLite: `mailjudge serve` holds an exclusive lock (flock) on ``<database>.serving`` beside
the database for as long as it runs, and writes into that file who holds it (``serve`` or
``restore``, and the process id). A second `serve` on the same file is refused with the
reason: beside a SQLite database a judge keeps files of its own (the listener's landing,
the sender's record of outcomes) that a second judge would take for its own, and SQLite
has one writer at a time anyway; several judges share a PostgreSQL database instead.
`restore` takes the same lock without waiting, so it fails while a judge holds it, and a
judge started during a restore is refused until the restore is done. The kernel drops the
lock with the process, so a judge that was killed leaves no stale mark. Commands that only
read (`status`, `web`, `backup`, `export`) take no lock and work beside a running judge.

PostgreSQL: a session-level advisory lock on the judge's own key, shared by each serving
judge (any number may serve one database) and exclusive for a restore, held by a
connection of its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from peewee import SqliteDatabase

from mailjudge.store import tools
from mailjudge.store.db import open_database

log = logging.getLogger(__name__)

# pg_advisory_lock's key for "a judge serves this database": any fixed number of our own.
ADVISORY_KEY = 0x6D6A_7365_7276  # "mjserv"


class JudgeRunning(RuntimeError):
    """A judge serves the database (or a restore holds it); the message says what to do."""


def mark_path(database_file: Path) -> Path:
    return database_file.with_name(database_file.name + ".serving")


@contextmanager
def serving(url: str) -> Iterator[None]:
    """Held by `mailjudge serve` while it runs: alone on a SQLite database, shared with
    the other judges on a PostgreSQL one."""
    with _held(url, "serve"):
        yield


@contextmanager
def no_judge_running(url: str, role: str = "restore") -> Iterator[None]:
    """Held by `restore` (and `prune` while it shrinks a SQLite file): refuses
    (JudgeRunning) while any judge serves `url`, and refuses a judge meanwhile."""
    with _held(url, role):
        yield


@contextmanager
def _held(url: str, role: str) -> Iterator[None]:
    database = open_database(url)
    if isinstance(database, SqliteDatabase):
        if database.database == ":memory:":
            yield
            return
        with _flock(Path(database.database), role):
            yield
    else:
        with _advisory(url, exclusive=role != "serve"):
            yield


def _refusal(where: str, role: str, holder: str = "") -> JudgeRunning:
    """Why ``role`` (serve or restore) cannot have the database; ``holder`` is what the
    mark file says of whoever has it ("serve 1234"), when it says anything."""
    held_by, _, pid = holder.partition(" ")
    by = f" (process {pid})" if pid.strip().isdigit() else ""
    if role != "serve":
        return JudgeRunning(
            f"a judge is running on {where}{by}; stop it first (systemctl stop mailjudge, "
            f"or the serve command's own stop), then {role}"
        )
    if held_by == "prune":
        return JudgeRunning(
            f"mailjudge prune is shrinking {where}{by}; start the judge when it is done"
        )
    if held_by == "serve":
        return JudgeRunning(
            f"another judge is serving {where}{by}: one judge at a time on a SQLite database "
            "(each keeps files of its own beside it); stop that one first, or move to "
            "PostgreSQL to run several"
        )
    return JudgeRunning(f"a restore is under way on {where}; start the judge when it is done")


@contextmanager
def _flock(database_file: Path, role: str) -> Iterator[None]:
    path = mark_path(database_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 100, 0).decode("utf-8", "replace").strip()
            raise _refusal(str(database_file), role, holder) from None
        # Who holds it, for the refusal of whoever comes next.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{role} {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextmanager
def _advisory(url: str, exclusive: bool) -> Iterator[None]:
    shared = not exclusive
    try:
        connection = _take_advisory(url, shared)
    except psycopg.Error as err:
        raise JudgeRunning(f"cannot reach the database: {' '.join(str(err).split())}") from err
    if connection is None:
        raise _refusal("this PostgreSQL database", "restore" if exclusive else "serve")
    keeper = None if exclusive else _MarkKeeper(url, shared, connection)
    try:
        yield
    finally:
        if keeper is not None:
            connection = keeper.stop()
        connection.close()  # ends the session, and its advisory lock with it


def _take_advisory(url: str, shared: bool) -> Any:
    """A connection of its own holding the lock; None when another holds it first."""
    connection = psycopg.connect(url, connect_timeout=10, application_name="mailjudge")
    connection.autocommit = True
    with connection.cursor() as cursor:
        taken = tools.try_advisory_lock(cursor, ADVISORY_KEY, shared)
    if taken:
        return connection
    connection.close()
    return None


class _MarkKeeper:
    """A serving judge's mark on PostgreSQL lives with its session: a restart of the
    server or a failover ends it, and a restore would then find no judge running. This
    thread looks at the session every few seconds and, once it is gone, takes the mark
    again on a new one as soon as the server answers."""

    EVERY = 5.0

    def __init__(self, url: str, shared: bool, connection: Any) -> None:
        self.url, self.shared, self.connection = url, shared, connection
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mailjudge-mark", daemon=True)
        self._thread.start()

    def stop(self) -> Any:
        self._stop.set()
        self._thread.join(timeout=15)
        return self.connection

    def _run(self) -> None:
        while not self._stop.wait(self.EVERY):
            try:
                with self.connection.cursor() as cursor:
                    tools.ping(cursor)
                continue
            except psycopg.Error:
                pass
            with contextlib.suppress(psycopg.Error):
                self.connection.close()
            self._take_again()

    def _take_again(self) -> None:
        while not self._stop.is_set():
            try:
                connection = _take_advisory(self.url, self.shared)
            except psycopg.Error:
                self._stop.wait(self.EVERY)  # still away (the judge's loops say so)
                continue
            if connection is None:
                log.error("a restore holds the database this judge serves: stop the judge "
                          "(it goes on meanwhile) or the restore")  # fmt: skip
                self._stop.wait(self.EVERY)
                continue
            self.connection = connection
            log.info("the mark that a judge serves this database is taken again")
            return

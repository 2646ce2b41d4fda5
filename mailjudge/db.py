"""One database URL, SQLite or PostgreSQL, bound to the proxy every model uses.

`sqlite:///relative/path.db`, `sqlite:////absolute/path.db` and `sqlite:///:memory:`
open SQLite; `postgresql://user:password@host:port/dbname?option=value` opens
PostgreSQL, the query options going to psycopg2 as they are (for example
`sslmode=require`, or `options=-csearch_path%3Dschema` to work in one schema).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

import peewee
from peewee import (
    Database,
    DatabaseProxy,
    ExceptionWrapper,
    OperationalError,
    PostgresqlDatabase,
    Select,
    SqliteDatabase,
    _savepoint,
)

from mailjudge import db_writes


class _Proxy(DatabaseProxy):
    """The proxy every model uses. Its savepoints are named by their depth on SQLite, from
    a counter elsewhere: peewee names each from a fresh uuid4, which costs more than the
    SAVEPOINT statement itself, and an order mail takes several. A name only has to differ
    from the savepoints open around it."""

    def savepoint(self) -> Any:
        if isinstance(self.obj, SqliteDatabase):
            # Named by how deep it opens, so the names repeat from mail to mail: sqlite3
            # keeps each statement it has compiled by its text, and SAVEPOINT s1 compiled
            # once costs a third of one with a new name each time.
            return _Savepoint(self, f"s{getattr(_OPEN_SAVEPOINTS, 'depth', 0) + 1}")
        return _Savepoint(self, f"s{next(_SAVEPOINT_NUMBERS)}")


# How many savepoints this thread has open (its connection is its own, as peewee's are).
_OPEN_SAVEPOINTS = threading.local()


class _Savepoint(_savepoint):
    """On SQLite the three statements go straight to the connection: through peewee's
    execute_sql each cost more than SQLite's own work, and an order mail makes eight.
    Elsewhere (PostgreSQL's FewerRoundTrips holds them back) they go the usual way."""

    def _run(self, sql: str) -> None:
        database = self.db.obj
        if isinstance(database, SqliteDatabase):
            with _AS_PEEWEE_ERRORS:  # sqlite3's errors raised as peewee's, as before
                database.connection().execute(sql)  # type: ignore[no-untyped-call]
        else:
            database.execute_sql(sql)

    def __enter__(self) -> Any:
        entered = super().__enter__()
        _OPEN_SAVEPOINTS.depth = getattr(_OPEN_SAVEPOINTS, "depth", 0) + 1
        return entered

    def __exit__(self, *exc: Any) -> Any:
        try:
            return super().__exit__(*exc)
        finally:
            _OPEN_SAVEPOINTS.depth -= 1

    def _begin(self) -> None:
        self._run(f"SAVEPOINT {self.quoted_sid}")

    def commit(self, begin: bool = True) -> None:
        self._run(f"RELEASE SAVEPOINT {self.quoted_sid}")
        if begin:
            self._begin()

    def rollback(self, begin: bool = True) -> None:
        self._run(f"ROLLBACK TO SAVEPOINT {self.quoted_sid}")
        if begin:
            self._begin()


_SAVEPOINT_NUMBERS = itertools.count(1)
# sqlite3's errors as peewee's, as its execute_sql raises them
_AS_PEEWEE_ERRORS = ExceptionWrapper(peewee.EXCEPTIONS)  # type: ignore[attr-defined]
database_proxy = _Proxy()

# WAL lets readers go on while one process writes; the busy timeout makes a second
# writer wait for the lock instead of failing at once.
SQLITE_PRAGMAS: dict[str, object] = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": "normal",
    # What is deleted or overwritten is zeroed, not left in free space: a mail's stored
    # copy held its SIGNON password in clear until it was masked.
    "secure_delete": 1,
}

_URL_HELP = (
    "write sqlite:///path/to/judge.db (four slashes for an absolute path), "
    "sqlite:///:memory:, or postgresql://user@host:port/dbname"
)

_Query = TypeVar("_Query", bound=Select)


def open_database(url: str) -> Database:
    """A peewee database for `url`, not yet connected nor bound."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"database URL {url!r} has no scheme; {_URL_HELP}")
    if scheme == "sqlite":
        return _sqlite(url, rest)
    if scheme in ("postgresql", "postgres"):
        return _postgres(url)
    raise ValueError(f"database URL {url!r}: unknown kind {scheme!r}; {_URL_HELP}")


def connect(url: str) -> Database:
    """Open `url`, bind the models to it and connect now, so that a bad URL or an
    unreachable server shows at start-up rather than with the first mail."""
    database = open_database(url)
    database_proxy.initialize(database)
    database.connect(reuse_if_open=True)
    return database


def close() -> None:
    if database_proxy.obj is not None and not database_proxy.is_closed():
        database_proxy.close()


def is_postgres() -> bool:
    return isinstance(database_proxy.obj, PostgresqlDatabase)


def execute_on_sqlite(sql: str, params: list[Any]) -> Any:
    """Run a statement on the open SQLite database's connection, as peewee's execute_sql
    would (its errors raised as peewee's), without its logging and look-ups: the few
    statements built once that a mail runs (compiled_queries) are as cheap as these."""
    database = database_proxy.obj
    with _AS_PEEWEE_ERRORS:
        return database.connection().execute(sql, params)


def skip_locked(query: _Query) -> _Query:
    """Rows a worker is about to claim, inside a transaction.

    PostgreSQL locks the chosen rows and lets other workers skip them. SQLite has no
    row locks; there every transaction starts IMMEDIATE, so only one writer runs at a
    time and nobody else can claim the same rows meanwhile.
    """
    if is_postgres():
        return query.for_update(skip_locked=True)
    return query


def sqlite_file() -> Path | None:
    """The file of the open SQLite database; None for PostgreSQL or SQLite in memory."""
    database = database_proxy.obj
    if not isinstance(database, SqliteDatabase) or database.database == ":memory:":
        return None
    return Path(database.database)


def side_file(path: Path, schema: str) -> sqlite3.Connection:
    """A small SQLite file of one process's own beside the judge's database (the
    listener's landing, the sender's record): private, WAL, as durable as the database,
    in autocommit mode (its user opens and ends its transactions), with ``schema`` made."""
    private_file(path)
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA journal_mode = wal")
    connection.execute("PRAGMA synchronous = normal")
    connection.execute("PRAGMA busy_timeout = 10000")
    # What is deleted is overwritten: a landed mail holds its SIGNON password in clear.
    connection.execute("PRAGMA secure_delete = on")
    connection.execute(schema)
    return connection


def _sqlite(url: str, rest: str) -> SqliteDatabase:
    if not rest.startswith("/") or rest == "/":
        raise ValueError(f"database URL {url!r} names no file; {_URL_HELP}")
    path = unquote(rest[1:])
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        private_file(Path(path))
    # IMMEDIATE: take the write lock when a transaction starts, not halfway through it,
    # where SQLite could only fail with "database is locked".
    return SqliteDatabase(path, pragmas=SQLITE_PRAGMAS, timeout=10, lock_type="IMMEDIATE")


def private_file(path: Path) -> None:
    """Create `path` readable and writable by its owner only, if it is not there yet: the
    database holds every mail received. SQLite gives its -wal and -shm files the same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _postgres(url: str) -> PostgresqlDatabase:
    parts = urlsplit(url)
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise ValueError(f"database URL {url!r} names no database; {_URL_HELP}")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"database URL {url!r} has a bad port; {_URL_HELP}") from exc
    options: dict[str, Any] = dict(parse_qsl(parts.query))
    if parts.username:
        options["user"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    if parts.hostname:
        options["host"] = parts.hostname
    if port:
        options["port"] = port
    return FewerRoundTrips(dbname, **options)


# Per connection (so per thread): the statements held back to go with the next one.
_HELD: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()


class FewerRoundTrips(PostgresqlDatabase):
    """PostgreSQL with BEGIN, SAVEPOINT and RELEASE SAVEPOINT sent along with the next
    statement (one query string, which PostgreSQL runs in order) instead of alone.

    Each statement is a round trip to the server, and a mail's commands each run in a
    savepoint: an order mail made 28 round trips, 12 of them these, which return nothing.
    A savepoint that nothing ran in is rolled back without a word to the server, and a
    transaction that ran nothing is neither begun nor committed. What the statements do is
    unchanged: a held statement always reaches the server before anything that depends on
    it."""

    def _held(self) -> list[str]:
        return _HELD.setdefault(self.connection(), [])  # type: ignore[no-untyped-call]

    def begin(self, isolation_level: Any = None) -> None:
        if isolation_level is not None or getattr(self, "_isolation_level", None):
            super().begin(isolation_level)
            return
        self._held()[:] = ["BEGIN"]

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        db_writes.note(sql)
        head = sql[:22].upper()
        if head.startswith(("SAVEPOINT ", "RELEASE SAVEPOINT ")) and self.in_transaction():
            self._held().append(sql.rstrip("; "))
            return None
        if head.startswith("ROLLBACK TO SAVEPOINT "):
            held = self._held()
            opened = "SAVEPOINT " + sql.split()[-1].rstrip(";")
            if opened in held:  # not sent yet, so nothing ran in it: nothing to undo
                del held[held.index(opened) + 1 :]  # it stays, as ROLLBACK TO leaves it
                return None
            # Sent: all that is held came after it, and is undone unsent (a held write
            # that would fail must not fail the rollback).
            held.clear()
        return super().execute_sql(self._with_held(sql), params)  # type: ignore[no-untyped-call]

    def execute_later(self, sql: str, params: Any = None) -> None:
        """Run ``sql``, whose result nobody reads, with the next statement sent: inside a
        transaction it is held as the savepoints are, its parameters put in by the driver
        as it would put them in, so that it reaches the server before anything sent after
        it. Its error, if any, comes with that next statement's. Outside a transaction it
        runs now."""
        if not self.in_transaction():
            self.execute_sql(sql, params)
            return
        db_writes.note(sql)
        cursor = self.cursor()  # type: ignore[no-untyped-call]
        text = cursor.mogrify(sql, params or None).decode()
        # The held text goes to the driver again with the next statement's parameters.
        self._held().append(text.replace("%", "%%").rstrip("; "))

    def _held_now(self) -> list[str] | None:
        """The held statements of this thread's connection, without opening one."""
        connection = self._state.conn  # type: ignore[attr-defined]
        return _HELD.get(connection) if connection is not None else None

    def _with_held(self, sql: str) -> str:
        held = self._held_now()
        if not held:
            return sql
        sql = "; ".join([*held, sql])
        held.clear()
        return sql

    def commit(self) -> None:
        db_writes.note_everything()
        held = self._held_now()
        if held is not None and held[:1] == ["BEGIN"] and not _writes_held(held):
            held.clear()  # nothing ran since the BEGIN: nothing to end
            return
        if not held:
            super().commit()
            return
        self.execute_sql("COMMIT")

    def rollback(self) -> None:
        db_writes.note_everything()
        held = self._held_now()
        began = held is not None and held[:1] == ["BEGIN"]
        if held:
            held.clear()
        if not began:
            super().rollback()


def outermost_transaction() -> object | None:
    """This thread's outermost open transaction (peewee's object for it), None outside
    one: what was read inside it may be kept while it is open, and the object (held
    weakly) tells whether it still is. A worker answers a batch of mails in one."""
    database = database_proxy.obj
    stack = database._state.transactions if database is not None else None
    return stack[0] if stack else None


def execute_later(sql: str, params: Any = None) -> None:
    """A write whose result is not read, sent with the next statement on PostgreSQL
    (FewerRoundTrips.execute_later): one round trip fewer. SQLite runs it now."""
    database = database_proxy.obj
    if isinstance(database, FewerRoundTrips):
        database.execute_later(sql, params)
    else:
        database_proxy.execute_sql(sql, params)


def _writes_held(held: list[str]) -> bool:
    """Whether statements held back include a write (execute_later), not only the
    transaction's and savepoints' own."""
    return not all(
        sql == "BEGIN" or sql.startswith(("SAVEPOINT ", "RELEASE SAVEPOINT ")) for sql in held
    )


class WriteTurn(Protocol):
    """A way to ask whoever holds SQLite's write lock to let go (app.write_turns)."""

    def wait_for_turn(self, pause: float) -> None:
        """Ask for the lock; return when it was let go, or after ``pause`` seconds."""

    def turn_over(self) -> None:
        """The write asked for is committed or given up."""


class GivingTurn(Protocol):
    """A writer's way to let another have SQLite's write lock first (app.write_turns)."""

    def let_go(self) -> bool:
        """True when another asked for the lock and was told to take it."""

    def wait_turn_over(self) -> None:
        """Back when the other's write is done (or after a short while)."""


@contextlib.contextmanager
def prompt_write(
    patience: float = 10.0, pause: float = 0.0005, turn: WriteTurn | None = None
) -> Iterator[None]:
    """A write transaction that takes SQLite's write lock as soon as it is free.

    SQLite's own busy handler waits for a lock in growing sleeps (1, 2, 5, 10 ... ms), and
    a process that writes often (the worker) then takes the lock again before a sleeper
    wakes. This asks for the lock every ``pause`` seconds instead, for ``patience`` at
    most, for a thread that must not fall behind (the listener's group commit). With a
    ``turn`` it also asks the holder to let go, and waits for that instead of sleeping.
    On PostgreSQL it is a plain transaction: row locks wait their turn by themselves."""
    database = database_proxy.obj
    if not isinstance(database, SqliteDatabase):
        with database_proxy.atomic():
            yield
        return
    connection = database.connection()  # type: ignore[no-untyped-call]
    connection.execute("PRAGMA busy_timeout = 0")
    asked = False
    try:
        try:
            deadline = time.monotonic() + patience
            while True:
                transaction = database.atomic()
                try:
                    transaction.__enter__()
                    break
                except OperationalError as err:
                    if "locked" not in str(err) or time.monotonic() > deadline:
                        raise
                    if turn is None:
                        time.sleep(pause)
                    else:
                        asked = True
                        turn.wait_for_turn(pause)
        finally:
            connection.execute(f"PRAGMA busy_timeout = {SQLITE_PRAGMAS['busy_timeout']}")
        try:
            yield
        except BaseException as err:
            transaction.__exit__(type(err), err, err.__traceback__)
            raise
        transaction.__exit__(None, None, None)
    finally:
        if asked and turn is not None:
            turn.turn_over()  # committed, rolled back or given up: the workers go on


# Set when a stored password was overwritten: the WAL file may still hold the page as it
# was, until a checkpoint copies the new one into the database and empties the WAL.
_secrets_in_wal = False
_last_checkpoint = 0.0


def secrets_overwritten() -> None:
    """Note that a write just overwrote clear text (a masked mail): checkpoint_if_due
    empties the WAL soon."""
    global _secrets_in_wal
    _secrets_in_wal = True


def checkpoint_if_due(min_interval: float = 2.0) -> bool:
    """On SQLite, when a password was overwritten since the last time and ``min_interval``
    seconds have passed: copy the WAL into the database and truncate it, so that the
    password's old page is gone from both files. It does not wait for readers (tried again
    later if one is in the way). True when the WAL was emptied."""
    global _secrets_in_wal, _last_checkpoint
    database = database_proxy.obj
    if not _secrets_in_wal or not isinstance(database, SqliteDatabase):
        return False
    if time.monotonic() - _last_checkpoint < min_interval:
        return False
    _last_checkpoint = time.monotonic()
    connection = database.connection()  # type: ignore[no-untyped-call]
    connection.execute("PRAGMA busy_timeout = 0")
    try:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError:
        busy = 1
    finally:
        connection.execute(f"PRAGMA busy_timeout = {SQLITE_PRAGMAS['busy_timeout']}")
    if not busy:
        _secrets_in_wal = False
    return not busy

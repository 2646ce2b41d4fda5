"""One database URL, SQLite or PostgreSQL, bound to the proxy every model uses.

`sqlite:///relative/path.db`, `sqlite:////absolute/path.db` and `sqlite:///:memory:`
open SQLite; `postgresql://user:password@host:port/dbname?option=value` opens
PostgreSQL through psycopg 3, the query options going to libpq as they are (for example
`sslmode=require`, or `options=-csearch_path%3Dschema` to work in one schema).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

import peewee
import psycopg
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
from psycopg.pq import TransactionStatus

from mailjudge.store import session


class _Proxy(DatabaseProxy):
    """The proxy every model uses. Its savepoints are named by their depth: peewee names
    each from a fresh uuid4, which costs more than the SAVEPOINT statement itself, and an
    order mail takes several. A name only has to differ from the savepoints open around
    it, and the same few names let the drivers keep each statement compiled (sqlite3 by
    its text; psycopg prepares a statement it has seen often)."""

    def savepoint(self) -> Any:
        return _Savepoint(self, f"s{getattr(_OPEN_SAVEPOINTS, 'depth', 0) + 1}")


# How many savepoints this thread has open (its connection is its own, as peewee's are).
_OPEN_SAVEPOINTS = threading.local()


class _Savepoint(_savepoint):
    """On SQLite the three statements go straight to the connection: through peewee's
    execute_sql each cost more than SQLite's own work, and an order mail makes eight."""

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
        self._run(session.savepoint(self.quoted_sid))

    def commit(self, begin: bool = True) -> None:
        self._run(session.release_savepoint(self.quoted_sid))
        if begin:
            self._begin()

    def rollback(self, begin: bool = True) -> None:
        database = self.db.obj
        if isinstance(database, ReconnectingPostgres):
            if database.connection_lost():
                # The server has ended the whole transaction: the error that lost the
                # connection goes up as it came, and the outermost rollback forgets it.
                return
            database.end_pipeline_segment()
        self._run(session.rollback_to_savepoint(self.quoted_sid))
        if begin:
            self._begin()


# sqlite3's errors as peewee's, as its execute_sql raises them
_AS_PEEWEE_ERRORS = ExceptionWrapper(peewee.EXCEPTIONS)  # type: ignore[attr-defined]
database_proxy = _Proxy()

_BUSY_TIMEOUT_MS = 10_000
# WAL lets readers go on while one process writes; the busy timeout makes a second
# writer wait for the lock instead of failing at once.
SQLITE_PRAGMAS: dict[str, object] = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": _BUSY_TIMEOUT_MS,
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


def open_database(url: str, read_only: bool = False) -> Database:
    """A peewee database for `url`, not yet connected nor bound. ``read_only``: each of
    its connections refuses to write (for the web pages, which may read a standby): a
    write that slips into them fails at once instead of going through on a primary."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"database URL {url!r} has no scheme; {_URL_HELP}")
    if scheme == "sqlite":
        return _sqlite(url, rest, read_only)
    if scheme in ("postgresql", "postgres"):
        postgres = _postgres(url)
        postgres.read_only = read_only
        return postgres
    raise ValueError(f"database URL {url!r}: unknown kind {scheme!r}; {_URL_HELP}")


def bind(url: str, read_only: bool = False) -> Database:
    """Open `url` and bind the models to it without connecting: the first statement
    connects (a process that must wait out a database away at its start)."""
    database = open_database(url, read_only)
    database_proxy.initialize(database)
    return database


def connect(url: str, read_only: bool = False) -> Database:
    """Open `url`, bind the models to it and connect now, so that a bad URL or an
    unreachable server shows at start-up rather than with the first mail."""
    database = open_database(url, read_only)
    database_proxy.initialize(database)
    database.connect(reuse_if_open=True)
    return database


def close() -> None:
    if database_proxy.obj is not None and not database_proxy.is_closed():
        database_proxy.close()


def forget_connection() -> None:
    """Drop this thread's connection to the database, whatever its state: after the
    database was found unusable (mailjudge.store.outages), the next statement connects anew.
    SQLite's file connection is closed too, so that a disk made writable again or a
    file put back is opened afresh."""
    database = database_proxy.obj
    if database is None:
        return
    if isinstance(database, ReconnectingPostgres):
        database.forget_connection()
        return
    conn = database._state.conn
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()
    database._state.reset()


def is_postgres() -> bool:
    return isinstance(database_proxy.obj, PostgresqlDatabase)


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
    # WAL, as durable as the database, and what is deleted is overwritten: a landed mail
    # holds its SIGNON password in clear.
    session.settle_side_file(connection)
    connection.execute(schema)
    return connection


def _sqlite(url: str, rest: str, read_only: bool = False) -> SqliteDatabase:
    if not rest.startswith("/") or rest == "/":
        raise ValueError(f"database URL {url!r} names no file; {_URL_HELP}")
    path = unquote(rest[1:])
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        private_file(Path(path))
    pragmas = {**SQLITE_PRAGMAS, "query_only": 1} if read_only else SQLITE_PRAGMAS
    # IMMEDIATE: take the write lock when a transaction starts, not halfway through it,
    # where SQLite could only fail with "database is locked". A reader's transactions
    # take no lock (DEFERRED): the pages never wait for the judge's writes.
    lock = "DEFERRED" if read_only else "IMMEDIATE"
    return SqliteDatabase(path, pragmas=pragmas, timeout=10, lock_type=lock)


def private_file(path: Path) -> None:
    """Create `path` readable and writable by its owner only, if it is not there yet: the
    database holds every mail received. SQLite gives its -wal and -shm files the same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _postgres(url: str) -> ReconnectingPostgres:
    parts = urlsplit(url)
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise ValueError(f"database URL {url!r} names no database; {_URL_HELP}")
    try:
        parts.port  # noqa: B018 (a bad port raises here, with a clear message below)
    except ValueError as exc:
        if "," not in parts.netloc:  # h1:5432,h2:5433 is libpq's multi-host form
            raise ValueError(f"database URL {url!r} has a bad port; {_URL_HELP}") from exc
    # The URL goes to libpq as it is, so that its own forms work: several hosts
    # (postgresql://h1,h2/db?target_session_attrs=read-write finds the primary after a
    # failover), sslmode, options. What it does not say, the connection's defaults do.
    given = {key for key, _ in parse_qsl(parts.query)}
    defaults = {k: v for k, v in CONNECTION_DEFAULTS.items() if k not in given}
    # psycopg 3 (peewee's Psycopg3Adapter): it prepares on the server each statement a
    # connection has run PREPARE_AFTER times, and runs it by name from then on.
    conninfo = "postgresql://" + url.partition("://")[2]
    return ReconnectingPostgres(
        conninfo,
        prefer_psycopg3=True,
        prepare_threshold=PREPARE_AFTER,
        cursor_factory=_PipelineCursor,
        **defaults,
    )


# psycopg's own threshold: a mail's statements are the same from mail to mail, so each is
# parsed once per connection and planned afresh at each run (session.settle_postgres).
PREPARE_AFTER = 2


# libpq settings for every connection to PostgreSQL unless the URL names them: a server
# that does not answer is given up in seconds, not left to the kernel's TCP timeouts (a
# machine that died holds a connection open for a quarter of an hour otherwise).
CONNECTION_DEFAULTS: dict[str, Any] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 3,
    "keepalives_count": 3,
    "tcp_user_timeout": 20_000,  # ms: data sent and not acknowledged for this long
    "application_name": "mailjudge",
}


class _PipelineCursor(psycopg.Cursor[Any]):
    """psycopg's cursor, which in pipeline mode (`pipelined`) reads its statement's result
    from the server before anything of it is looked at (its row count, its columns, its
    rows; psycopg fetches it only for the rows), and raises the errors that come with it
    as peewee's, as execute_sql raises them: an error of an earlier statement of the
    pipeline comes here, the first time a result is read after it."""

    def _result(self) -> None:
        # psycopg's own step before it reads rows (not public: tests/mail/test_pipeline.py
        # fails if a release of psycopg changes it).
        with _AS_PEEWEE_ERRORS:
            self._fetch_pipeline()

    @property
    def rowcount(self) -> int:
        self._result()
        return super().rowcount

    @property
    def description(self) -> Any:
        self._result()
        return super().description

    def fetchone(self) -> Any:
        self._result()
        return super().fetchone()

    def fetchmany(self, size: int = 0) -> Any:
        self._result()
        return super().fetchmany(size)

    def fetchall(self) -> Any:
        self._result()
        return super().fetchall()


class ReconnectingPostgres(PostgresqlDatabase):
    """PostgreSQL whose connection, once lost (the server restarted or failed over, the
    session was ended by pg_terminate_backend, the network cut), is opened again by the
    thread's next transaction or next statement outside one, instead of failing with
    "the connection is closed" for as long as the judge runs. A transaction under way
    when the connection went fails (the server has rolled it back): its caller decides
    whether to try again (mailjudge.store.outages)."""

    read_only = False  # set by open_database: every connection refuses to write

    def _connect(self) -> Any:
        connection = super()._connect()  # type: ignore[misc]
        session.settle_postgres(connection, read_only=self.read_only)
        return connection

    def connection_lost(self) -> bool:
        """Whether this thread's connection is known to be gone (without a round trip:
        the driver learns it from the statement that failed)."""
        conn = self._state.conn  # type: ignore[attr-defined]
        if conn is None:
            return False
        # The libpq connection's own status: conn.info makes a new object at each ask,
        # and this is asked before every statement.
        return bool(conn.closed) or conn.pgconn.transaction_status == TransactionStatus.UNKNOWN

    def forget_connection(self) -> None:
        """Drop this thread's connection whatever its state (and any transaction peewee
        thought open on it): the next statement opens a new one."""
        conn = self._state.conn  # type: ignore[attr-defined]
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._state.reset()  # type: ignore[attr-defined]

    def _fresh(self) -> None:
        if self.connection_lost() and not self.in_transaction():
            self.forget_connection()

    def begin(self, isolation_level: Any = None) -> None:
        self._fresh()  # peewee calls begin before it counts the transaction open
        super().begin(isolation_level)

    def connection(self) -> Any:
        # Here too: what is kept per connection (the claim holder's name) is looked up by
        # the connection this returns, which must be the one used.
        self._fresh()
        return super().connection()  # type: ignore[no-untyped-call]

    def cursor(self, named_cursor: Any = None) -> Any:
        self._fresh()
        return super().cursor(named_cursor)  # type: ignore[no-untyped-call]

    def rollback(self) -> None:
        if self.connection_lost():
            # The server ended the transaction with the session; nothing to undo here.
            self.forget_connection()
            return
        self.end_pipeline_segment()
        super().rollback()

    def end_pipeline_segment(self) -> None:
        """In pipeline mode, before a rollback: after an error the server skips every
        statement until the pipeline's next sync, so the rollback must come after one.
        What the sync brings back is being rolled back: its error is not raised."""
        pipeline = getattr(self._state, "pipeline", None)  # type: ignore[attr-defined]
        if pipeline is not None:
            with contextlib.suppress(psycopg.Error):
                pipeline.sync()


@contextlib.contextmanager
def pipelined() -> Iterator[None]:
    """On PostgreSQL, inside a transaction: the block's statements are sent without waiting
    for each one's answer, which is read only when something of it is looked at (a read's
    rows, a write's row count) or at the block's end (psycopg's pipeline mode). A write
    whose result nobody reads (a SAVEPOINT, an INSERT of orders) costs no round trip of
    its own. An error comes with the next result read, as peewee's; a savepoint rolled
    back syncs first (end_pipeline_segment). Elsewhere the block runs as it is."""
    database = database_proxy.obj
    if not isinstance(database, ReconnectingPostgres) or not PIPELINE:
        yield
        return
    entered = database.connection().pipeline()
    database._state.pipeline = entered.__enter__()  # type: ignore[attr-defined]
    try:
        yield
    except BaseException as err:
        database._state.pipeline = None  # type: ignore[attr-defined]
        entered.__exit__(type(err), err, err.__traceback__)  # its own errors only logged
        raise
    database._state.pipeline = None  # type: ignore[attr-defined]
    with _AS_PEEWEE_ERRORS:
        entered.__exit__(None, None, None)


# Whether `pipelined` uses psycopg's pipeline mode (the benchmarks measure both ways).
PIPELINE = os.environ.get("MAILJUDGE_PIPELINE", "1") != "0"


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
    session.sqlite_busy_timeout(connection, 0)
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
            session.sqlite_busy_timeout(connection, _BUSY_TIMEOUT_MS)
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
    session.sqlite_busy_timeout(connection, 0)
    try:
        busy = not session.sqlite_checkpoint(connection)
    except sqlite3.OperationalError:
        busy = True
    finally:
        session.sqlite_busy_timeout(connection, _BUSY_TIMEOUT_MS)
    if not busy:
        _secrets_in_wal = False
    return not busy

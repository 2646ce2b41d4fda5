"""One database URL, SQLite or PostgreSQL, bound to the proxy every model uses.

`sqlite:///relative/path.db`, `sqlite:////absolute/path.db` and `sqlite:///:memory:`
open SQLite; `postgresql://user:password@host:port/dbname?option=value` opens
PostgreSQL, the query options going to psycopg2 as they are (for example
`sslmode=require`, or `options=-csearch_path%3Dschema` to work in one schema).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from peewee import (
    Database,
    DatabaseProxy,
    Model,
    ModelRaw,
    OperationalError,
    PostgresqlDatabase,
    Select,
    SqliteDatabase,
)

database_proxy = DatabaseProxy()

# WAL lets readers go on while one process writes; the busy timeout makes a second
# writer wait for the lock instead of failing at once.
SQLITE_PRAGMAS: dict[str, object] = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": "normal",
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


def skip_locked(query: _Query) -> _Query:
    """Rows a worker is about to claim, inside a transaction.

    PostgreSQL locks the chosen rows and lets other workers skip them. SQLite has no
    row locks; there every transaction starts IMMEDIATE, so only one writer runs at a
    time and nobody else can claim the same rows meanwhile.
    """
    if is_postgres():
        return query.for_update(skip_locked=True)
    return query


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
    return PostgresqlDatabase(dbname, **options)


# -- queries built once ------------------------------------------------------------------
# Building SQL from peewee's expression tree costs far more than running a small query, and
# a mail runs the same few queries every time. These helpers build each once per kind of
# database and reuse the text; the caller gives the parameters in peewee's order, already in
# database form, and the first build checks that they match, so a mistake fails loudly.

_COMPILED: dict[tuple[str, str], str] = {}
_Model = TypeVar("_Model", bound=Model)


def compiled_sql(key: str, build: Callable[[], Any], params: Sequence[Any]) -> str:
    cache_key = (type(database_proxy.obj).__name__, key)
    sql = _COMPILED.get(cache_key)
    if sql is None:
        sql, built = build().sql()
        if len(built) != len(params) or not all(map(_same, built, params)):
            raise RuntimeError(f"query {key!r}: parameters {list(params)!r} are not {built!r}")
        _COMPILED[cache_key] = sql
    return sql


def _same(built: Any, given: Any) -> bool:
    # psycopg2 wraps bytes in Binary objects, which compare by identity: compare the bytes.
    return bool(built == given) or (
        type(built) is type(given)
        and getattr(built, "adapted", built) == getattr(given, "adapted", given)
    )


def execute_compiled(key: str, build: Callable[[], Any], params: Sequence[Any]) -> Any:
    """Run a built-once INSERT, UPDATE or DELETE; returns the cursor."""
    return database_proxy.execute_sql(compiled_sql(key, build, params), list(params))


def select_compiled(
    model: type[_Model], key: str, build: Callable[[], Any], params: Sequence[Any]
) -> list[_Model]:
    """Run a built-once SELECT of ``model`` rows (values converted as peewee would)."""
    # ModelRaw, not model.raw(): a model may have a field called "raw" (InboundMessage does).
    return list(ModelRaw(model, compiled_sql(key, build, params), list(params)))


def update_by_id_compiled(model: type[Model], row_id: int, changes: dict[str, Any]) -> int:
    """``UPDATE model SET changes WHERE id = row_id``, built once per set of columns;
    returns the number of rows changed."""
    fields = [f for f in model._meta.sorted_fields if f.name in changes]
    params = [f.db_value(changes[f.name]) for f in fields] + [row_id]
    pk = model._meta.primary_key
    key = f"update-{model._meta.table_name}-{','.join(f.name for f in fields)}"
    cursor = execute_compiled(key, lambda: model.update(**changes).where(pk == row_id), params)
    return int(cursor.rowcount)


@contextlib.contextmanager
def prompt_write(patience: float = 10.0, pause: float = 0.0005) -> Iterator[None]:
    """A write transaction that takes SQLite's write lock as soon as it is free.

    SQLite's own busy handler waits for a lock in growing sleeps (1, 2, 5, 10 ... ms), and
    a process that writes often (the worker) then takes the lock again before a sleeper
    wakes. This asks for the lock every ``pause`` seconds instead, for ``patience`` at
    most, for a thread that must not fall behind (the listener's group commit). On
    PostgreSQL it is a plain transaction: row locks wait their turn by themselves."""
    database = database_proxy.obj
    if not isinstance(database, SqliteDatabase):
        with database_proxy.atomic():
            yield
        return
    connection = database.connection()  # type: ignore[no-untyped-call]
    connection.execute("PRAGMA busy_timeout = 0")
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
                time.sleep(pause)
    finally:
        connection.execute(f"PRAGMA busy_timeout = {SQLITE_PRAGMAS['busy_timeout']}")
    try:
        yield
    except BaseException as err:
        transaction.__exit__(type(err), err, err.__traceback__)
        raise
    transaction.__exit__(None, None, None)

"""The spool's and the outbox's hot queries, built once and run as SQL text.

Building SQL from peewee's expression tree costs more than running a small query, and
each mail runs the same few claims, moves and outbox writes. These helpers build each
query once per kind of database and reuse the text; the caller gives the parameters in
peewee's order, already in database form, and the first build checks that they match,
so a mistake fails loudly. Only `inbound/spool.py` and `outbound/outbox.py` use them
(`tests/test_layers.py` holds that): everywhere else plain peewee is fast enough, and
docs/performance.md says what this path buys.
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from peewee import (
    AutoField,
    CharField,
    Field,
    ForeignKeyField,
    IntegerField,
    Model,
    SqliteDatabase,
    TextField,
)

from mailjudge import db_writes
from mailjudge.db import database_proxy, execute_later, execute_on_sqlite, is_postgres

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
    return _run_compiled(key, compiled_sql(key, build, params), list(params))


# PostgreSQL plans every statement it is sent; a mail's statements are the same each time,
# so each is prepared once per connection (PREPARE lasts as long as the session, whatever
# becomes of the transaction it was made in) and run with EXECUTE. After five runs the
# server keeps one plan for all parameters, costed on the tables' size then; only an
# ANALYZE makes it again, and without autovacuum none comes: a plan made when the table was
# nearly empty (a sequential scan of the guard's counters) stayed as it grew to 100,000
# rows. So each statement is prepared afresh after 64 runs on a connection, then after
# twice as many each time: 14 times in a million runs.
_PREPARED: weakref.WeakKeyDictionary[Any, dict[str, list[int]]] = weakref.WeakKeyDictionary()
_REPLAN_FIRST, _REPLAN_FACTOR = 64, 2


def execute_compiled_later(key: str, build: Callable[[], Any], params: Sequence[Any]) -> None:
    """Run a built-once INSERT, UPDATE or DELETE whose result is not read with the next
    statement sent (db.execute_later): on PostgreSQL one round trip fewer."""
    _run_compiled(key, compiled_sql(key, build, params), list(params), later=True)


def execute_postgres_later(key: str, sql: str, params: Sequence[Any]) -> None:
    """Run ``sql``, written for PostgreSQL by hand (what peewee cannot build: a write in a
    WITH), prepared once per connection and sent with the next statement."""
    if not is_postgres():
        raise RuntimeError(f"statement {key!r} is PostgreSQL's own")
    _run_compiled(key, sql, list(params), later=True)


def _run_compiled(key: str, sql: str, params: list[Any], later: bool = False) -> Any:
    if isinstance(database_proxy.obj, SqliteDatabase):
        return execute_on_sqlite(sql, params)
    run = execute_later if later else database_proxy.execute_sql
    if not is_postgres():
        return run(sql, params)
    db_writes.note(sql)  # what the EXECUTE below runs
    prepared = _PREPARED.setdefault(database_proxy.connection(), {})
    base = "mailjudge_" + re.sub(r"[^a-z0-9_]", "_", key.lower())
    # [generation, runs, the run at which it is prepared afresh]
    found = prepared.get(base)
    if found is None or found[1] >= found[2]:
        found = prepared[base] = _prepare(base, sql, found)
    found[1] += 1
    marks = f" ({', '.join(['%s'] * len(params))})" if params else ""
    return run(f"EXECUTE {_name(base, found[0])}{marks}", params)


def _name(base: str, generation: int) -> str:
    return base if generation == 0 else f"{base}__g{generation}"


def _prepare(base: str, sql: str, before: list[int] | None) -> list[int]:
    """PREPARE the statement under its next generation's name; the one before goes."""
    numbers = itertools.count(1)
    numbered = re.sub(r"%s", lambda _: f"${next(numbers)}", sql)
    if before is None:
        database_proxy.execute_sql(f"PREPARE {_name(base, 0)} AS {numbered}")
        return [0, 0, _REPLAN_FIRST]
    generation, runs, due = before
    database_proxy.execute_sql(
        f"DEALLOCATE {_name(base, generation)}; PREPARE {_name(base, generation + 1)} AS {numbered}"
    )
    return [generation + 1, runs, due * _REPLAN_FACTOR]


def select_compiled(
    model: type[_Model], key: str, build: Callable[[], Any], params: Sequence[Any]
) -> list[_Model]:
    """Run a built-once SELECT of ``model`` rows (values converted as peewee would)."""
    cursor = _run_compiled(key, compiled_sql(key, build, params), list(params))
    readers = _row_readers(model, key, cursor.description)
    found = []
    for row in cursor.fetchall():
        # What peewee's row wrapper does for a plain model row, without its per-query set-up
        # (which cost more than the small queries of a mail themselves).
        item = model.__new__(model)
        item.__data__ = {name: value if read is None or value is None else read(value)
                         for (name, read), value in zip(readers, row, strict=True)}  # fmt: skip
        item._dirty = set()  # type: ignore[attr-defined]
        item.__rel__ = {}
        found.append(item)
    return found


def select_joined_compiled(
    models: Sequence[type[Model]], key: str, build: Callable[[], Any], params: Sequence[Any]
) -> list[list[Model | None]]:
    """Run a built-once SELECT of several models' rows joined (``build`` selects each
    model's columns in turn, in the order of ``models``): for each row found, one row of
    each model, None for a model an outer join found nothing of."""
    cursor = _run_compiled(key, compiled_sql(key, build, params), list(params))
    widths = [len(model._meta.sorted_fields) for model in models]
    if sum(widths) != len(cursor.description):
        raise RuntimeError(f"query {key!r}: its columns are not those of {models!r}")
    slices, start = [], 0
    for model, width in zip(models, widths, strict=True):
        part = cursor.description[start : start + width]
        readers = _row_readers(model, f"{key}/{model._meta.name}", part)
        slices.append((model, start, start + width, readers))
        start += width
    found = []
    for row in cursor.fetchall():
        items: list[Model | None] = []
        for model, first, end, columns in slices:
            values = row[first:end]
            if values[0] is None:  # no such row: the primary key comes first
                items.append(None)
                continue
            item = model.__new__(model)
            item.__data__ = {
                name: value if read is None or value is None else read(value)
                for (name, read), value in zip(columns, values, strict=True)
            }
            item._dirty = set()  # type: ignore[attr-defined]
            item.__rel__ = {}
            items.append(item)
        found.append(items)
    return found


_READERS: dict[tuple[str, str], list[tuple[str, Callable[[Any], Any] | None]]] = {}
# Fields whose values both drivers already hand back as Python wants them (text and
# whole numbers): converting them again is most of the time a row takes.
_AS_THEY_COME = (CharField, TextField, IntegerField, AutoField)


def _reader(field: Field) -> Callable[[Any], Any] | None:
    if isinstance(field, ForeignKeyField):
        return _reader(field.rel_field)
    if isinstance(field, _AS_THEY_COME) and type(field).python_value is Field.python_value:
        return None
    return field.python_value


def _row_readers(
    model: type[Model], key: str, description: Any
) -> list[tuple[str, Callable[[Any], Any] | None]]:
    """For each column of a built-once SELECT, the model field's name and its conversion
    from the database's value (None: none needed)."""
    cache_key = (type(database_proxy.obj).__name__, key)
    readers = _READERS.get(cache_key)
    if readers is None:
        meta = model._meta
        readers = []
        for column in description:
            field = meta.columns.get(column[0]) or meta.fields.get(column[0])
            if field is None:
                raise RuntimeError(f"query {key!r}: column {column[0]!r} is not in {meta.name}")
            readers.append((field.name, _reader(field)))
        _READERS[cache_key] = readers
    return readers


def update_by_id_compiled(model: type[Model], row_id: int, changes: dict[str, Any]) -> int:
    """``UPDATE model SET changes WHERE id = row_id``, built once per set of columns;
    returns the number of rows changed."""
    fields = [f for f in model._meta.sorted_fields if f.name in changes]
    params = [f.db_value(changes[f.name]) for f in fields] + [row_id]
    pk = model._meta.primary_key
    key = f"update-{model._meta.table_name}-{','.join(f.name for f in fields)}"
    cursor = execute_compiled(key, lambda: model.update(**changes).where(pk == row_id), params)
    return int(cursor.rowcount)

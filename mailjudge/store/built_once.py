"""Statements of the mail path built by peewee once and kept as SQL text (store.mail's).

Building SQL from peewee's expression tree costs far more than running a small query on
SQLite: an order mail's dozen statements, built afresh each time, made the worker spend
3.7 times the processor time a mail (docs/performance.md gives the figures and the
command). Here each statement is built once per kind of database under a key and its
text kept; the caller gives the parameters in peewee's order, already in database form,
and the first build checks that they match, so that a mistake fails loudly. On SQLite
the text goes straight to the connection; on PostgreSQL through peewee, and psycopg
prepares it on the server once the connection has run it a few times (db.PREPARE_AFTER).
Rows read come back as model rows, made as peewee makes them, without its per-query
set-up (which cost more than the small queries themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import peewee
from peewee import (
    AutoField,
    CharField,
    ExceptionWrapper,
    Field,
    ForeignKeyField,
    IntegerField,
    Model,
    SqliteDatabase,
    TextField,
)

from mailjudge.store.db import database_proxy

_TEXTS: dict[tuple[str, str], str] = {}
_Model = TypeVar("_Model", bound=Model)
# sqlite3's errors as peewee's, as its execute_sql raises them
_AS_PEEWEE_ERRORS = ExceptionWrapper(peewee.EXCEPTIONS)  # type: ignore[attr-defined]


def text(key: str, build: Callable[[], Any], params: Sequence[Any]) -> str:
    """The SQL text of the statement ``build`` makes, built once under ``key``."""
    cache_key = (type(database_proxy.obj).__name__, key)
    sql = _TEXTS.get(cache_key)
    if sql is None:
        sql, built = build().sql()
        if len(built) != len(params) or not all(map(_same, built, params)):
            raise RuntimeError(f"query {key!r}: parameters {list(params)!r} are not {built!r}")
        _TEXTS[cache_key] = sql
    return sql


def _same(built: Any, given: Any) -> bool:
    # The drivers wrap bytes (psycopg's Binary), and such wrappers compare by identity.
    return bool(built == given) or (
        type(built) is type(given) and getattr(built, "obj", built) == getattr(given, "obj", given)
    )


def run(key: str, build: Callable[[], Any], params: Sequence[Any]) -> Any:
    """Run the statement built once under ``key``; the cursor."""
    sql = text(key, build, params)
    database = database_proxy.obj
    if isinstance(database, SqliteDatabase):
        with _AS_PEEWEE_ERRORS:  # without peewee's logging and look-ups, as cheap as SQLite
            return database.connection().execute(sql, list(params))  # type: ignore[no-untyped-call]
    return database_proxy.execute_sql(sql, list(params))


def rows(
    model: type[_Model], key: str, build: Callable[[], Any], params: Sequence[Any]
) -> list[_Model]:
    """The ``model`` rows a SELECT built once under ``key`` reads."""
    cursor = run(key, build, params)
    found = cursor.fetchall()
    readers = _row_readers(model, key, cursor)
    return [_row(model, readers, row) for row in found]


def joined_rows(
    models: Sequence[type[Model]], key: str, build: Callable[[], Any], params: Sequence[Any]
) -> list[list[Model | None]]:
    """For each row a SELECT of several models joined reads (``build`` selects each
    model's columns in turn, in the order of ``models``): one row of each model, None for
    a model an outer join found nothing of."""
    cursor = run(key, build, params)
    read = cursor.fetchall()
    slices = _JOINED.get((type(database_proxy.obj).__name__, key))
    if slices is None:
        slices = _joined_slices(models, key, cursor.description)
        _JOINED[(type(database_proxy.obj).__name__, key)] = slices
    found = []
    for row in read:
        found.append([
            None if row[first] is None else _row(model, readers, row[first:end])
            for model, first, end, readers in slices  # no such row: its primary key is NULL
        ])  # fmt: skip
    return found


_Readers = list[tuple[str, Callable[[Any], Any] | None]]
_Slices = list[tuple[type[Model], int, int, _Readers]]
_JOINED: dict[tuple[str, str], _Slices] = {}


def _joined_slices(models: Sequence[type[Model]], key: str, description: Any) -> _Slices:
    """Each model's columns of a joined read: (model, first, end, readers)."""
    widths = [len(model._meta.sorted_fields) for model in models]
    if sum(widths) != len(description):
        raise RuntimeError(f"query {key!r}: its columns are not those of {models!r}")
    slices, start = [], 0
    for model, width in zip(models, widths, strict=True):
        part = description[start : start + width]
        slices.append((model, start, start + width, _readers(model, key, part)))
        start += width
    return slices


def _row(model: type[_Model], readers: _Readers, values: Sequence[Any]) -> _Model:
    """What peewee's row wrapper makes of a plain model row."""
    item = model.__new__(model)
    item.__data__ = {name: value if read is None or value is None else read(value)
                     for (name, read), value in zip(readers, values, strict=True)}  # fmt: skip
    item._dirty = set()  # type: ignore[attr-defined]
    item.__rel__ = {}
    return item


_READERS: dict[tuple[str, str], _Readers] = {}
# Fields whose values both drivers already hand back as Python wants them (text and
# whole numbers): converting them again is most of the time a row takes.
_AS_THEY_COME = (CharField, TextField, IntegerField, AutoField)


def _reader(field: Field) -> Callable[[Any], Any] | None:
    if isinstance(field, ForeignKeyField):
        return _reader(field.rel_field)
    if isinstance(field, _AS_THEY_COME) and type(field).python_value is Field.python_value:
        return None
    return field.python_value


def _row_readers(model: type[Model], key: str, cursor: Any) -> _Readers:
    """For each column read, the model field's name and its conversion from the
    database's value (None: none needed); the cursor's columns looked at only the first
    time (psycopg makes them afresh each time they are asked for)."""
    cache_key = (type(database_proxy.obj).__name__, key)
    readers = _READERS.get(cache_key)
    if readers is None:
        readers = _READERS[cache_key] = _readers(model, key, cursor.description)
    return readers


def _readers(model: type[Model], key: str, description: Any) -> _Readers:
    meta = model._meta
    readers = []
    for column in description:
        field = meta.columns.get(column[0]) or meta.fields.get(column[0])
        if field is None:
            raise RuntimeError(f"query {key!r}: column {column[0]!r} is not in {meta.name}")
        readers.append((field.name, _reader(field)))
    return readers

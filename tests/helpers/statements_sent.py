"""The statements a test's code hands the database, as it hands them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mailjudge.store.db import database_proxy


@contextmanager
def statements_sent() -> Iterator[list[str]]:
    """A list that gets each statement given to the open database's execute_sql while the
    block runs."""
    database = database_proxy.obj
    sent: list[str] = []
    real = database.execute_sql

    def noting(sql: str, params: object = None) -> object:
        sent.append(sql)
        return real(sql, params)

    database.execute_sql = noting
    try:
        yield sent
    finally:
        del database.execute_sql

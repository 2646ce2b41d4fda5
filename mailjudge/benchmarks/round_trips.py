"""Round trips to PostgreSQL counted, for the benches: each query string the judge's
connection hands the driver is one (statements held back to go with the next one are
not counted apart)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mailjudge.db import database_proxy, is_postgres


class Trips:
    count = 0


@contextmanager
def round_trips() -> Iterator[Trips]:
    """Count, while the block runs, the query strings this thread's connection sends
    (0 on SQLite, which the judge runs in its own process)."""
    trips = Trips()
    database = database_proxy.obj
    if not is_postgres():
        yield trips
        return
    real_cursor = database.cursor

    class Counting:  # the real cursor, each execute counted
        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor

        def execute(self, sql: str, params: Any = None) -> Any:
            trips.count += 1
            return self.cursor.execute(sql, params)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.cursor, name)

    database.cursor = lambda *args, **kwargs: Counting(real_cursor(*args, **kwargs))
    try:
        yield trips
    finally:
        del database.cursor

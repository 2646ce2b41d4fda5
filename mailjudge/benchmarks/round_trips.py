"""Round trips to PostgreSQL counted, for the benches: each statement the judge's
connection hands the driver is one, except in a pipeline (db.pipelined), where only a
statement whose result is waited for counts (its writes before it ride along; the sync
at the pipeline's end is not counted)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mailjudge.store.db import database_proxy, is_postgres


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

    class Counting:  # the real cursor, each wait for the server counted
        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor
            self.pending = False

        def execute(self, sql: str, params: Any = None) -> Any:
            if getattr(database._state, "pipeline", None) is None:
                trips.count += 1
            else:
                self.pending = True  # sent; waited for only when its result is read
            return self.cursor.execute(sql, params)

        def _read(self) -> None:
            if self.pending and self.cursor.pgresult is None:
                trips.count += 1
            self.pending = False

        @property
        def rowcount(self) -> Any:
            self._read()
            return self.cursor.rowcount

        @property
        def description(self) -> Any:
            self._read()
            return self.cursor.description

        def fetchone(self) -> Any:
            self._read()
            return self.cursor.fetchone()

        def fetchmany(self, size: int = 0) -> Any:
            self._read()
            return self.cursor.fetchmany(size)

        def fetchall(self) -> Any:
            self._read()
            return self.cursor.fetchall()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.cursor, name)

    database.cursor = lambda *args, **kwargs: Counting(real_cursor(*args, **kwargs))
    try:
        yield trips
    finally:
        del database.cursor

"""On PostgreSQL, BEGIN, SAVEPOINT and RELEASE SAVEPOINT go to the server with the next
statement (db.FewerRoundTrips): fewer round trips, the same effects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from peewee import IntegrityError

from mailjudge import db


@pytest.fixture
def trips(postgres_url: str) -> Iterator[list[str]]:
    """The database bound; a list that gets one entry for each query string sent."""
    database = db.connect(postgres_url)
    db.database_proxy.execute_sql("CREATE TABLE item (n INTEGER PRIMARY KEY)")
    sent: list[str] = []
    real_cursor = database.cursor

    class Noting:  # the real cursor, with each query string noted as it goes
        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor

        def execute(self, sql: str, params: Any = None) -> Any:
            sent.append(sql)
            return self.cursor.execute(sql, params)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.cursor, name)

    database.cursor = lambda *a, **k: Noting(real_cursor(*a, **k))  # type: ignore[method-assign,no-untyped-call]
    yield sent
    db.close()


def items() -> list[int]:
    rows = db.database_proxy.execute_sql("SELECT n FROM item ORDER BY n").fetchall()
    return [n for (n,) in rows]


def insert(n: int) -> None:
    db.database_proxy.execute_sql("INSERT INTO item (n) VALUES (%s)", (n,))


def test_savepoints_go_with_the_next_statement(trips: list[str]) -> None:
    with db.database_proxy.atomic():
        with db.database_proxy.atomic():
            insert(1)
        with db.database_proxy.atomic():
            insert(2)
    # Peewee alone sends eight: BEGIN, SAVEPOINT, INSERT, RELEASE, twice, then COMMIT.
    assert len(trips) == 3, trips
    assert trips[0].startswith("BEGIN; SAVEPOINT") and trips[-1].endswith("; COMMIT")
    assert items() == [1, 2]


def test_a_failed_savepoint_takes_back_its_own_work_only(trips: list[str]) -> None:
    with db.database_proxy.atomic():
        insert(1)
        with pytest.raises(IntegrityError), db.database_proxy.atomic():
            insert(3)
            insert(1)  # the same key: this savepoint is rolled back, 3 with it
        insert(2)
    assert items() == [1, 2]


def test_nothing_is_sent_for_a_transaction_or_savepoint_that_ran_nothing(
    trips: list[str],
) -> None:
    with db.database_proxy.atomic():
        with db.database_proxy.atomic() as empty:
            empty.rollback(False)
        with db.database_proxy.atomic():
            pass
    assert trips == []
    with pytest.raises(RuntimeError), db.database_proxy.atomic():
        raise RuntimeError("before any statement")
    assert trips == []
    insert(5)  # outside a transaction: on its own, committed at once
    assert trips == ["INSERT INTO item (n) VALUES (%s)"] and items() == [5]

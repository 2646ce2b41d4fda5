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


def insert_later(n: int) -> None:
    db.execute_later("INSERT INTO item (n) VALUES (%s)", (n,))


def test_a_write_whose_result_is_not_read_goes_with_the_next_statement(
    trips: list[str],
) -> None:
    with db.database_proxy.atomic():
        insert_later(1)
        insert_later(2)
        assert trips == []  # held
        insert(3)
    assert len(trips) == 2, trips  # the three inserts in one, then the COMMIT
    assert trips[0].startswith("BEGIN; INSERT INTO item (n) VALUES (1); INSERT")
    assert items() == [1, 2, 3]


def test_a_write_held_to_the_end_goes_with_the_commit(trips: list[str]) -> None:
    with db.database_proxy.atomic():
        insert_later(1)
    assert trips == ["BEGIN; INSERT INTO item (n) VALUES (1); COMMIT"]
    assert items() == [1]
    insert_later(2)  # outside a transaction: at once
    assert items() == [1, 2]


def test_a_held_write_is_undone_with_its_savepoint_or_transaction(trips: list[str]) -> None:
    with db.database_proxy.atomic():
        insert(1)
        with db.database_proxy.atomic() as inner:
            insert_later(2)
            inner.rollback()
        with pytest.raises(RuntimeError), db.database_proxy.atomic():
            insert(3)
            insert_later(4)
            raise RuntimeError("the mail failed")
    assert items() == [1]
    with pytest.raises(RuntimeError), db.database_proxy.atomic():
        insert_later(5)
        raise RuntimeError("before anything was sent")
    assert items() == [1]


def test_a_held_writes_text_keeps_its_values_as_they_are(trips: list[str]) -> None:
    db.database_proxy.execute_sql("CREATE TABLE note (t TEXT, b BYTEA)")
    odd = "100% o'clock %s %(x)s; --"
    with db.database_proxy.atomic():
        db.execute_later("INSERT INTO note (t, b) VALUES (%s, %s)", (odd, b"\x00%s"))
        db.database_proxy.execute_sql("INSERT INTO note (t) VALUES (%s)", ("%%",))
    rows = db.database_proxy.execute_sql("SELECT t, b FROM note ORDER BY t").fetchall()
    assert [(t, None if b is None else bytes(b)) for t, b in rows] == [
        ("%%", None), (odd, b"\x00%s")
    ]  # fmt: skip


def test_a_held_writes_error_comes_with_the_next_statement(trips: list[str]) -> None:
    with db.database_proxy.atomic():
        insert(1)
        with pytest.raises(IntegrityError), db.database_proxy.atomic():
            insert_later(1)  # the same key
            insert(2)
        insert(3)
    assert items() == [1, 3]


def test_a_held_write_undone_with_a_savepoint_already_sent_is_never_sent(
    trips: list[str],
) -> None:
    with db.database_proxy.atomic():
        insert(1)
        with pytest.raises(RuntimeError), db.database_proxy.atomic():
            insert(2)  # the savepoint goes with it
            insert_later(1)  # would fail: the same key
            raise RuntimeError("the mail failed")
        insert(3)
    assert not any("VALUES (1); ROLLBACK" in sql for sql in trips), trips
    assert items() == [1, 3]

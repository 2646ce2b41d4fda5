"""Reads kept for a batch's transaction on PostgreSQL (kept_reads): asked once, asked
again after any write to a table they read, a rollback to a savepoint, or the end of the
transaction, and never shared between callers as rows to change. The seat's reads give
the same answers on SQLite, where they are always made."""

from __future__ import annotations

import pytest

from mailjudge import db_writes
from mailjudge.db import database_proxy
from mailjudge.game.state import seat_in, waiting_players
from mailjudge.kept_reads import kept_read
from mailjudge.models import Game, Outbox, Seat
from mailjudge.service import games, seats


@pytest.mark.parametrize(
    ("sql", "tables"),
    [
        ('SELECT "t1"."id" FROM "seat" AS "t1" FOR UPDATE', set()),
        ("WITH RECURSIVE g(k) AS (SELECT 1) SELECT k FROM g", set()),
        ("SAVEPOINT s1", set()),
        ('INSERT INTO "seat" ("name") VALUES (?)', {"seat"}),
        ('UPDATE "game" SET "phase" = ? WHERE ("game"."id" = ?)', {"game"}),
        ('delete from "person" where id = 1', {"person"}),
        (
            'INSERT INTO "address_counter" ("key") VALUES (%s) ON CONFLICT ("key") '
            'DO UPDATE SET "count" = 1 RETURNING "address_counter"."count"',
            {"address_counter"},
        ),
        (
            "WITH cleared AS (DELETE FROM bounce WHERE address IN (%s) RETURNING 1) "
            "UPDATE outbox SET next_attempt_at = %s WHERE EXISTS (SELECT 1 FROM cleared)",
            {"bounce", "outbox"},
        ),
        ("ROLLBACK TO SAVEPOINT s2", {db_writes.EVERY_TABLE}),
        ("COMMIT", {db_writes.EVERY_TABLE}),
        ('CREATE TABLE "x" (id INTEGER)', {db_writes.EVERY_TABLE}),
        ("DO $$ BEGIN END $$", {db_writes.EVERY_TABLE}),
    ],
)
def test_what_a_statement_writes(sql: str, tables: set[str]) -> None:
    assert db_writes.written_tables(sql) == tables


def _counting(reads: list[int], answer: object = "x") -> object:
    reads.append(1)
    return answer


def test_on_sqlite_every_read_is_made(sqlite_db: str) -> None:
    reads: list[int] = []
    with database_proxy.atomic():
        for _ in range(3):
            kept_read("k", ("seat",), lambda: _counting(reads))
    assert len(reads) == 3


def test_a_read_is_kept_until_a_table_it_read_is_written(pg: str, cheap_scrypt: None) -> None:
    reads: list[int] = []
    with database_proxy.atomic():
        for _ in range(3):
            assert kept_read("k", ("seat",), lambda: _counting(reads)) == "x"
        assert len(reads) == 1
        Outbox.select().count()  # a read of another table
        database_proxy.execute_sql("UPDATE outbox SET attempts = 0 WHERE id = -1")
        kept_read("k", ("seat",), lambda: _counting(reads))
        assert len(reads) == 1  # another table written: still good
        database_proxy.execute_sql("UPDATE seat SET wait = wait WHERE id = -1")
        kept_read("k", ("seat",), lambda: _counting(reads))
        assert len(reads) == 2
    with database_proxy.atomic():  # a new transaction reads afresh
        kept_read("k", ("seat",), lambda: _counting(reads))
    assert len(reads) == 3
    kept_read("k", ("seat",), lambda: _counting(reads))  # outside one: always read
    kept_read("k", ("seat",), lambda: _counting(reads))
    assert len(reads) == 5


@pytest.fixture
def game(any_db: str) -> str:
    made = games.create_game("kept", "gm@example.org", "gm-pw", rules="POWER_CHOICE")
    seats.join(made, "ann@example.org", "pw-a", power="FRANCE")
    seats.join(made, "bob@example.org", "pw-b", power="ENGLAND")
    return "kept"


def test_the_seat_read_sees_the_batchs_own_writes(game: str) -> None:
    with database_proxy.atomic():
        first = seat_in(game, "france")
        assert not first.wait and waiting_players(first.game) == []
        seats.set_wait(seat_in(game, "france"), True)
        assert seat_in(game, "france").wait
        assert waiting_players(first.game) == ["france"]
        with pytest.raises(RuntimeError), database_proxy.atomic():
            seats.set_wait(seat_in(game, "england"), True)
            assert waiting_players(first.game) == ["france", "england"]
            raise RuntimeError("the command failed: its savepoint is rolled back")
        assert waiting_players(first.game) == ["france"]
        assert not seat_in(game, "england").wait
    assert Seat.get(Seat.name == "france").wait


def test_each_caller_gets_rows_of_its_own(game: str) -> None:
    Game.update(position={"units": [{"loc": "par"}]}).where(Game.name == game).execute()
    with database_proxy.atomic():
        one = seat_in(game, "france")
        one.wait = True  # changed, not saved
        one.game.phase = "W1999A"
        one.game.options["changed in place"] = True
        one.game.position["units"][0]["loc"] = "nowhere"  # deep inside
        two = seat_in(game, "france")
        assert two.game.position["units"][0]["loc"] == "par"
        assert not two.wait and two.game.phase != "W1999A"
        assert "changed in place" not in two.game.options
        assert two.person is not None and two.person.email == "ann@example.org"
        waiting = waiting_players(one.game)
        waiting.append("austria")
        assert waiting_players(one.game) == []


def test_a_value_marshal_cannot_copy_is_copied_all_the_same() -> None:
    from datetime import datetime

    from mailjudge.game.state import _own_copy

    value = {"when": [datetime(2026, 11, 26)], "plain": {"a": [1, "b"]}}
    copied = _own_copy(value)
    assert copied == value and copied["when"] is not value["when"]
    assert _own_copy(value["plain"])["a"] is not value["plain"]["a"]

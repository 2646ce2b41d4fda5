"""Schema migrations: a judge upgraded in place keeps its live games.

`tests/data/releases/21f9223.sql` is a database made by release 21f9223 (the last before
schema versions were kept): a game in F1901M with France's orders on file and S1901M in
its history, and a forming game. The upgrade must keep them playable by mail."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e import MASTER, Harness, running_judge

from mailjudge import db
from mailjudge.migrations import (
    ALL_TABLES,
    LATEST,
    MIGRATIONS,
    SchemaError,
    current_version,
    upgrade,
)
from mailjudge.models import AddressCounter, Bounce, Confirmation, DiaryEntry, SchemaVersion
from mailjudge.service.games import create_game
from mailjudge.service.state import get_game, orders_on_file

RELEASE_21F9223 = Path(__file__).parent / "data" / "releases" / "21f9223.sql"
NEW_TABLES = [AddressCounter, Confirmation, Bounce, DiaryEntry]


def old_release_database(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(RELEASE_21F9223.read_text())
    return path


@pytest.fixture
def upgraded(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge started on the old release's database (serve applies the migrations)."""
    path = old_release_database(tmp_path / "judge.db")
    with running_judge(path, smtp_sink) as h:
        yield h


def test_a_database_of_the_previous_release_is_upgraded_and_plays_on(upgraded: Harness) -> None:
    h = upgraded
    assert current_version(db.database_proxy.obj) == LATEST
    recorded = [row.version for row in SchemaVersion.select().order_by(SchemaVersion.version)]
    assert recorded == [m.number for m in MIGRATIONS]
    game = get_game("oldgame")
    assert game.state == "active" and game.phase == "F1901M"
    assert [line.text for line in orders_on_file(game)["FRANCE"]] == ["A BUR - BEL"]
    # The players of the old game sign on and order by mail, with their old passwords.
    status = h.command("france@players.test", "SIGNON france@oldgame pw-france-7\nSTATUS")
    assert "A BUR - BEL" in status
    ordered = h.command("italy@players.test", "SIGNON italy@oldgame pw-italy-7\nA VEN - PIE")
    assert "A VEN - PIE" in ordered and "ERROR" not in ordered
    # The tables the new release added work: an observer's confirmation is one of them.
    asked = h.command("watcher@example.test", "OBSERVE watcher@oldgame watchpw")
    assert "CONFIRM" in asked
    assert Confirmation.select().count() == 1
    # And the master runs the game on.
    done = h.command(MASTER, "SIGNON Moldgame masterpw\nPROCESS!")
    assert "F1901M processed" in done
    assert get_game("forming").state == "forming"


def test_upgrade_is_idempotent_and_a_newer_database_is_refused(sqlite_db: str) -> None:
    assert upgrade() == []  # the fixture's database is new: made at the newest schema
    assert current_version(db.database_proxy.obj) == LATEST
    SchemaVersion.create(version=LATEST + 1, what="from a newer judge")
    with pytest.raises(SchemaError, match="newer than this judge"):
        upgrade()


# Columns the migrations add to tables the old release had: (table, column).
ADDED_COLUMNS = (("seat", "preference"), ("seat", "public_name"))


def test_postgresql_database_without_versions_is_upgraded(postgres_url: str) -> None:
    """The same upgrade on PostgreSQL: the old release's tables, a game in them, no
    schema_version; the migrations add the new tables and keep the game."""
    db.connect(postgres_url)
    try:
        old = [m for m in ALL_TABLES if m not in (*NEW_TABLES, SchemaVersion)]
        db.database_proxy.create_tables(old)
        create_game("pgold", "master@example.test", "masterpw")
        # Columns added since that release were not in it either.
        for table, column in ADDED_COLUMNS:
            db.database_proxy.execute_sql(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
        applied = upgrade()
        assert [m.number for m in applied] == [m.number for m in MIGRATIONS[1:]]
        assert all(db.database_proxy.table_exists(m._meta.table_name) for m in NEW_TABLES)
        assert current_version(db.database_proxy.obj) == LATEST
        assert get_game("pgold").state == "forming"
        assert upgrade() == []
    finally:
        db.close()

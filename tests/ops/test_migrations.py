"""Schema migrations: a judge upgraded in place keeps every row and its live games.

`tests/data/releases/<commit>.sql` is a database made by that earlier release's own code,
by mail (tests/data/releases/fill_release.py says how): every table has rows. One per
schema the judge has had: 21f9223 (the baseline, before versions were kept), e057ac4 (the
security tables, still no versions), 276ab49 and 6554db5 (schema version 2, before
migration 3), 8c26d25 (version 3), 2217dc0 (version 5, before game.deadline_sequence),
3554918 (version 6, before outbox.relay_reply), 1fd3205 (version 7, before game.options).
Each is upgraded by this code; every table keeps its
rows, no foreign key is blanked, and its games play on by mail. The same rows copied into
PostgreSQL as each release had them are upgraded there too."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import Harness, player, running_judge, secret

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.service.games import create_game
from mailjudge.store import db
from mailjudge.store.models import (
    AddressCounter,
    Bounce,
    Confirmation,
    DeadlineExtension,
    DiaryEntry,
    JoinRequest,
    JudgeBeat,
    JudgeOutage,
    Opening,
    OpeningsSubscriber,
    OperatorAlert,
    RecordEntry,
    SchemaVersion,
    Seat,
    StalemateQuestion,
)
from mailjudge.store.signal_models import SIGNAL_MODELS
from mailjudge.store.stats_models import STATS_MODELS
from mailjudge.store.tournament_models import TOURNAMENT_MODELS
from mailjudge.tools.migrations import (
    ALL_TABLES,
    LATEST,
    MIGRATIONS,
    SchemaError,
    current_version,
    row_counts,
    upgrade,
)

RELEASES = Path(__file__).parents[1] / "data" / "releases"
RELEASE_DUMPS = sorted(RELEASES.glob("*.sql"))
NEW_TABLES = [
    AddressCounter, Confirmation, Bounce, DiaryEntry, RecordEntry, Opening, OpeningsSubscriber,
    DeadlineExtension, StalemateQuestion, JudgeOutage, JudgeBeat, OperatorAlert,
    JoinRequest, *STATS_MODELS, *SIGNAL_MODELS, *TOURNAMENT_MODELS,
]  # fmt: skip
# The columns that point at a seat and are blanked (or their rows deleted) if a rebuild of
# `seat` lets the foreign-key actions fire: (table, column).
SEAT_REFERENCES = (
    ("ballot", "voter_id"),
    ("order_line", "submitted_by_id"),
    ("press", "sender_id"),
    ("proposal", "author_id"),
    ("confirmation", "seat_id"),
    ("seat", "assists_id"),
)


def load_release(dump: Path, path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(dump.read_text())
    conn.close()
    return path


def counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        found = {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    conn.close()
    return found


def seat_references(path: Path) -> dict[str, list[tuple[int, int | None]]]:
    """(row id, seat id) of every row that points at a seat, by table.column."""
    found = {}
    with sqlite3.connect(path) as conn:
        for table, column in SEAT_REFERENCES:
            columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
            if column in columns:
                rows = conn.execute(f'SELECT id, "{column}" FROM "{table}" ORDER BY id')
                found[f"{table}.{column}"] = [(int(i), s) for i, s in rows]
    conn.close()
    return found


@pytest.mark.parametrize("dump", RELEASE_DUMPS, ids=[d.stem for d in RELEASE_DUMPS])
def test_every_row_of_an_earlier_release_survives_the_upgrade(
    dump: Path, tmp_path: Path, cheap_scrypt: None
) -> None:
    path = load_release(dump, tmp_path / "judge.db")
    before, pointers = counts(path), seat_references(path)
    assert all(before.values()), f"{dump.name} must have rows in every table: {before}"
    db.connect(f"sqlite:///{path}")
    try:
        upgrade()
        assert current_version(db.database_proxy.obj) == LATEST
        assert db.database_proxy.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        db.close()
    after = counts(path)
    print(f"\n{dump.stem}: " + ", ".join(f"{t} {before[t]}->{after[t]}" for t in sorted(before)))
    assert {t: after[t] for t in before if t != "schema_version"} == {
        t: n for t, n in before.items() if t != "schema_version"
    }
    assert {k: v for k, v in seat_references(path).items() if k in pointers} == pointers
    assert all(seat for table, refs in pointers.items() for _, seat in refs
               if table != "seat.assists_id")  # fmt: skip


@pytest.fixture(params=RELEASE_DUMPS, ids=[d.stem for d in RELEASE_DUMPS])
def upgraded(
    request: pytest.FixtureRequest, tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> Iterator[Harness]:
    """A judge started on an old release's database (serve applies the migrations)."""
    path = load_release(request.param, tmp_path / "judge.db")
    with running_judge(path, smtp_sink) as h:
        yield h


def signon(power: str) -> str:
    return f"SIGNON {power.lower()}@classic {secret(power)}\n"


def test_the_games_of_an_earlier_release_play_on_by_mail(upgraded: Harness) -> None:
    h = upgraded
    recorded = [row.version for row in SchemaVersion.select().order_by(SchemaVersion.version)]
    assert recorded[-1] == LATEST
    assert get_game("classic").phase == "F1901M"
    # France's order is still France's, and the old password still signs on.
    status = h.command(player("FRANCE"), signon("FRANCE") + "STATUS")
    assert "A BUR - BEL" in status and "(by france," in status
    # The draw votes cast under the old release still count: France, England and Russia
    # voted; Turkey changes its mind and the other three vote; the game ends in a draw.
    for power in ("TURKEY", "AUSTRIA", "GERMANY", "ITALY"):
        assert "ERROR" not in h.command(player(power), signon(power) + "VOTE DRAW")
    h.wait_until(lambda: str(get_game("classic").state) == "finished", what="the draw")
    # The tables the new releases added work: an observer's confirmation is one of them.
    asked = h.command("watcher2@example.test", "OBSERVE watcher2@demo watchpw")
    assert "CONFIRM" in asked
    # The Democratic game's citizens vote on, and the forming game takes players.
    voted = h.command("citizen00@citizens.test", "SIGNON citizen00@demo pw-citizen00")
    assert "ERROR" not in voted and "demo" in voted
    assert "you joined" in h.command(player("ITALY"), f"JOIN forming {secret('ITALY')}")


def test_an_upgrade_that_would_lose_rows_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard: a migration that rebuilds `seat` with foreign keys on (as migration 3 once
    did) empties `ballot`; the upgrade is refused and rolled back instead."""
    import mailjudge.tools.migrations as migrations

    path = load_release(RELEASES / "276ab49.sql", tmp_path / "judge.db")
    before = counts(path)

    def rebuild_seat(database: Any, migrator: Any) -> None:
        database.execute_sql("PRAGMA foreign_keys = ON")  # a no-op inside the transaction
        database.execute_sql('DELETE FROM "ballot"')  # what the cascade did

    broken = (*MIGRATIONS[:2], migrations.Migration(3, "a careless migration", rebuild_seat))
    monkeypatch.setattr(migrations, "MIGRATIONS", broken)
    db.connect(f"sqlite:///{path}")
    try:
        with pytest.raises(SchemaError, match=r"lose rows of ballot \(19 rows, 0 after\)"):
            upgrade()
        assert row_counts()["ballot"] == before["ballot"]
        assert current_version(db.database_proxy.obj) == 2
    finally:
        db.close()


def test_upgrade_is_idempotent_and_a_newer_database_is_refused(sqlite_db: str) -> None:
    assert upgrade() == []  # the fixture's database is new: made at the newest schema
    assert current_version(db.database_proxy.obj) == LATEST
    SchemaVersion.create(version=LATEST + 1, what="from a newer judge")
    with pytest.raises(SchemaError, match="newer than this judge"):
        upgrade()


# Columns the migrations add to tables the old release had: (table, column).
ADDED_COLUMNS = (
    ("seat", "preference"), ("game", "clock_error"), ("seat", "public_name"),
    ("game", "deadline_sequence"), ("outbox", "relay_reply"), ("game", "options"),
    ("seat", "standin"),
    ("person", "record_name"), ("person", "record_public"),
    ("inbound_message", "game_key"), ("inbound_message", "claimed_by"), ("person", "address"),
    ("phase_record", "kept"), ("game", "privacy_hash"),
    ("outbox", "leased_by"),
)  # fmt: skip


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


def copy_release_to_postgres(path: Path) -> None:
    """The release's schema and rows on the bound PostgreSQL database: its tables as the
    models make them less the columns it did not have yet, then every row, as it was."""
    from peewee import BooleanField

    source = sqlite3.connect(path)
    try:
        tables = {r[0] for r in source.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        models = [m for m in ALL_TABLES if m._meta.table_name in tables]
        db.database_proxy.create_tables(models)
        database = db.database_proxy
        database.execute_sql("SET session_replication_role = replica")  # rows in any order
        for model in models:
            table = model._meta.table_name
            columns = [r[1] for r in source.execute(f'PRAGMA table_info("{table}")')]
            for field in model._meta.sorted_fields:
                if field.column_name not in columns:
                    database.execute_sql(f'ALTER TABLE "{table}" DROP COLUMN "{field.column_name}"')
            flags = {
                f.column_name for f in model._meta.sorted_fields if isinstance(f, BooleanField)
            }
            names = ", ".join(f'"{c}"' for c in columns)
            marks = ", ".join(["%s"] * len(columns))
            for row in source.execute(f'SELECT {names} FROM "{table}"'):
                values = [
                    bool(v) if c in flags and v is not None else v
                    for c, v in zip(columns, row, strict=True)
                ]
                database.execute_sql(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', values)
            if "id" in columns:
                database.execute_sql(
                    f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                    f'(SELECT COALESCE(MAX(id), 0) + 1 FROM "{table}"), false)'
                )
        database.execute_sql("SET session_replication_role = DEFAULT")
    finally:
        source.close()


def pg_seat_references() -> dict[str, list[tuple[int, int | None]]]:
    found = {}
    for table, column in SEAT_REFERENCES:
        if not db.database_proxy.table_exists(table):
            continue
        rows = db.database_proxy.execute_sql(f'SELECT id, "{column}" FROM "{table}" ORDER BY id')
        found[f"{table}.{column}"] = [(int(i), s) for i, s in rows.fetchall()]
    return found


@pytest.mark.parametrize("dump", RELEASE_DUMPS, ids=[d.stem for d in RELEASE_DUMPS])
def test_every_row_of_an_earlier_release_survives_the_upgrade_on_postgresql(
    dump: Path, tmp_path: Path, postgres_url: str
) -> None:
    """The same releases' rows copied into PostgreSQL as that release had them, upgraded
    there: every table keeps its rows and every seat reference."""
    path = load_release(dump, tmp_path / "judge.db")
    db.connect(postgres_url)
    try:
        copy_release_to_postgres(path)
        before, pointers = row_counts(), pg_seat_references()
        assert before == {t: n for t, n in counts(path).items()}
        upgrade()
        assert current_version(db.database_proxy.obj) == LATEST
        after = row_counts()
        print(f"\n{dump.stem} (PostgreSQL): "
              + ", ".join(f"{t} {before[t]}->{after[t]}" for t in sorted(before)))  # fmt: skip
        assert {t: after[t] for t in before if t != "schema_version"} == {
            t: n for t, n in before.items() if t != "schema_version"
        }
        assert {k: v for k, v in pg_seat_references().items() if k in pointers} == pointers
        france = get_game("classic").seats.where(Seat.name == "france").get()
        assert [line.submitted_by_id for line in orders_on_file(get_game("classic"))["FRANCE"]] == [
            france.id
        ]
    finally:
        db.close()


def test_mail_an_earlier_release_held_for_a_bouncing_address_goes_out_at_signon(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """Issue 51.7: release 8c26d25 (0.1.0) gave up on mail to an address that bounced
    three times ("failed", "not sent: ... it is held until the player signs on again"),
    and the SIGNON of this judge wakes only queued held mail: after the upgrade it was
    never sent. Migration 17 holds it as this judge does: it stays held while the address
    bounces, and goes out when the player signs on."""
    from datetime import UTC, datetime, timedelta

    from mailjudge.store.models import HELD, Outbox

    path = load_release(RELEASES / "8c26d25.sql", tmp_path / "judge.db")
    france, when = player("FRANCE"), datetime.now(UTC) - timedelta(days=2)
    stamp = when.replace(tzinfo=None).isoformat(" ")
    with sqlite3.connect(path) as conn:  # as release 8c26d25 left them
        for _ in range(3):
            conn.execute("INSERT INTO bounce (address, outbox_id, status, diagnostic, created_at) "
                         "VALUES (?, NULL, '5.1.1', 'user unknown', ?)", (france, stamp))  # fmt: skip
        raw = (b"From: judge@example.test\r\nTo: france@players.test\r\nSubject: [classic] "
               b"held results\r\nMessage-ID: <held-in-0.1.0@example.test>\r\n\r\nThe results.\r\n")  # fmt: skip
        conn.execute(
            "INSERT INTO outbox (to_addrs, subject, raw, draft, state, attempts, "
            "next_attempt_at, last_error, message_id, game_id, inbound_id, created_at, sent_at) "
            "VALUES (?, '[classic] held results', ?, NULL, 'failed', 0, ?, ?, "
            "'<held-in-0.1.0@example.test>', NULL, NULL, ?, NULL)",
            (france, raw, stamp, f"not sent: mail to {france} bounced 3 times; it is held "
             "until the player signs on again", stamp),
        )  # fmt: skip
    conn.close()

    def held() -> Outbox:
        return Outbox.get(Outbox.message_id == "<held-in-0.1.0@example.test>")

    def delivered() -> list[Any]:
        return [m for m in smtp_sink.mails if b"<held-in-0.1.0@example.test>" in m.raw]

    with running_judge(path, smtp_sink) as h:
        # Looked at by the sender once and held again: the address still bounces.
        h.wait_until(lambda: held().attempts == 0 and held().next_attempt_at > when + timedelta(days=2),
                     what="the held mail looked at")  # fmt: skip
        row = held()
        assert row.state == "queued" and row.last_error == (
            f"{HELD}mail to {france} bounced 3 times; sent when the player signs on again"
        )
        assert delivered() == []
        assert "ERROR" not in h.command(france, signon("FRANCE") + "STATUS")
        h.wait_until(lambda: len(delivered()) == 1, what="the held mail sent at SIGNON")
        h.wait_until(lambda: held().state == "sent", what="its outcome recorded")
    assert delivered()[0].rcpt_tos == [france]


def test_migration_17_on_both_databases(any_db: str) -> None:
    """The conversion itself on SQLite and PostgreSQL: the held mail of 0.1.0 becomes
    queued and held; other failed mail is left as it was."""
    from mailjudge.store.models import HELD, Outbox
    from mailjudge.tools.migrations import OLD_HELD_END, OLD_HELD_START, _held_mail_queued

    old = f"{OLD_HELD_START}mail to a@b.test bounced 3 times{OLD_HELD_END}"
    Outbox.create(to_addrs="a@b.test", raw=b"x", state="failed", last_error=old,
                  message_id="<old-held@x>")  # fmt: skip
    Outbox.create(to_addrs="c@b.test", raw=b"x", state="failed",
                  last_error="SMTPRecipientsRefused: 550 no such user", message_id="<gone@x>")  # fmt: skip
    _held_mail_queued(db.database_proxy.obj, None)  # type: ignore[arg-type]
    converted = Outbox.get(Outbox.message_id == "<old-held@x>")
    assert (converted.state, converted.last_error) == (
        "queued",
        f"{HELD}mail to a@b.test bounced 3 times; sent when the player signs on again",
    )
    assert Outbox.get(Outbox.message_id == "<gone@x>").state == "failed"


def test_migration_24_keeps_the_caretaker_a_game_chose(any_db: str) -> None:
    """Issue 55: the stand-in now plays; a game that set STANDIN before keeps the caretaker
    it chose (STANDIN_CARETAKER), and a game without STANDIN is left as it was."""
    from mailjudge.store.models import Game, Person
    from mailjudge.tools.migrations import _standin_caretaker

    master = Person.create(email="m@x.test")
    Game.create(name="kept", master=master, rules="STANDIN NO_PRESS")
    Game.create(name="plain", master=master, rules="NO_PRESS")
    _standin_caretaker(db.database_proxy.obj, None)  # type: ignore[arg-type]
    assert set(Game.get(Game.name == "kept").rules) == {"STANDIN", "STANDIN_CARETAKER", "NO_PRESS"}
    assert set(Game.get(Game.name == "plain").rules) == {"NO_PRESS"}

"""Storage: the same tables and the same code on SQLite and on PostgreSQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
import pytest
from peewee import Database, DataError, IntegrityError
from psycopg.conninfo import conninfo_to_dict

from mailjudge.engine.rules import RuleSet, apply_change
from mailjudge.secrecy.passwords import hash_password, verify_password
from mailjudge.store import db
from mailjudge.store.models import (
    Ballot,
    Game,
    InboundMessage,
    MailboxCursor,
    OrderLine,
    Outbox,
    Person,
    PhaseRecord,
    Press,
    Proposal,
    Seat,
)
from mailjudge.tools import migrations
from mailjudge.tools.migrations import ALL_TABLES
from mailjudge.variants.democratic.tables import CountryList
from mailjudge.variants.diplonomic.tables import Rulebook

DEADLINE = datetime(2031, 3, 1, 12, 0, tzinfo=ZoneInfo("Europe/London"))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'judge.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    database = db.connect(url)
    migrations.upgrade()
    yield database
    db.close()


def make_game(name: str = "ivory") -> Game:
    master, _ = Person.get_or_create(email="master@example.org")
    return Game.create(name=name, master=master)


# -- opening a database ------------------------------------------------------------------


def test_sqlite_file_is_created_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "new" / "judge.db"
    database = db.connect(f"sqlite:///{path}")
    try:
        assert path.exists()
        assert database.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert database.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
        assert database.execute_sql("PRAGMA busy_timeout").fetchone()[0] == 10_000
        migrations.upgrade()
        migrations.upgrade()  # a second start finds the tables there and leaves them
        Person.create(email="a@example.org")
    finally:
        db.close()
    # Another process opening the file sees WAL mode and the row.
    other = sqlite3.connect(path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert other.execute("SELECT email FROM person").fetchall() == [("a@example.org",)]
    other.close()


def test_sqlite_in_memory() -> None:
    db.connect("sqlite:///:memory:")
    try:
        migrations.upgrade()
        assert make_game().name == "ivory"
        assert not db.is_postgres()
    finally:
        db.close()


def test_sqlite_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db.connect("sqlite:///data/judge.db")
    db.close()
    assert (tmp_path / "data" / "judge.db").exists()


@pytest.mark.parametrize(
    ("url", "fault"),
    [
        ("mailjudge.db", "has no scheme"),
        ("mysql://localhost/judge", "unknown kind 'mysql'"),
        ("sqlite://", "names no file"),
        ("postgresql://postgres@127.0.0.1:5432/", "names no database"),
        ("postgresql://postgres@127.0.0.1:port/judge", "bad port"),
    ],
)
def test_bad_url_says_how_to_write_one(url: str, fault: str) -> None:
    with pytest.raises(ValueError, match=fault) as info:
        db.open_database(url)
    assert "write sqlite:///path/to/judge.db" in str(info.value)
    assert "postgresql://user@host:port/dbname" in str(info.value)


def test_postgres_url_parts_reach_the_driver() -> None:
    """The URL goes to libpq as it is (its own forms: several hosts, sslmode); the
    connection's defaults fill in only what it does not say."""
    url = "postgresql://judge:s%40cret@db.example.org:6543/mail%20judge?sslmode=require&connect_timeout=9"
    database = db.open_database(url)
    assert conninfo_to_dict(database.database) == {
        "user": "judge", "password": "s@cret", "host": "db.example.org", "port": "6543",
        "dbname": "mail judge", "sslmode": "require", "connect_timeout": "9",
    }  # fmt: skip
    assert "connect_timeout" not in database.connect_params
    assert database.connect_params["keepalives_idle"] == db.CONNECTION_DEFAULTS["keepalives_idle"]
    # postgres:// is libpq's other spelling: the same connection
    assert db.open_database(url.replace("postgresql:", "postgres:")).database == url


def test_a_url_with_several_hosts_is_libpqs_own() -> None:
    """libpq's failover form: both hosts and target_session_attrs reach the driver."""
    url = "postgresql://h1:5432,h2:5433/judge?target_session_attrs=read-write"
    parsed = conninfo_to_dict(db.open_database(url).database)
    assert parsed["host"] == "h1,h2" and parsed["port"] == "5432,5433"
    assert parsed["target_session_attrs"] == "read-write"


def test_postgres_tables_live_in_the_fixture_schema(postgres_url: str) -> None:
    database = db.connect(postgres_url)
    try:
        migrations.upgrade()
        assert db.is_postgres()
        schema = database.execute_sql("SELECT current_schema()").fetchone()[0]
        assert schema.startswith("test_")
        tables = {
            name
            for (name,) in database.execute_sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                (schema,),
            ).fetchall()
        }
        assert tables == {model._meta.table_name for model in ALL_TABLES}
    finally:
        db.close()


# -- round trips ----------------------------------------------------------------------


def test_round_trip_of_a_game_and_its_rows(database: Database) -> None:
    game = make_game()
    game.rules = str(apply_change(RuleSet(), "+SOLITAIRE +NO_PRESS"))
    game.deadline = DEADLINE
    game.state = "active"
    game.phase = "S1901M"
    game.save()
    player = Person.create(email="player@example.org")
    seat = Seat.create(
        game=game,
        person=player,
        role="player",
        name="FRANCE",
        powers="FRANCE",
        password_hash=hash_password("Baguette1"),
    )
    teammate = Seat.create(
        game=game,
        person=Person.create(email="mate@example.org"),
        role="teammate",
        name="mate",
        powers="FRANCE",
        assists=seat,
        status="invited",
    )
    position = {"phase": "S1901M", "units": [{"power": "FRANCE", "type": "A", "loc": "par"}]}
    PhaseRecord.create(
        game=game,
        phase="S1901M",
        sequence=0,
        position=position,
        orders={"FRANCE": ["A PAR - BUR"]},
        results={"A PAR - BUR": "ok"},
    )
    OrderLine.create(
        game=game, phase="S1901M", power="FRANCE", text="A PAR - BUR", submitted_by=teammate
    )
    Press.create(
        game=game,
        phase="S1901M",
        sender=seat,
        recipients="ENGLAND MASTER",
        grey=True,
        body="Hello, «neighbour»",
    )
    Ballot.create(game=game, phase="S1901M", kind="draw", voter=seat, content={"draw": True})
    proposal = Proposal.create(
        game=game, phase="S1901M", kind="rules", number=1, text="REPEAL RULE 9", author=seat
    )
    Rulebook.create(game=game, version=2, text="1. Be nice.", proposal=proposal)
    CountryList.create(game=game, power="FRANCE", address="ivory-france@example.org")
    MailboxCursor.create(mailbox="judge@imap/INBOX", uidvalidity=3_000_000_000, last_uid=2**40)

    game = Game.get(Game.name == "ivory")
    assert RuleSet.parse(game.rules) == {
        "SOLITAIRE",
        "NO_DEADLINE",
        "CD_DUMMIES",
        "ALWAYS_WAIT",
        "NO_PRESS",
    }
    assert game.deadline == DEADLINE
    assert game.deadline.tzinfo == UTC
    assert game.master.email == "master@example.org"
    seat = Seat.get(Seat.game == game, Seat.name == "FRANCE")
    assert verify_password("Baguette1", seat.password_hash)
    assert [t.name for t in seat.teammates] == ["mate"]
    record = PhaseRecord.get(PhaseRecord.game == game, PhaseRecord.phase == "S1901M")
    assert record.position == position
    assert record.orders == {"FRANCE": ["A PAR - BUR"]}
    line = OrderLine.get()
    assert (line.submitted_by.name, line.submitted_by.assists.name) == ("mate", "FRANCE")
    assert Press.get().body == "Hello, «neighbour»"
    assert Press.get().grey is True
    assert Ballot.get().content == {"draw": True}
    assert Rulebook.get().proposal.text == "REPEAL RULE 9"
    assert CountryList.get().address == "ivory-france@example.org"
    cursor = MailboxCursor.get()
    assert (cursor.uidvalidity, cursor.last_uid) == (3_000_000_000, 2**40)


def test_mail_rows_keep_raw_bytes(database: Database) -> None:
    raw = b"Message-ID: <1@x>\r\n\r\nSIGNON FIVORY caf\xe9\r\n\x00\xff"
    inbound = InboundMessage.create(message_id="<1@x>", body_hash="a" * 64, raw=raw)
    game = make_game()
    Outbox.create(
        to_addrs="player@example.org",
        subject="ivory: ok",
        raw=raw,
        message_id="<reply-1@judge>",
        game=game,
        inbound=inbound,
    )
    assert InboundMessage.get().raw == raw
    assert isinstance(InboundMessage.get().raw, bytes)
    outbox = Outbox.get()
    assert (outbox.raw, outbox.state, outbox.inbound.message_id) == (raw, "queued", "<1@x>")
    assert outbox.next_attempt_at <= datetime.now(UTC)


def test_queries_on_times_compare_instants_across_zones(database: Database) -> None:
    game = make_game()
    game.deadline = datetime(2030, 1, 1, 12, 0, tzinfo=ZoneInfo("America/New_York"))
    game.save()
    just_before = datetime(2030, 1, 1, 16, 59, tzinfo=UTC)
    just_after = datetime(2030, 1, 1, 17, 1, tzinfo=UTC)
    assert Game.select().where(Game.deadline <= just_before).count() == 0
    assert Game.select().where(Game.deadline <= just_after).count() == 1


def test_naive_datetime_is_refused(database: Database) -> None:
    game = make_game()
    game.deadline = datetime(2030, 1, 1, 12, 0)
    with pytest.raises(ValueError, match="has no time zone"):
        game.save()


def test_stored_times_are_the_same_instant_as_utc_whatever_the_zone(database: Database) -> None:
    """A UTC datetime is stored without astimezone; any other zone is converted first."""
    field = Game.deadline
    for zone in (UTC, ZoneInfo("UTC"), ZoneInfo("Europe/London"), ZoneInfo("Asia/Kolkata")):
        when = datetime(2030, 7, 1, 12, 30, 15, 250, tzinfo=zone)
        assert field.db_value(when) == when.astimezone(UTC).replace(tzinfo=None)
    assert field.db_value(None) is None
    assert field.db_value("2030-07-01 12:30:15") == datetime(2030, 7, 1, 12, 30, 15)


def test_sqlite_savepoints_are_named_by_depth_and_nest_as_before(tmp_path: Path) -> None:
    """On SQLite a savepoint's name is its depth (the statements' text repeats, and sqlite3
    compiles each text once): savepoints one after another share a name, nested ones
    differ, and each still takes back its own work alone."""
    db.connect(f"sqlite:///{tmp_path / 'judge.db'}")
    try:
        migrations.upgrade()
        proxy = db.database_proxy
        with proxy.atomic():
            assert proxy.savepoint().sid == proxy.savepoint().sid == "s1"
            with proxy.atomic():
                assert proxy.savepoint().sid == "s2"
                make_game("kept")
                with pytest.raises(IntegrityError), proxy.atomic():
                    assert proxy.savepoint().sid == "s3"
                    make_game("twice")
                    make_game("twice")
                with proxy.atomic():
                    make_game("also-kept")
            with pytest.raises(IntegrityError), proxy.atomic():
                make_game("dropped")
                with proxy.atomic():
                    make_game("dropped-too")
                make_game("kept")  # the same name: this savepoint is rolled back
        names = sorted(g.name for g in Game.select())
        assert names == ["also-kept", "kept"]
    finally:
        db.close()


# -- constraints ------------------------------------------------------------------------


def refused(database: Database, create: object) -> None:
    # PostgreSQL reports an over-long value as a DataError, SQLite through the CHECK.
    with pytest.raises((IntegrityError, DataError)), database.atomic():
        create()  # type: ignore[operator]


def test_game_names_are_unique_and_lower_case(database: Database) -> None:
    make_game("ivory")
    master = Person.get()
    refused(database, lambda: Game.create(name="ivory", master=master))
    refused(database, lambda: Game.create(name="Ivory", master=master))
    refused(database, lambda: Game.create(name="x" * 33, master=master))
    assert Game.select().count() == 1


def test_states_and_roles_are_checked(database: Database) -> None:
    game = make_game()
    refused(database, lambda: Game.create(name="other", master=game.master, state="over"))
    refused(database, lambda: Seat.create(game=game, role="king", name="x"))
    refused(database, lambda: InboundMessage.create(body_hash="b", raw=b"", state="lost"))
    refused(database, lambda: Outbox.create(to_addrs="a", raw=b"", message_id="<m>", state="lost"))


def test_seat_names_are_unique_within_a_game_only(database: Database) -> None:
    ivory, jade = make_game("ivory"), make_game("jade")
    Seat.create(game=ivory, role="player", name="FRANCE", powers="FRANCE")
    Seat.create(game=jade, role="player", name="FRANCE", powers="FRANCE")
    refused(database, lambda: Seat.create(game=ivory, role="observer", name="FRANCE"))


def test_one_phase_record_per_phase_and_rollback_deletes_later_ones(database: Database) -> None:
    game = make_game()
    for sequence, phase in enumerate(["S1901M", "F1901M", "W1901A"]):
        PhaseRecord.create(game=game, phase=phase, sequence=sequence, position={})
    refused(
        database, lambda: PhaseRecord.create(game=game, phase="F1901M", sequence=9, position={})
    )
    refused(
        database, lambda: PhaseRecord.create(game=game, phase="S1902M", sequence=1, position={})
    )
    PhaseRecord.delete().where(PhaseRecord.game == game, PhaseRecord.sequence > 0).execute()
    assert [r.phase for r in PhaseRecord.select()] == ["S1901M"]


def test_a_later_ballot_must_replace_the_earlier(database: Database) -> None:
    game = make_game()
    seat = Seat.create(game=game, role="player", name="FRANCE", powers="FRANCE")
    Ballot.create(
        game=game, phase="F1902M", kind="proposal", subject="1", voter=seat, content="FOR"
    )
    Ballot.create(
        game=game, phase="F1902M", kind="proposal", subject="2", voter=seat, content="AGAINST"
    )
    refused(
        database,
        lambda: Ballot.create(
            game=game, phase="F1902M", kind="proposal", subject="1", voter=seat, content="AGAINST"
        ),
    )
    (
        Ballot.insert(
            game=game, phase="F1902M", kind="proposal", subject="1", voter=seat, content="AGAINST"
        )
        .on_conflict(
            conflict_target=[Ballot.voter, Ballot.kind, Ballot.subject, Ballot.phase],
            update={Ballot.content: "AGAINST"},
        )
        .execute()
    )
    votes = {b.subject: b.content for b in Ballot.select()}
    assert votes == {"1": "AGAINST", "2": "AGAINST"}


def test_inbound_mail_is_deduplicated(database: Database) -> None:
    InboundMessage.create(message_id="<1@x>", body_hash="same", raw=b"one")
    refused(
        database,
        lambda: InboundMessage.create(message_id="<1@x>", body_hash="other", raw=b"one again"),
    )
    # Without a Message-ID the hash decides; with one, equal bodies are distinct mails.
    InboundMessage.create(message_id="<2@x>", body_hash="same", raw=b"two")
    InboundMessage.create(message_id=None, body_hash="same", raw=b"three")
    refused(
        database,
        lambda: InboundMessage.create(message_id=None, body_hash="same", raw=b"three again"),
    )
    assert InboundMessage.select().count() == 3


def test_foreign_keys_are_enforced_and_games_cascade(database: Database) -> None:
    refused(database, lambda: Seat.create(game=999, role="player", name="FRANCE"))
    game = make_game()
    seat = Seat.create(game=game, role="player", name="FRANCE", powers="FRANCE")
    Ballot.create(game=game, phase="S1901M", kind="draw", voter=seat, content=True)
    OrderLine.create(game=game, phase="S1901M", power="FRANCE", text="A PAR H", submitted_by=seat)
    Outbox.create(to_addrs="a@example.org", raw=b"x", message_id="<m@judge>", game=game)
    game.delete_instance()
    assert (Seat.select().count(), Ballot.select().count(), OrderLine.select().count()) == (0, 0, 0)
    # Mail already queued still goes out.
    assert Outbox.get().game is None


def test_game_sequence_is_a_compare_and_set(database: Database) -> None:
    game = make_game()

    def advance(seen: int) -> int:
        return (
            Game.update(sequence=Game.sequence + 1)
            .where(Game.id == game.id, Game.sequence == seen)
            .execute()
        )

    assert advance(0) == 1
    assert advance(0) == 0  # a second worker that read the same phase does nothing
    assert Game.get_by_id(game.id).sequence == 1


# -- claiming work -------------------------------------------------------------------------


def test_sqlite_transactions_take_the_write_lock_at_once(tmp_path: Path) -> None:
    path = tmp_path / "judge.db"
    database = db.connect(f"sqlite:///{path}")
    try:
        migrations.upgrade()
        with database.atomic():
            database.execute_sql("SELECT 1")
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            other.close()
    finally:
        db.close()


def test_postgres_workers_skip_rows_another_worker_holds(postgres_url: str) -> None:
    database = db.connect(postgres_url)
    try:
        migrations.upgrade()
        first = InboundMessage.create(message_id="<1@x>", body_hash="1", raw=b"1")
        second = InboundMessage.create(message_id="<2@x>", body_hash="2", raw=b"2")
        other = psycopg.connect(postgres_url)
        try:
            with other.cursor() as cursor:
                cursor.execute(
                    "SELECT id FROM inbound_message WHERE id = %s FOR UPDATE", (first.id,)
                )
            with database.atomic():
                queued = InboundMessage.select().where(InboundMessage.state == "queued")
                claimed = [m.id for m in db.skip_locked(queued.order_by(InboundMessage.id))]
            assert claimed == [second.id]
        finally:
            other.close()
    finally:
        db.close()


def test_a_mail_s_statements_are_prepared_by_the_driver_once_per_connection(
    postgres_url: str,
) -> None:
    """psycopg prepares on the server a statement its connection has run more than
    db.PREPARE_AFTER times (what compiled_queries did by hand), planned at each run, gone
    with the connection. (A ROLLBACK, of a transaction or to a savepoint, makes psycopg
    forget them all: they are prepared again as they come.)"""
    db.connect(postgres_url)
    try:
        migrations.upgrade()
        person = Person.create(email="gm@example.org")
        game = Game.create(name="prep", master=person)

        def prepared() -> list[str]:
            cursor = db.database_proxy.execute_sql(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE %s",
                ['%FROM "game" AS "t1" WHERE ("t1"."id" = $1)%'],
            )
            return [row[0] for row in cursor.fetchall()]

        with db.database_proxy.atomic():
            for _ in range(db.PREPARE_AFTER):
                assert Game.get_by_id(game.id).name == "prep"
            assert prepared() == []
            assert Game.get_by_id(game.id).name == "prep"
        [name] = prepared()
        assert Game.get_by_id(game.id).name == "prep"
        assert prepared() == [name]
        setting = db.database_proxy.execute_sql("SHOW plan_cache_mode").fetchone()[0]
        assert setting == "force_custom_plan"
        db.close()
        db.connect(postgres_url)
        assert prepared() == []
    finally:
        db.close()

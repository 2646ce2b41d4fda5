"""Numbered schema migrations, so that a judge with live games can be upgraded in place.

The ``schema_version`` table records each migration applied. ``upgrade`` (run by ``init``
and ``serve``) brings any database to the newest schema:

- a new, empty database gets every table at once and is recorded at the newest version;
- a database from before versions were kept (it has games but no ``schema_version``) is
  the baseline, version 1: the tables of release 21f9223, the first with games in play;
- then every migration above the recorded version runs, each with its record in one
  transaction, in order.

A new migration goes at the end of MIGRATIONS with the next number; the models change in
the same commit. A new table is created from its model; a new column is added with
``ALTER TABLE ... ADD COLUMN`` (a NOT NULL column with a DEFAULT), never by rebuilding the
table: peewee's ``migrator.add_column`` with a default rebuilds the table on SQLite, and the
DROP of the old table fires the foreign-key actions of every table that points at it
(migration 3 as first written emptied ``ballot`` and blanked every order's, press's and
proposal's author that way). A judge never downgrades: a database newer than its code is
refused with a message saying so.

A migration never loses a row: on SQLite the migrations run with foreign keys off (a
rebuild cannot cascade), ``PRAGMA foreign_key_check`` must find nothing afterwards, and on
every database each table must hold at least as many rows after as before; otherwise the
whole upgrade is rolled back and refused with the table named.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from peewee import Database, SqliteDatabase
from playhouse.migrate import SchemaMigrator

from mailjudge.store.db import database_proxy
from mailjudge.store.models import (
    ALL_MODELS,
    HELD,
    AddressCounter,
    BaseModel,
    Bounce,
    Confirmation,
    DeadlineExtension,
    DiaryEntry,
    Game,
    JoinRequest,
    JudgeBeat,
    JudgeOutage,
    Opening,
    OpeningsSubscriber,
    OperatorAlert,
    Outbox,
    RecordEntry,
    SchemaVersion,
    StalemateQuestion,
    utcnow,
)
from mailjudge.store.signal_models import SIGNAL_MODELS
from mailjudge.store.stats_models import STATS_MODELS
from mailjudge.store.tournament_models import TOURNAMENT_MODELS
from mailjudge.variants import VARIANTS

log = logging.getLogger(__name__)

# Every table: the shared ones and each variant's own.
ALL_TABLES: tuple[type[BaseModel], ...] = (
    *ALL_MODELS,
    *STATS_MODELS,
    *SIGNAL_MODELS,
    *TOURNAMENT_MODELS,
    *(table for variant in VARIANTS.values() for table in variant.tables),
)


# PostgreSQL's index for the claim by game (migration 14).
GAME_CLAIM_INDEX = "inbound_message_state_game_key_received_at_id"


class SchemaError(RuntimeError):
    """The database cannot be brought to this judge's schema; says why."""


@dataclass(frozen=True)
class Migration:
    number: int
    what: str
    apply: Callable[[Database, SchemaMigrator], None]


def _baseline(database: Database, migrator: SchemaMigrator) -> None:
    """Version 1 is the schema as release 21f9223 left it: nothing to change."""


def _security_tables(database: Database, migrator: SchemaMigrator) -> None:
    database.create_tables([AddressCounter, Confirmation, Bounce], safe=True)


def _veterans(database: Database, migrator: SchemaMigrator) -> None:
    # ADD COLUMN, not peewee's add_column: that rebuilds `seat` on SQLite (see above).
    database_proxy.execute_sql(
        'ALTER TABLE "seat" ADD COLUMN "preference" VARCHAR(255) NOT NULL DEFAULT \'\''
    )
    database.create_tables([DiaryEntry], safe=True)


def _clock_error(database: Database, migrator: SchemaMigrator) -> None:
    # One ALTER TABLE with its default, in both SQLite and PostgreSQL: peewee's add_column
    # rebuilds SQLite's game table to make it NOT NULL, and the orders on file went with
    # the old table (tests/ops/test_migrations.py).
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE game ADD COLUMN clock_error TEXT NOT NULL DEFAULT ''"
    )


def _public_names(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error: a rebuild of seat would fire the foreign-key
    # actions of ballots, orders, press and proposals.
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE seat ADD COLUMN public_name VARCHAR(64) NOT NULL DEFAULT ''"
    )


def _deadline_sequence(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. The games under way start at 0: their
    # players have been sent no invitation yet, so any number that grows from here does.
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE game ADD COLUMN deadline_sequence INTEGER NOT NULL DEFAULT 0"
    )


def _relay_reply(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. Mail sent before it has no reply kept: "".
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE outbox ADD COLUMN relay_reply TEXT NOT NULL DEFAULT ''"
    )


def _game_options(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error: a game from before has set no option ("{}").
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE game ADD COLUMN options TEXT NOT NULL DEFAULT '{}'"
    )


def _records(database: Database, migrator: SchemaMigrator) -> None:
    # Plain ALTER TABLEs, as for clock_error; nobody's record is public until they say so.
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE person ADD COLUMN record_name VARCHAR(32) NOT NULL DEFAULT ''"
    )
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE person ADD COLUMN record_public BOOLEAN NOT NULL DEFAULT FALSE"
    )
    database.create_tables([RecordEntry], safe=True)


def _openings(database: Database, migrator: SchemaMigrator) -> None:
    database.create_tables([Opening, OpeningsSubscriber], safe=True)


def _standin(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. Nobody has asked for a stand-in yet: false.
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE seat ADD COLUMN standin BOOLEAN NOT NULL DEFAULT FALSE"
    )


def _extensions_and_stalemates(database: Database, migrator: SchemaMigrator) -> None:
    database.create_tables([DeadlineExtension, StalemateQuestion], safe=True)


def _inbound_game_key(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. Mails stored before have no game known: "".
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE inbound_message ADD COLUMN game_key VARCHAR(64) NOT NULL DEFAULT ''"
    )


def _has_column(database: Database, table: str, column: str) -> bool:
    """Whether ``table`` has ``column`` already (a table made from today's model by an
    earlier migration, or the migration run again over a newer schema)."""
    return any(c.name == column for c in database.get_columns(table))


def _outages(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. Claims made before name no holder: they
    # run out by claim_timeout_seconds, as they did.
    if not _has_column(database, "inbound_message", "claimed_by"):
        database.execute_sql(  # type: ignore[no-untyped-call]
            "ALTER TABLE inbound_message ADD COLUMN claimed_by VARCHAR(64) NOT NULL DEFAULT ''"
        )
    database.create_tables([JudgeOutage, JudgeBeat], safe=True)


def _outbox_leases(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for claimed_by. Leases taken before name no holder: they run
    # out by lease_seconds, as they did.
    if not _has_column(database, "outbox", "leased_by"):
        database.execute_sql(  # type: ignore[no-untyped-call]
            "ALTER TABLE outbox ADD COLUMN leased_by VARCHAR(64) NOT NULL DEFAULT ''"
        )


def _game_claim_index(database: Database, migrator: SchemaMigrator | None = None) -> None:
    """PostgreSQL only (its workers claim by game, inbound.game_batches): the index that
    gives a game's waiting mails in the claim's order. With the (state, received_at) index
    alone the server read and sorted the whole backlog for each batch (22 ms with 5,000
    mails queued, the rate falling as a burst grew); with it, 0.1 ms."""
    if isinstance(database, SqliteDatabase):
        return
    database.execute_sql(  # type: ignore[no-untyped-call]
        f"CREATE INDEX IF NOT EXISTS {GAME_CLAIM_INDEX} ON inbound_message "
        "(state, game_key, received_at, id)"
    )


def _takeover_confirmations(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. The confirmations waiting are none of a
    # takeover's: they have no password to keep (""). A database from before migration 2
    # got the table from today's model there, with the column already.
    if _has_column(database, "confirmation", "password_hash"):
        return
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE confirmation ADD COLUMN password_hash VARCHAR(255) NOT NULL DEFAULT ''"
    )


# How release 0.1.0 marked mail held for an address that kept bouncing: failed for good,
# with these words. A SIGNON wakes only queued mail marked HELD, so it was never sent.
OLD_HELD_START = "not sent: "
OLD_HELD_END = "; it is held until the player signs on again"


def _held_mail_queued(database: Database, migrator: SchemaMigrator) -> None:
    """Mail an earlier release gave up on as held for a bouncing address is held the way
    this judge holds it: queued, marked HELD, due now (the sender holds it again at once
    while the address still bounces, and sends it once its player has signed on)."""
    old = Outbox.select(Outbox.id, Outbox.last_error).where(
        (Outbox.state == "failed")
        & Outbox.last_error.startswith(OLD_HELD_START)
        & Outbox.last_error.endswith(OLD_HELD_END)
    )
    now = utcnow()
    for row in list(old):
        why = row.last_error[len(OLD_HELD_START) : -len(OLD_HELD_END)]
        note = f"{HELD}{why}; sent when the player signs on again"
        Outbox.update(state="queued", last_error=note, next_attempt_at=now).where(
            Outbox.id == row.id
        ).execute()


def _operator_alerts(database: Database, migrator: SchemaMigrator) -> None:
    database.create_tables([OperatorAlert], safe=True)


def _person_address(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. The case of addresses stored before is lost
    # ("" sends to the lower-cased email, as before); it is kept from the next mail on.
    if _has_column(database, "person", "address"):
        return
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE person ADD COLUMN address VARCHAR(254) NOT NULL DEFAULT ''"
    )


def _join_requests(database: Database, migrator: SchemaMigrator) -> None:
    database.create_tables([JoinRequest], safe=True)


def _phase_record_kept(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. Phases processed before kept nothing more
    # than their orders ("{}"): a ROLLBACK to one puts back those, as it did.
    if _has_column(database, "phase_record", "kept"):
        return
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE phase_record ADD COLUMN kept TEXT NOT NULL DEFAULT '{}'"
    )


def _privacy_hash(database: Database, migrator: SchemaMigrator) -> None:
    # A plain ALTER TABLE, as for clock_error. A SOLITAIRE game from before keeps its
    # master's password as its privacy password ("": none assigned).
    if _has_column(database, "game", "privacy_hash"):
        return
    database.execute_sql(  # type: ignore[no-untyped-call]
        "ALTER TABLE game ADD COLUMN privacy_hash VARCHAR(255) NOT NULL DEFAULT ''"
    )


def _standin_caretaker(database: Database, migrator: SchemaMigrator) -> None:
    """Until issue 55 the stand-in only took care of a silent power: a game that chose
    STANDIN keeps that stand-in (STANDIN_CARETAKER); new games get the one that plays."""
    games = Game.select(Game.id, Game.rules).where(Game.rules.contains("STANDIN"))
    for game in list(games):
        if "STANDIN" in game.rules and "STANDIN_CARETAKER" not in game.rules:
            caretaker = sorted(game.rules | {"STANDIN_CARETAKER"})
            Game.update(rules=caretaker).where(Game.id == game.id).execute()


def _seat_phases(database: Database, migrator: SchemaMigrator) -> None:
    # Phases processed before have no seat-phase rows: /stats counts from this release on;
    # games finished before are not rated.
    database.create_tables([*STATS_MODELS, *SIGNAL_MODELS, *TOURNAMENT_MODELS], safe=True)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the tables of release 21f9223 (the baseline)", _baseline),
    Migration(2, "address_counter, confirmation and bounce: guessing, consent, bounces",
              _security_tables),
    Migration(3, "seat.preference and diary_entry: njudge's SET PREFERENCE and DIARY",
              _veterans),
    Migration(4, "game.clock_error: a game the clock failed on waits for mailjudge requeue",
              _clock_error),
    Migration(5, "seat.public_name: the name chosen in JOIN ... AS name, for the web",
              _public_names),
    Migration(6, "game.deadline_sequence: the SEQUENCE of the deadline's calendar events",
              _deadline_sequence),
    Migration(7, "outbox.relay_reply: the relay's own words on taking a mail, for STATUS",
              _relay_reply),
    Migration(8, "game.options: the master's SET OPTION values (game/options.py)",
              _game_options),
    Migration(9, "record_entry, person.record_name and record_public: a player's record",
              _records),
    Migration(10, "opening and openings_subscriber: the powers that need a player, and who "
              "asked to hear of them (OPENINGS ON)", _openings),
    Migration(11, "seat.standin: SET STANDIN ON, the stand-in orders while a player is away",
              _standin),
    Migration(12, "deadline_extension and stalemate_question: VOTE EXTEND, STALEMATE_DRAW",
              _extensions_and_stalemates),
    Migration(13, "inboundmessage.game_key: the game a stored mail is for, so that a "
              "worker on PostgreSQL takes one game's mails together", _inbound_game_key),
    Migration(14, "PostgreSQL: an index of inbound_message by state, game, arrival, for the "
              "claim of a game's next mails", _game_claim_index),
    Migration(15, "judge_outage, judge_beat and inboundmessage.claimed_by: deadlines moved "
              "past the judge's outages, claims of dead workers taken up at once", _outages),
    Migration(16, "confirmation.password_hash: a TAKEOVER from an unproven address waits "
              "for its CONFIRM with the taker's password hash", _takeover_confirmations),
    Migration(17, "outbox: mail an earlier release gave up on as held for a bouncing address "
              "is held again, sent when its player signs on", _held_mail_queued),
    Migration(18, "operator_alert: the problems the operator was told of (judge.operator)",
              _operator_alerts),
    Migration(19, "person.address: a player's address as written, the local part's case kept",
              _person_address),
    Migration(20, "join_request: a JOIN from an address that never answered the judge waits "
              "for its CONFIRM", _join_requests),
    Migration(21, "phase_record.kept: what was on file as a phase was processed (orders "
              "sent ahead, each partner's own, the variant's keep), for ROLLBACK",
              _phase_record_kept),
    Migration(22, "game.privacy_hash: a SOLITAIRE game's own privacy password, assigned by "
              "the judge (seed 001), apart from its master's", _privacy_hash),
    Migration(23, "outbox.leased_by: the mails a dead sender had in hand sent again at once",
              _outbox_leases),
    Migration(24, "game.rules: a game that chose STANDIN keeps its caretaker stand-in "
              "(STANDIN_CARETAKER); the stand-in now plays", _standin_caretaker),
    Migration(25, "seat_phase, lever_use, rating, rated_game, seat_signal, seat_pair_notice "
              "and the tournament tables: /stats, ratings, one person in two seats, tournaments",
              _seat_phases),
)  # fmt: skip
LATEST = MIGRATIONS[-1].number


def current_version(database: Database) -> int | None:
    """The newest migration recorded, or None where no version was ever kept."""
    if not database.table_exists(SchemaVersion._meta.table_name):
        return None
    row = SchemaVersion.select().order_by(SchemaVersion.version.desc()).first()
    return int(row.version) if row is not None else None


def schema_refusal(database: Database) -> str | None:
    """Why a command that only reads the judge's tables cannot use this database as it
    is (its schema older or newer than this judge's), in one line; None when it can."""
    version = current_version(database) or 1  # no version kept: the baseline
    if version < LATEST:
        return (
            f"the database is at schema version {version}, this judge needs {LATEST}: "
            "run `mailjudge init` to upgrade it (or start `mailjudge serve`, which does)"
        )
    if version > LATEST:
        return (
            f"the database is at schema version {version}, newer than this judge's "
            f"{LATEST}: install the judge that made it (a judge never downgrades)"
        )
    return None


def upgrade() -> list[Migration]:
    """Bring the bound database to LATEST; the migrations applied, in order. No row of any
    table is lost on the way, or nothing is changed (SchemaError)."""
    database = database_proxy.obj
    if database is None:
        raise SchemaError("no database is connected")
    if not isinstance(database, SqliteDatabase):
        return _upgrade(database)
    # SQLite ignores this pragma inside a transaction: it is set before the upgrade's own.
    was_on = _foreign_keys(database)
    database_proxy.execute_sql("PRAGMA foreign_keys = OFF")
    try:
        if _foreign_keys(database):
            raise SchemaError("the upgrade must not run inside a transaction")
        return _upgrade(database)
    finally:
        if was_on:
            database_proxy.execute_sql("PRAGMA foreign_keys = ON")


def _foreign_keys(database: Database) -> bool:
    return bool(database_proxy.execute_sql("PRAGMA foreign_keys").fetchone()[0])


def row_counts() -> dict[str, int]:
    """Every table's number of rows, by table name."""
    return {
        table: int(database_proxy.execute_sql(f'SELECT count(*) FROM "{table}"').fetchone()[0])
        for table in database_proxy.get_tables()
    }


def _check_nothing_lost(database: Database, before: dict[str, int]) -> None:
    after = row_counts()
    lost = [f"{t} ({n} rows, {after.get(t, 0)} after)" for t, n in before.items()
            if after.get(t, 0) < n]  # fmt: skip
    if lost:
        raise SchemaError(f"the upgrade would lose rows of {', '.join(lost)}; nothing changed")
    if isinstance(database, SqliteDatabase):
        broken = database_proxy.execute_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            tables = sorted({str(row[0]) for row in broken})
            raise SchemaError(
                f"the upgrade would leave rows of {', '.join(tables)} pointing at rows that "
                "do not exist; nothing changed"
            )


def _upgrade(database: Database) -> list[Migration]:
    migrator = SchemaMigrator.from_database(database)
    with database_proxy.atomic():
        version = current_version(database)
        if version is None and not database.table_exists("game"):
            database.create_tables(ALL_TABLES, safe=True)
            _game_claim_index(database)  # not a model's index: PostgreSQL's alone
            SchemaVersion.create(version=LATEST, what="a new database at the newest schema")
            log.info("new database: every table made, at schema version %s", LATEST)
            return []
        if version is None:
            database.create_tables([SchemaVersion], safe=True)
            SchemaVersion.create(version=1, what=MIGRATIONS[0].what)
            version = 1
        if version > LATEST:
            raise SchemaError(
                f"the database is at schema version {version}, newer than this judge's "
                f"{LATEST}: install the judge that made it (a judge never downgrades)"
            )
        applied = []
        before = row_counts() if version < LATEST else {}
        for migration in MIGRATIONS:
            if migration.number > version:
                migration.apply(database, migrator)
                SchemaVersion.create(version=migration.number, what=migration.what)
                applied.append(migration)
        if applied:
            _check_nothing_lost(database, before)
    for migration in applied:  # once committed: a refused upgrade applied none of them
        log.info("schema migration %s applied: %s", migration.number, migration.what)
    return applied

"""Numbered schema migrations, so that a judge with live games can be upgraded in place.

The ``schema_version`` table records each migration applied. ``upgrade`` (run by ``init``
and ``serve``) brings any database to the newest schema:

- a new, empty database gets every table at once and is recorded at the newest version;
- a database from before versions were kept (it has games but no ``schema_version``) is
  the baseline, version 1: the tables of release 21f9223, the first with games in play;
- then every migration above the recorded version runs, each with its record in one
  transaction, in order.

A new migration goes at the end of MIGRATIONS with the next number; the models change in
the same commit. Column changes use peewee's ``playhouse.migrate`` operations, e.g.
``migrate(migrator.add_column("seat", "joined_as", CharField(default="")))``; a new table is
created from its model. A judge never downgrades: a database newer than its code is
refused with a message saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from peewee import Database
from playhouse.migrate import SchemaMigrator

from mailjudge.db import database_proxy
from mailjudge.models import (
    ALL_MODELS,
    AddressCounter,
    BaseModel,
    Bounce,
    Confirmation,
    DiaryEntry,
    SchemaVersion,
)
from mailjudge.variants import VARIANTS

# Every table: the shared ones and each variant's own.
ALL_TABLES: tuple[type[BaseModel], ...] = (
    *ALL_MODELS,
    *(table for variant in VARIANTS.values() for table in variant.tables),
)


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
    from peewee import CharField
    from playhouse.migrate import migrate

    migrate(migrator.add_column("seat", "preference", CharField(max_length=255, default="")))
    database.create_tables([DiaryEntry], safe=True)


def _public_names(database: Database, migrator: SchemaMigrator) -> None:
    from peewee import CharField
    from playhouse.migrate import migrate

    migrate(migrator.add_column("seat", "public_name", CharField(max_length=64, default="")))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the tables of release 21f9223 (the baseline)", _baseline),
    Migration(2, "address_counter, confirmation and bounce: guessing, consent, bounces",
              _security_tables),
    Migration(3, "seat.preference and diary_entry: njudge's SET PREFERENCE and DIARY",
              _veterans),
    Migration(4, "seat.public_name: the name chosen in JOIN ... AS name, for the web",
              _public_names),
)  # fmt: skip
LATEST = MIGRATIONS[-1].number


def current_version(database: Database) -> int | None:
    """The newest migration recorded, or None where no version was ever kept."""
    if not database.table_exists(SchemaVersion._meta.table_name):
        return None
    row = SchemaVersion.select().order_by(SchemaVersion.version.desc()).first()
    return int(row.version) if row is not None else None


def upgrade() -> list[Migration]:
    """Bring the bound database to LATEST; the migrations applied, in order."""
    database = database_proxy.obj
    if database is None:
        raise SchemaError("no database is connected")
    migrator = SchemaMigrator.from_database(database)
    with database_proxy.atomic():
        version = current_version(database)
        if version is None and not database.table_exists("game"):
            database.create_tables(ALL_TABLES, safe=True)
            SchemaVersion.create(version=LATEST, what="a new database at the newest schema")
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
        for migration in MIGRATIONS:
            if migration.number > version:
                migration.apply(database, migrator)
                SchemaVersion.create(version=migration.number, what=migration.what)
                applied.append(migration)
    return applied

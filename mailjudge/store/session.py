"""What a connection is set up with, and the statements that open and end transactions
and savepoints: the same few texts on every connection."""

from __future__ import annotations

import sqlite3
from typing import Any


def settle_postgres(connection: Any, read_only: bool = False) -> None:
    """A new PostgreSQL connection (psycopg 3, autocommit: peewee sends BEGIN itself).

    psycopg prepares on the server the statements a connection runs often; the server then
    keeps one generic plan for all their parameters once it finds it no dearer than the
    first five, costed on the tables' size at that moment, and without autovacuum's
    ANALYZE never makes it again: a plan made while the guard's counters held 60 rows (a
    scan of the table) stayed as they grew to 100,000. Planned at each run, a statement
    always suits the table as it is (tests/ops/test_pg_plans.py); the parse is kept."""
    connection.execute("SET plan_cache_mode = force_custom_plan")
    if read_only:
        # The web's connections (a standby's, or the primary's): the server refuses any
        # write (SQLSTATE 25006), at the start as after.
        connection.execute("SET default_transaction_read_only = on")


def settle_side_file(connection: sqlite3.Connection) -> None:
    """A side file's connection (db.side_file): WAL, as durable as the database, waiting
    for the lock, and what is deleted overwritten (a landed mail holds its SIGNON
    password in clear)."""
    connection.execute("PRAGMA journal_mode = wal")
    connection.execute("PRAGMA synchronous = normal")
    connection.execute("PRAGMA busy_timeout = 10000")
    connection.execute("PRAGMA secure_delete = on")


def sqlite_busy_timeout(connection: sqlite3.Connection, milliseconds: int) -> None:
    connection.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")


def sqlite_checkpoint(connection: sqlite3.Connection) -> bool:
    """Copy the WAL into the database and truncate it; False when a reader was in the way."""
    busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy


def savepoint(name: str) -> str:
    return f"SAVEPOINT {name}"


def release_savepoint(name: str) -> str:
    return f"RELEASE SAVEPOINT {name}"


def rollback_to_savepoint(name: str) -> str:
    return f"ROLLBACK TO SAVEPOINT {name}"


def probe(database: Any) -> None:
    """One cheap statement through peewee: raises when the database cannot be used."""
    database.execute_sql("SELECT 1").fetchone()

"""The statements of the operator's tools and the benchmarks: a backup's copy made safe, a
restore's checks, the status page's sizes, the mark that a judge serves a PostgreSQL
database, the scratch databases and schemas of the benchmarks. None is on a mail's path.
SQLite's on a connection of the tool's own (``execute`` of sqlite3 or psycopg)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

# -- backup and restore -------------------------------------------------------------------


def void_reply_tokens(connection: Any) -> None:
    """Every Reply token the restored games' players were sent is void (game/reply_tokens.py
    names a phase by Game.deadline_sequence): a restore brings a phase back, as a ROLLBACK
    does, never its tokens."""
    connection.execute("UPDATE game SET deadline_sequence = deadline_sequence + 1")


def integrity(connection: sqlite3.Connection) -> str:
    """SQLite's integrity check of the file: "ok" when it is sound."""
    return str(connection.execute("PRAGMA integrity_check").fetchone()[0])


def journal_mode(connection: sqlite3.Connection, mode: str) -> None:
    """``DELETE`` (one self-contained file: a backup) or ``WAL`` (the judge's own)."""
    if mode not in ("DELETE", "WAL"):
        raise ValueError(f"journal mode {mode!r}")
    connection.execute(f"PRAGMA journal_mode={mode}")


def overwrite_deleted(connection: sqlite3.Connection) -> None:
    """What is deleted or overwritten from now on is zeroed, not left in free pages."""
    connection.execute("PRAGMA secure_delete = ON")


def vacuum(connection: sqlite3.Connection) -> None:
    """Rebuild the file: no free page keeps what was overwritten, the space goes back."""
    connection.execute("VACUUM")


def checkpoint(connection: sqlite3.Connection) -> None:
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def stored_mail_ids(connection: sqlite3.Connection) -> list[int]:
    return [int(row[0]) for row in connection.execute("SELECT id FROM inbound_message")]


def stored_mail(connection: sqlite3.Connection, number: int) -> bytes:
    (raw,) = connection.execute(
        "SELECT raw FROM inbound_message WHERE id = ?", (number,)
    ).fetchone()
    return bytes(raw)


def set_stored_mail(connection: sqlite3.Connection, number: int, raw: bytes) -> None:
    connection.execute("UPDATE inbound_message SET raw = ? WHERE id = ?", (raw, number))


def outbox_with_tokens(connection: sqlite3.Connection) -> list[tuple[int, str, bytes]]:
    """(id, draft, raw) of the outbox's mails whose draft holds a Reply token."""
    rows = connection.execute(
        "SELECT id, draft, raw FROM outbox WHERE draft LIKE '%TOKEN:%'"
    ).fetchall()
    return [(int(n), str(draft), bytes(raw)) for n, draft, raw in rows]


def set_outbox_mail(connection: sqlite3.Connection, number: int, draft: str, raw: bytes) -> None:
    connection.execute("UPDATE outbox SET draft = ?, raw = ? WHERE id = ?", (draft, raw, number))


def sqlite_has_table(connection: sqlite3.Connection, table: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return connection.execute(query, (table,)).fetchone() is not None


def postgres_has_table(cursor: Any, table: str) -> bool:
    """Whether the connection's schemas hold ``table`` (a psycopg cursor)."""
    cursor.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_name = %s "
        "AND table_schema = ANY(current_schemas(false))",
        (table,),
    )
    return cursor.fetchone() is not None


# -- status -------------------------------------------------------------------------------


def postgres_database_bytes(database: Any) -> int:
    """The size of the database the peewee ``database`` is connected to."""
    sql = "SELECT pg_database_size(current_database())"
    return int(database.execute_sql(sql).fetchone()[0])


def largest_tables(database: Any, postgres: bool, limit: int) -> list[tuple[str, int]]:
    """The ``limit`` largest tables with their indexes, in bytes (on SQLite it needs the
    dbstat table, which not every build has: sqlite3's error then)."""
    if postgres:
        sql = (
            "SELECT relname, pg_total_relation_size(relid) "
            "FROM pg_catalog.pg_statio_user_tables ORDER BY 2 DESC LIMIT %s"
        )
    else:
        sql = (
            "SELECT s.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_schema s "
            "ON d.name = s.name WHERE s.tbl_name NOT LIKE 'sqlite_%' "
            "GROUP BY s.tbl_name ORDER BY 2 DESC LIMIT ?"
        )
    return [(str(n), int(s)) for n, s in database.execute_sql(sql, (limit,)).fetchall()]


# -- the mark that a judge serves a PostgreSQL database -----------------------------------


def try_advisory_lock(cursor: Any, key: int, shared: bool) -> bool:
    """Take the session's advisory lock ``key`` without waiting (shared: a serving judge;
    exclusive: a restore); whether it was taken."""
    take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    cursor.execute(f"SELECT {take}(%s)", (key,))
    row = cursor.fetchone()
    return bool(row and row[0])


def ping(cursor: Any) -> None:
    """One cheap statement: raises when the session is gone."""
    cursor.execute("SELECT 1")


# -- the benchmarks -----------------------------------------------------------------------


def create_schema(cursor: Any, name: str) -> None:
    cursor.execute(f'CREATE SCHEMA "{name}"')


def drop_schema(cursor: Any, name: str) -> None:
    cursor.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def create_database(cursor: Any, name: str) -> None:
    cursor.execute(f'CREATE DATABASE "{name}"')


def drop_database(cursor: Any, name: str) -> None:
    cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def insert_text(table: str, columns: Sequence[str], param: str) -> str:
    """An INSERT of one row of ``columns`` into ``table`` for the driver's executemany
    (``param``: its parameter mark)."""
    names = ", ".join(f'"{column}"' for column in columns)
    marks = ", ".join([param] * len(columns))
    return f'INSERT INTO "{table}" ({names}) VALUES ({marks})'


def session_pid(database: Any) -> int:
    """The server process of the peewee ``database``'s session."""
    return int(database.execute_sql("SELECT pg_backend_pid()").fetchone()[0])


def lock_waits(cursor: Any) -> list[tuple[str, str]]:
    """(wait event, the statement's first words) of the other sessions of the database
    waiting on a lock now."""
    cursor.execute(
        "SELECT wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 70)"
        " FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
    )
    return [(str(event), str(query)) for event, query in cursor.fetchall()]


def other_sessions(cursor: Any) -> list[int]:
    """The server processes of the database's other sessions."""
    cursor.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()"
    )
    return [int(pid) for (pid,) in cursor.fetchall()]


def synchronous_standbys(database: Any) -> tuple[str, int]:
    """PostgreSQL's synchronous_standby_names, and how many standbys stream as synchronous
    now (pg_stat_replication, on the primary)."""
    named = database.execute_sql("SELECT current_setting('synchronous_standby_names')").fetchone()[
        0
    ]
    connected = database.execute_sql(
        "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')"
    ).fetchone()[0]
    return str(named or ""), int(connected)

"""The statements of a restore (mailjudge.tools.restored_mail): what the database being replaced
says became of the backup's waiting mail, and marking or holding that mail in the
restored one. SQLite's on a connection of the restore's own, PostgreSQL's on a cursor."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

WAITING_OUT = ("queued", "sending")
WAITING_IN = ("queued", "processing")

# -- SQLite ------------------------------------------------------------------------------


def has_outbox(connection: sqlite3.Connection) -> bool:
    found = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").fetchone()
    return found is not None


def columns_of(connection: sqlite3.Connection, table: str) -> list[str]:
    return [str(c[1]) for c in connection.execute(f"PRAGMA table_info({table})")]


def waiting_out(connection: sqlite3.Connection) -> list[tuple[str, int]]:
    """(Message-ID, number) of the mail waiting to be sent."""
    rows = connection.execute(
        "SELECT message_id, id FROM outbox WHERE state IN (?, ?)", WAITING_OUT
    ).fetchall()
    return [(str(m), int(i)) for m, i in rows]


def waiting_in(connection: sqlite3.Connection) -> list[tuple[str | None, str]]:
    """(Message-ID, body hash) of the mail waiting to be answered."""
    rows = connection.execute(
        "SELECT message_id, body_hash FROM inbound_message WHERE state IN (?, ?)", WAITING_IN
    ).fetchall()
    return [(m, str(h)) for m, h in rows]


def finished_out(
    connection: sqlite3.Connection, columns: Sequence[str], message_ids: Sequence[str]
) -> list[tuple[Any, ...]]:
    """(Message-ID, *columns) of those of ``message_ids`` sent or given up."""
    marks = ", ".join("?" * len(message_ids))
    return connection.execute(
        f"SELECT message_id, {', '.join(columns)} FROM outbox WHERE state IN ('sent', 'failed') "
        f"AND message_id IN ({marks})",
        list(message_ids),
    ).fetchall()


def message_ids_of(connection: sqlite3.Connection, numbers: Sequence[int]) -> list[tuple[int, str]]:
    """(number, Message-ID) of the outbox rows ``numbers``."""
    marks = ", ".join("?" * len(numbers))
    rows = connection.execute(
        f"SELECT id, message_id FROM outbox WHERE id IN ({marks})", list(numbers)
    ).fetchall()
    return [(int(n), str(m)) for n, m in rows]


def finished_in(
    connection: sqlite3.Connection, message_id: str | None, body_hash: str
) -> tuple[str, Any, str] | None:
    """(state, processed_at, error) of the mail so identified, when answered or shunted."""
    if message_id is not None:
        row = connection.execute(
            "SELECT state, processed_at, error FROM inbound_message WHERE message_id = ? "
            "AND state IN ('done', 'shunted')",
            (message_id,),
        ).fetchone()
    else:
        row = connection.execute(
            "SELECT state, processed_at, error FROM inbound_message WHERE message_id IS "
            "NULL AND body_hash = ? AND state IN ('done', 'shunted')",
            (body_hash,),
        ).fetchone()
    return None if row is None else (str(row[0]), row[1], str(row[2]))


def mark_out(connection: sqlite3.Connection, message_id: str, outcome: dict[str, Any]) -> int:
    """The waiting mail ``message_id`` takes ``outcome``'s columns; how many rows."""
    sets = ", ".join(f"{column} = ?" for column in outcome)
    return int(
        connection.execute(
            f"UPDATE outbox SET {sets} WHERE message_id = ? AND state IN (?, ?)",
            (*outcome.values(), message_id, *WAITING_OUT),
        ).rowcount
    )


def mark_in(
    connection: sqlite3.Connection,
    message_id: str | None,
    body_hash: str,
    finished: tuple[str, Any, str],
) -> int:
    """The waiting mail so identified takes (state, processed_at, error); how many rows."""
    which = "message_id = ?" if message_id is not None else "message_id IS NULL AND body_hash = ?"
    return int(
        connection.execute(
            f"UPDATE inbound_message SET state = ?, processed_at = ?, error = ? WHERE {which} "
            "AND state IN (?, ?)",
            (*finished, message_id if message_id is not None else body_hash, *WAITING_IN),
        ).rowcount
    )


def hold_waiting(connection: sqlite3.Connection, note: str) -> tuple[int, int]:
    """Every waiting mail held (failed or shunted, with ``note``); how many out and in."""
    out = connection.execute(
        "UPDATE outbox SET state = 'failed', last_error = ? WHERE state IN (?, ?)",
        (note, *WAITING_OUT),
    ).rowcount
    inbound = connection.execute(
        "UPDATE inbound_message SET state = 'shunted', error = ? WHERE state IN (?, ?)",
        (note, *WAITING_IN),
    ).rowcount
    return int(out), int(inbound)


def still_waiting(connection: sqlite3.Connection) -> tuple[list[str], int]:
    """The recipients (as stored) of each mail still to send, and how many to answer."""
    to_send = connection.execute(
        "SELECT to_addrs FROM outbox WHERE state IN (?, ?)", WAITING_OUT
    ).fetchall()
    (to_answer,) = connection.execute(
        "SELECT count(*) FROM inbound_message WHERE state IN (?, ?)", WAITING_IN
    ).fetchone()
    return [str(row[0]) for row in to_send], int(to_answer)


# -- PostgreSQL --------------------------------------------------------------------------


def pg_columns(cursor: Any, table: str) -> set[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND table_schema = ANY(current_schemas(false))",
        (table,),
    )
    return {str(row[0]) for row in cursor.fetchall()}


def pg_drop(cursor: Any, tables: Sequence[str]) -> None:
    for table in tables:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")


def pg_keep_finished(cursor: Any, known_out: str, known_in: str, columns: Sequence[str]) -> None:
    """Copy the mail sent or given up (``columns`` of it) into ``known_out``, the mail
    answered or shunted into ``known_in``."""
    cursor.execute(
        f"CREATE TABLE {known_out} AS SELECT message_id, {', '.join(columns)} FROM outbox "
        "WHERE state IN ('sent', 'failed')"
    )
    cursor.execute(
        f"CREATE TABLE {known_in} AS SELECT message_id, body_hash, state, processed_at, "
        "error FROM inbound_message WHERE state IN ('done', 'shunted')"
    )


def pg_mark_from_kept(
    cursor: Any, known_out: str, known_in: str, columns: Sequence[str]
) -> tuple[int, int]:
    """The waiting mail found in the tables pg_keep_finished made takes what they say
    (``columns`` of the outbox); how many out and in."""
    sets = ", ".join(f"{column} = k.{column}" for column in columns)
    cursor.execute(
        f"UPDATE outbox o SET {sets} FROM {known_out} k "
        "WHERE o.message_id = k.message_id AND o.state = ANY(%s)",
        (list(WAITING_OUT),),
    )
    out = cursor.rowcount
    cursor.execute(
        f"UPDATE inbound_message i SET state = k.state, processed_at = k.processed_at, "
        f"error = k.error FROM {known_in} k WHERE i.state = ANY(%s) AND "
        "(i.message_id = k.message_id OR (i.message_id IS NULL AND k.message_id IS "
        "NULL AND i.body_hash = k.body_hash))",
        (list(WAITING_IN),),
    )
    return int(out), int(cursor.rowcount)


def pg_hold_waiting(cursor: Any, note: str) -> tuple[int, int]:
    cursor.execute(
        "UPDATE outbox SET state = 'failed', last_error = %s WHERE state = ANY(%s)",
        (note, list(WAITING_OUT)),
    )
    out = cursor.rowcount
    cursor.execute(
        "UPDATE inbound_message SET state = 'shunted', error = %s WHERE state = ANY(%s)",
        (note, list(WAITING_IN)),
    )
    return int(out), int(cursor.rowcount)


def pg_still_waiting(cursor: Any) -> tuple[list[str], int]:
    cursor.execute("SELECT to_addrs FROM outbox WHERE state = ANY(%s)", (list(WAITING_OUT),))
    to_send = [str(row[0]) for row in cursor.fetchall()]
    cursor.execute(
        "SELECT count(*) FROM inbound_message WHERE state = ANY(%s)", (list(WAITING_IN),)
    )
    row = cursor.fetchone()
    return to_send, int(row[0]) if row else 0

"""Which tables this thread's connection to PostgreSQL has written: a count per table,
bumped by every statement that writes it (db.FewerRoundTrips notes each statement it
sends or holds back, compiled_queries the statements it prepared).

A read kept for the rest of a transaction (kept_reads) is good only while none of the
tables it read has been written since; a statement whose writes cannot be told from its
text (DDL, a rollback, anything unknown) counts as a write to every table.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from mailjudge.remembered import remembered

# Statements that write nothing a kept read could have read. EXECUTE runs a statement
# prepared by compiled_queries, which notes the statement's own text instead.
_READS_ONLY = frozenset(
    {"SELECT", "SAVEPOINT", "RELEASE", "PREPARE", "DEALLOCATE", "BEGIN", "EXECUTE", "SHOW"}
)
_WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "WITH"})
# The table after INSERT INTO, UPDATE or DELETE FROM (not an upsert's DO UPDATE SET).
_WRITTEN_TABLE = re.compile(
    r'\b(?:INSERT\s+INTO|UPDATE(?!\s+SET\b)|DELETE\s+FROM)\s+"?(\w+)', re.IGNORECASE
)
EVERY_TABLE = "*"


class _Counts(threading.local):
    def __init__(self) -> None:
        self.by_table: dict[str, int] = {}


_counts = _Counts()


@remembered(512)
def written_tables(sql: str) -> frozenset[str]:
    """The tables ``sql`` writes; {EVERY_TABLE} when that cannot be told."""
    head = sql.lstrip()[:12].split(maxsplit=1)
    word = head[0].upper().rstrip(";") if head else ""
    if word in _READS_ONLY:
        return frozenset()
    if word not in _WRITES:
        return frozenset({EVERY_TABLE})
    tables = frozenset(t.lower() for t in _WRITTEN_TABLE.findall(sql))
    if not tables and word != "WITH":
        return frozenset({EVERY_TABLE})
    return tables


def note(sql: str) -> None:
    """``sql`` is being sent (or held back to go with the next statement)."""
    for table in written_tables(sql):
        _counts.by_table[table] = _counts.by_table.get(table, 0) + 1


def note_everything() -> None:
    """The transaction ended or went back to a savepoint: what was read may not hold."""
    _counts.by_table[EVERY_TABLE] = _counts.by_table.get(EVERY_TABLE, 0) + 1


def mark(tables: Iterable[str]) -> tuple[int, ...]:
    """Where the writes to ``tables`` stand: equal marks mean none was written between."""
    counts = _counts.by_table
    return (counts.get(EVERY_TABLE, 0), *(counts.get(table, 0) for table in tables))

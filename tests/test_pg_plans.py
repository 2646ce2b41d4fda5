"""PostgreSQL's plans of the worker's statements as the tables grow.

A statement prepared once per connection (compiled_queries) gets one plan for all its
parameters after five runs, costed on the tables' size at that moment; without
autovacuum's ANALYZE it is never made again. A Democratic burst starts on near-empty
tables and ends with 100,000 rows in them: the plans must not be those of the start.
"""

from __future__ import annotations

from datetime import timedelta

from mailjudge import db, migrations
from mailjudge.game import guard
from mailjudge.inbound import game_batches, spool
from mailjudge.models import AddressCounter, utcnow

JUDGE = ["judge@example.org"]


def plan_of(statement: str, *params: object) -> str:
    """The plan PostgreSQL uses for one run of a prepared statement, as text."""
    marks = ", ".join(["%s"] * len(params))
    cursor = db.database_proxy.execute_sql(f"EXPLAIN EXECUTE {statement} ({marks})", params)
    return "\n".join(row[0] for row in cursor.fetchall())


def prepared_names(prefix: str) -> list[str]:
    cursor = db.database_proxy.execute_sql(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE %s ORDER BY name",
        [prefix + "%"],
    )
    return [row[0] for row in cursor.fetchall()]


def add_counters(first: int, last: int) -> None:
    now = utcnow()
    rows = [
        {"key": f"unproven:c{n}@example.org", "count": 1, "window_start": now, "last_at": now}
        for n in range(first, last)
    ]
    for start in range(0, len(rows), 1000):
        AddressCounter.insert_many(rows[start : start + 1000]).execute()


def test_a_statement_planned_on_a_small_table_is_planned_again_as_it_grows(pg: str) -> None:
    """Three of the guard's counters, looked up together while the table held 60 rows,
    are read by a scan of the whole table; after the table has grown to 20,000 rows and
    the statement has run a few hundred times more, through its index."""
    add_counters(0, 60)
    keys = ("signon:1:a@example.org", "signon:*:a@example.org", "signon-seat:1")
    for _ in range(10):  # past the five runs after which the server keeps one plan
        guard._counters(*keys)
    [first] = prepared_names("mailjudge_counters_3")
    assert "Seq Scan" in plan_of(first, *keys)
    add_counters(60, 20_000)
    for _ in range(1000):
        guard._counters(*keys)
    [now] = prepared_names("mailjudge_counters_3")
    assert now != first  # one statement of that kind on the server, the newest
    assert "Seq Scan" not in plan_of(now, *keys)
    assert "address_counter_key" in plan_of(now, *keys)


def test_a_game_s_claim_reads_its_next_mails_from_the_index(pg: str) -> None:
    """With thousands of mails queued, the claim of a game's next mails reads those mails
    from the index in order (no scan of the backlog, no sort), even as planned on an
    empty table."""
    body = "From: c@example.org\r\nMessage-ID: <m{n}@example.org>\r\n\r\nSIGNON c{n}@big pw\r\n"
    for n in range(10):
        spool.store(body.format(n=n).encode(), "c@example.org", JUDGE, "smtp")
    for _ in range(8):  # each claims one mail: past the five runs, the plan is kept
        claimed = game_batches.claim_game_batch(1)
        assert claimed is not None
        game_batches.release_game(claimed[0])
    for n in range(10, 3000):
        spool.store(body.format(n=n).encode(), "c@example.org", JUDGE, "smtp")
    [claim] = prepared_names("mailjudge_claim_game_queued_inbound")
    plan = plan_of(claim, "queued", "big", 12)
    assert migrations.GAME_CLAIM_INDEX in plan
    assert "Sort" not in plan and "Bitmap" not in plan
    # The stale claims are read along the same index.
    cutoff = spool.InboundMessage.claimed_at.db_value(utcnow() - timedelta(minutes=10))
    # (A game with none is claimed without this read: ask for it once to have it prepared.)
    spool._oldest_waiting(12, utcnow() - timedelta(minutes=10), "big", True)
    [stale] = prepared_names("mailjudge_claim_game_stale_inbound")
    assert migrations.GAME_CLAIM_INDEX in plan_of(stale, "processing", cutoff, "big", 12)
    # The games with mail waiting are found along the index too, not by reading the backlog.
    # So are the oldest stale claims, read in the same statement.
    cursor = db.database_proxy.execute_sql(
        "EXPLAIN " + game_batches._WAITING_GAMES, ["queued"] * 3 + [256, "processing", cutoff, 16]
    )
    plan = "\n".join(row[0] for row in cursor.fetchall())
    walk, stale_part = plan.split('"*SELECT* 2"')
    assert "Bitmap" not in walk and "Sort" not in walk and "Seq Scan" not in walk
    # The claims in flight are few (each worker's batch): found by the index, then sorted.
    assert (
        "Seq Scan" not in stale_part and "Index Cond: ((state)::text = 'processing'" in stale_part
    )
    waiting = game_batches._waiting_games(utcnow() - timedelta(minutes=10))
    assert waiting.keys == ["big"] and not waiting.may_have_stale("big")


def test_the_claim_index_is_made_on_a_new_and_on_an_upgraded_database(pg: str) -> None:
    def indexes() -> list[str]:
        cursor = db.database_proxy.execute_sql(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'inbound_message' "
            "AND schemaname = current_schema()"
        )
        return [row[0] for row in cursor.fetchall()]

    assert migrations.GAME_CLAIM_INDEX in indexes()
    db.database_proxy.execute_sql(f"DROP INDEX {migrations.GAME_CLAIM_INDEX}")
    # As a database of migration 13 has it (a new one records the newest version alone).
    db.database_proxy.execute_sql("UPDATE schema_version SET version = 13 WHERE version = 14")
    assert [m.number for m in migrations.upgrade()] == [14]
    assert migrations.GAME_CLAIM_INDEX in indexes()

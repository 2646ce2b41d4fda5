"""PostgreSQL's plans of the worker's statements as the tables grow.

psycopg prepares on the server the statements a connection runs often (db.PREPARE_AFTER);
the server would then keep one plan for all their parameters, costed on the tables' size
at that moment, and without autovacuum's ANALYZE never make it again. A Democratic burst
starts on near-empty tables and ends with 100,000 rows in them: each connection plans
each run afresh (store.session.settle_postgres), so the plans are never those of the
start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg

from mailjudge.game import guard
from mailjudge.inbound import game_batches, spool
from mailjudge.store import db
from mailjudge.store import mail as store_mail
from mailjudge.store.models import AddressCounter, InboundMessage, utcnow
from mailjudge.tools import migrations

JUDGE = ["judge@example.org"]


def plan_of(sql: str, params: Any) -> str:
    """The plan PostgreSQL makes for one run of ``sql`` with ``params``, as text."""
    # The values written into the text, as the server's EXPLAIN needs them typed.
    cursor = psycopg.ClientCursor(db.database_proxy.connection())
    cursor.execute(f"EXPLAIN {sql}", params)
    return "\n".join(row[0] for row in cursor.fetchall())


def prepared_like(fragment: str) -> list[tuple[str, int, int]]:
    """(name, generic plans, custom plans) of the statements prepared on this connection
    whose text holds ``fragment``."""
    cursor = db.database_proxy.execute_sql(
        "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements "
        "WHERE statement LIKE %s",
        ["%" + fragment.replace("%", "%%") + "%"],
    )
    return [(str(n), int(g), int(c)) for n, g, c in cursor.fetchall()]


def add_counters(first: int, last: int) -> None:
    now = utcnow()
    rows = [
        {"key": f"unproven:c{n}@example.org", "count": 1, "window_start": now, "last_at": now}
        for n in range(first, last)
    ]
    for start in range(0, len(rows), 1000):
        AddressCounter.insert_many(rows[start : start + 1000]).execute()


def test_a_statement_prepared_on_a_small_table_is_planned_again_as_it_grows(pg: str) -> None:
    """Three of the guard's counters, looked up together while the table held 60 rows,
    are read by a scan of the whole table; after the table has grown to 20,000 rows the
    same prepared statement reads them through its index: never one generic plan."""
    add_counters(0, 60)
    keys = ("signon:1:a@example.org", "signon:*:a@example.org", "signon-seat:1")
    query = AddressCounter.select().where(AddressCounter.key.in_(list(keys)))
    sql, params = query.sql()
    for _ in range(10):  # past the five runs after which the server may keep one plan
        guard._counters(*keys)
    [(name, generic, custom)] = prepared_like('FROM "address_counter"')
    assert generic == 0 and custom >= 5
    assert "Seq Scan" in plan_of(sql, params)
    add_counters(60, 20_000)
    for _ in range(20):
        guard._counters(*keys)
    [(same, generic, _)] = prepared_like('FROM "address_counter"')
    assert same == name and generic == 0
    plan = plan_of(f"EXECUTE {name} ({', '.join(['%s'] * len(params))})", params)
    assert "Seq Scan" not in plan and "address_counter_key" in plan


def test_a_game_s_claim_reads_its_next_mails_from_the_index(pg: str) -> None:
    """With thousands of mails queued, the claim of a game's next mails reads those mails
    from the index in order (no scan of the backlog, no sort)."""
    body = "From: c@example.org\r\nMessage-ID: <m{n}@example.org>\r\n\r\nSIGNON c{n}@big pw\r\n"
    for n in range(10):
        spool.store(body.format(n=n).encode(), "c@example.org", JUDGE, "smtp")
    for _ in range(8):  # each claims one mail: past the five runs
        claimed = game_batches.claim_game_batch(1)
        assert claimed is not None
        game_batches.release_game(claimed[0])
    for n in range(10, 3000):
        spool.store(body.format(n=n).encode(), "c@example.org", JUDGE, "smtp")
    cutoff = utcnow() - timedelta(minutes=10)
    for kind in ("queued", "stale"):
        sql, params = store_mail.waiting_query(kind, 12, cutoff, "big").sql()
        plan = plan_of(sql, params)
        assert migrations.GAME_CLAIM_INDEX in plan
        assert "Sort" not in plan and "Bitmap" not in plan
    # The games with mail waiting are found along the index too, not by reading the backlog.
    # So are the oldest stale claims, read in the same statement.
    stored_cutoff = InboundMessage.claimed_at.db_value(cutoff)
    plan = plan_of(
        store_mail.WAITING_GAMES, store_mail.waiting_games_params(256, stored_cutoff, 16)
    )
    walk, stale_part = plan.split('"*SELECT* 2"')
    assert "Bitmap" not in walk and "Sort" not in walk and "Seq Scan" not in walk
    # The claims in flight are few (each worker's batch): found by the index, then sorted.
    assert (
        "Seq Scan" not in stale_part and "Index Cond: ((state)::text = 'processing'" in stale_part
    )
    waiting = game_batches._waiting_games(cutoff)
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
    # As a database of migration 13 has it (a new one records the newest version alone;
    # the migrations after 14 find their columns there already).
    newest = migrations.LATEST
    db.database_proxy.execute_sql(
        f"UPDATE schema_version SET version = 13 WHERE version = {newest}"
    )
    assert [m.number for m in migrations.upgrade()] == list(range(14, newest + 1))
    assert migrations.GAME_CLAIM_INDEX in indexes()

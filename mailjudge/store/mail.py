"""The mail's own rows on its path (the spool's, the outbox's, the bounces'), each read
or write named for what it does: built once (store.built_once) or, what peewee cannot
build, written here by hand. On PostgreSQL psycopg prepares each on the server once a
connection has run it a few times (db.PREPARE_AFTER)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from peewee import SQL, Field, fn

from mailjudge.store import built_once
from mailjudge.store.db import database_proxy, is_postgres, skip_locked
from mailjudge.store.models import Bounce, InboundMessage, Outbox

# The implicit primary keys, which peewee's stubs do not declare.
_inbound_id: Field[int] = InboundMessage._meta.fields["id"]
_outbox_id: Field[int] = Outbox._meta.fields["id"]
_raw: Any = InboundMessage._meta.fields["raw"]


# -- the spool ----------------------------------------------------------------------------


def insert_inbound(values: Mapping[str, Any]) -> int:
    """A new stored mail of ``values`` (every column but the id); its id."""
    return _insert(InboundMessage, "insert-inbound", values)


def _insert(model: Any, key: str, values: Mapping[str, Any], read_id: bool = True) -> int:
    fields = [f for f in model._meta.sorted_fields if f.name in values]
    params = [f.db_value(values[f.name]) for f in fields]
    cursor = built_once.run(key, lambda: model.insert(**values), params)
    if not read_id:
        return 0
    return int(cursor.fetchone()[0] if is_postgres() else cursor.lastrowid)


def waiting_mails(kind: str, size: int, cutoff: datetime, game: str | None) -> list[InboundMessage]:
    """The ``size`` oldest mails of a kind waiting for a worker (see waiting_query)."""
    stale = kind == "stale"
    params = ["processing", InboundMessage.claimed_at.db_value(cutoff)] if stale else ["queued"]
    params += [] if game is None else [game]
    key = f"waiting-{kind}-inbound" if game is None else f"waiting-game-{kind}-inbound"
    return built_once.rows(
        InboundMessage, key, lambda: waiting_query(kind, size, cutoff, game), [*params, size]
    )


def waiting_query(kind: str, size: int, cutoff: datetime, game: str | None) -> Any:
    """The ``size`` oldest mails of a kind waiting for a worker, in the order of the
    (state, received_at) index: "queued", or "stale" (claimed by a worker that died before
    ``cutoff``); of the game ``game`` only when given. Each kind along its index: one query
    with both under an OR had the database sort every queued mail at each claim. On
    PostgreSQL the rows another worker holds are passed over."""
    if kind == "stale":
        where = (InboundMessage.state == "processing") & (InboundMessage.claimed_at < cutoff)
    else:
        where = InboundMessage.state == "queued"
    if game is not None:
        where &= InboundMessage.game_key == game
    return skip_locked(
        InboundMessage.select()
        .where(where)
        .order_by(InboundMessage.received_at, _inbound_id)
        .limit(size)
    )


def claim_inbound(ids: Sequence[int], now: datetime, by: str) -> None:
    """Mark the mails ``ids`` claimed by ``by`` at ``now``, each one attempt more."""
    built_once.run(
        f"claim-inbound-{len(ids)}",
        lambda: InboundMessage.update(
            state="processing", claimed_at=now, attempts=InboundMessage.attempts + 1,
            claimed_by=by,
        ).where(_inbound_id.in_(list(ids))),
        ["processing", 1, InboundMessage.claimed_at.db_value(now), by, *ids],
    )  # fmt: skip


def finish_inbound(
    row_id: int, attempts: int, state: str, error: str, at: datetime, masked: bytes | None
) -> bool:
    """Mark a claimed mail ``state`` (with its masked copy, when given), unless it was
    claimed again since (its attempts moved on); whether it was."""
    changes: dict[Any, Any] = {} if masked is None else {InboundMessage.raw: masked}
    changes.update({InboundMessage.state: state, InboundMessage.processed_at: at,
                    InboundMessage.error: error})  # fmt: skip
    finished = [state, InboundMessage.processed_at.db_value(at), error]
    claimed = [row_id, "processing", attempts]
    if masked is None:
        key, params = "finish-inbound", [*finished, *claimed]
    else:
        key, params = "finish-inbound-masked", [_raw.db_value(masked), *finished, *claimed]
    cursor = built_once.run(
        key,
        lambda: InboundMessage.update(changes).where(
            (_inbound_id == row_id)
            & (InboundMessage.state == "processing")
            & (InboundMessage.attempts == attempts)
        ),
        params,
    )
    return int(cursor.rowcount) == 1


def requeue_inbound(row_id: int) -> None:
    """A claimed mail back in the queue (another worker's transaction was in its way)."""
    built_once.run(
        "requeue-inbound",
        lambda: InboundMessage.update(state="queued").where(_inbound_id == row_id),
        ["queued", row_id],
    )


# -- the outbox ---------------------------------------------------------------------------


def insert_outbox(values: Mapping[str, Any]) -> int:
    """A new outbox row of ``values`` (every column but the id); its id."""
    return _insert(Outbox, "insert-outbox", values)


def add_outbox(values: Mapping[str, Any]) -> None:
    """A new outbox row of ``values``, its id not read: in a pipeline (db.pipelined) the
    INSERT is not waited for (the answer to a mail: every order mail makes one)."""
    _insert(Outbox, "insert-outbox", values, read_id=False)


def due_outbox(now: datetime, limit: int) -> list[Outbox]:
    """Up to ``limit`` mails due at ``now`` (or whose sender's lease ran out), the
    earliest first; on PostgreSQL those another sender holds are passed over."""
    return built_once.rows(
        Outbox,
        "due-outbox",
        lambda: skip_locked(
            Outbox.select()
            .where(Outbox.state.in_(("queued", "sending")) & (Outbox.next_attempt_at <= now))
            .order_by(Outbox.next_attempt_at, _outbox_id)
            .limit(limit)
        ),
        ["queued", "sending", Outbox.next_attempt_at.db_value(now), limit],
    )


def lease_outbox(ids: Sequence[int], until: datetime, by: str) -> None:
    """The mails ``ids`` are being sent by the sender ``by`` (outbound.leases), reserved
    until ``until``."""
    built_once.run(
        f"lease-outbox-{len(ids)}",
        lambda: Outbox.update(state="sending", next_attempt_at=until, leased_by=by).where(
            _outbox_id.in_(list(ids))
        ),
        ["sending", Outbox.next_attempt_at.db_value(until), by, *ids],
    )


def update_outbox(outbox_id: int, changes: Mapping[str, Any]) -> int:
    """``UPDATE outbox SET changes WHERE id = outbox_id`` (built once per set of columns);
    how many rows."""
    fields = [f for f in Outbox._meta.sorted_fields if f.name in changes]
    params = [f.db_value(changes[f.name]) for f in fields] + [outbox_id]
    key = f"update-outbox-{','.join(f.name for f in fields)}"
    cursor = built_once.run(
        key, lambda: Outbox.update(**changes).where(_outbox_id == outbox_id), params
    )
    return int(cursor.rowcount)


def bounce_counts(addresses: Sequence[str]) -> list[tuple[str, int]]:
    """(address, how many bounces) of those of ``addresses`` (lower case) that bounced."""
    cursor = built_once.run(
        f"bounce-counts-{len(addresses)}",
        lambda: (
            Bounce.select(Bounce.address, fn.COUNT(SQL("*")))
            .where(Bounce.address.in_(list(addresses)))
            .group_by(Bounce.address)
        ),
        list(addresses),
    )
    return [(str(address), int(count)) for address, count in cursor.fetchall()]


def clear_bounces(addresses: Sequence[str]) -> int:
    """Forget the bounces of ``addresses`` (lower case); how many there were."""
    cursor = built_once.run(
        f"bounces-clear-{len(addresses)}",
        lambda: Bounce.delete().where(Bounce.address.in_(list(addresses))),
        list(addresses),
    )
    return int(cursor.rowcount)


# -- PostgreSQL's claims by game ----------------------------------------------------------

# Each game with queued mail and its oldest queued mail, found along the claim's index
# (migration 14) by one step a game, each step reading the first entry past the game
# before: its cost grows with the games that have mail waiting, not with the mails. (The
# oldest queued mails read in order made the server read and sort every queued mail for
# each batch: without autovacuum it has no statistics of the states, guesses that few are
# queued, and took 15 to 36 ms a batch with 4,000 queued.) The oldest mails whose worker
# died come with them, in the same statement (marked true).
WAITING_GAMES = """
WITH RECURSIVE games(key) AS (
    (SELECT game_key FROM inbound_message WHERE state = %s ORDER BY game_key LIMIT 1)
    UNION ALL
    SELECT (SELECT m.game_key FROM inbound_message AS m
            WHERE m.state = %s AND m.game_key > games.key ORDER BY m.game_key LIMIT 1)
    FROM games WHERE games.key IS NOT NULL
)
(SELECT (SELECT m.received_at FROM inbound_message AS m
         WHERE m.state = %s AND m.game_key = games.key ORDER BY m.received_at, m.id LIMIT 1),
        games.key, false
 FROM games WHERE games.key IS NOT NULL LIMIT %s)
UNION ALL
(SELECT received_at, game_key, true FROM inbound_message
 WHERE state = %s AND claimed_at < %s ORDER BY received_at, id LIMIT %s)
"""


def waiting_games_params(games: int, stale_cutoff: Any, stale: int) -> list[Any]:
    """WAITING_GAMES's parameters: at most ``games`` games, and the ``stale`` oldest
    mails claimed before ``stale_cutoff`` (in the database's form)."""
    return ["queued"] * 3 + [games, "processing", stale_cutoff, stale]


def waiting_games(games: int, stale_cutoff: Any, stale: int) -> list[tuple[Any, str, bool]]:
    """(received_at as stored, game key, claimed by a worker that died) of each game's
    oldest queued mail, at most ``games`` of them, and of the ``stale`` oldest mails whose
    claim is older than ``stale_cutoff`` (PostgreSQL)."""
    cursor = database_proxy.execute_sql(
        WAITING_GAMES, waiting_games_params(games, stale_cutoff, stale)
    )
    return [(at, str(key), bool(late)) for at, key, late in cursor.fetchall()]


# A game's lock is one of PostgreSQL's advisory locks, which are the whole server's: a
# class of the judge's own, and the hash of the schema's name and the game's key.
_TRY_LOCK_GAME = "SELECT pg_try_advisory_lock(%s, hashtext(current_schema() || '.' || %s))"
_UNLOCK_GAME = "SELECT pg_advisory_unlock(%s, hashtext(current_schema() || '.' || %s))"


def try_lock_game(lock_class: int, key: str) -> bool:
    """Take the game's lock for this session without waiting; False when another has it."""
    cursor = database_proxy.execute_sql(_TRY_LOCK_GAME, (lock_class, key))
    return bool(cursor.fetchone()[0])


def unlock_game(lock_class: int, key: str) -> None:
    database_proxy.execute_sql(_UNLOCK_GAME, (lock_class, key))


def this_session() -> tuple[int, float]:
    """(server process id, when it started) of this connection's PostgreSQL session."""
    row = database_proxy.execute_sql(
        "SELECT pid, extract(epoch FROM backend_start) FROM pg_stat_activity "
        "WHERE pid = pg_backend_pid()"
    ).fetchone()
    return int(row[0]), float(row[1])


def live_sessions(pids: Sequence[int]) -> list[tuple[int, float]]:
    """(process id, start) of those of the sessions ``pids`` that are alive."""
    cursor = database_proxy.execute_sql(
        "SELECT pid, extract(epoch FROM backend_start) FROM pg_stat_activity WHERE pid = ANY(%s)",
        (list(pids),),
    )
    return [(int(pid), float(start)) for pid, start in cursor.fetchall()]


def clear_bounces_and_wake(addresses: Sequence[str], now: Any, held_mark: str) -> None:
    """On PostgreSQL: forget the bounces of ``addresses`` (lower case) and, when there were
    any, make the mail held for them (its last_error starting with ``held_mark``) due at
    ``now`` (in the database's form): one statement, the outbox only looked at when the
    DELETE found a row (EXISTS on the WITH is a one-time filter)."""
    marks = ", ".join(["%s"] * len(addresses))
    database_proxy.execute_sql(
        f"WITH cleared AS (DELETE FROM bounce WHERE address IN ({marks}) RETURNING 1) "
        "UPDATE outbox SET next_attempt_at = %s WHERE EXISTS (SELECT 1 FROM cleared) "
        f"AND state = 'queued' AND last_error LIKE %s AND lower(to_addrs) IN ({marks})",
        [*addresses, now, held_mark.replace("%", r"\%") + "%", *addresses],
    )

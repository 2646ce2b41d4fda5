"""PostgreSQL's workers: each batch is the next mails of one game.

On PostgreSQL several workers (of one judge, or of several judges on one database) answer
at once. A batch of mails of several games would hold several games' row locks at a time,
and two workers' batches would deadlock. Here a worker claims the next mails of one game
together (the game worked out when the mail was stored: inbound.game_key) while it holds
that game's lock, one of PostgreSQL's advisory locks, taken without waiting: a game held
by another worker is passed over for the next. The batch is answered in one transaction,
each mail in a savepoint (answering.process_batch), and the lock given up after its commit. A
worker that dies loses its session and with it the lock; its claims run out as any do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from mailjudge.inbound.answering import Handler, process_batch, with_prepared
from mailjudge.inbound.claims import DEFAULT_MAX_ATTEMPTS, DEFAULT_STALE_AFTER, claim_some
from mailjudge.store import mail as store_mail
from mailjudge.store.models import InboundMessage, utcnow
from mailjudge.store.outages import unusable

log = logging.getLogger(__name__)


def process_pending_by_game(
    handler: Handler,
    limit: int | None,
    *,
    stale_after: timedelta,
    max_attempts: int,
    prepare: Callable[[InboundMessage], Any] | None,
    stopping: Callable[[], bool] | None,
) -> int:
    """spool.process_pending on PostgreSQL: each batch the next mails of one game, claimed
    and answered while this worker holds that game's lock (claim_game_batch)."""
    taken = 0
    while (limit is None or taken < limit) and not (stopping is not None and stopping()):
        size = GAME_BATCH if limit is None else min(GAME_BATCH, limit - taken)
        claimed = claim_game_batch(size, stale_after, max_attempts)
        if claimed is None:
            break
        key, rows = claimed
        try:
            process_batch(
                [(row, handler if prepare is None else with_prepared(handler, prepare, row))
                 for row in rows]
            )  # fmt: skip
        finally:
            release_game(key)
        taken += len(rows)
    return taken


# A game's lock is one of PostgreSQL's advisory locks, which are the whole server's: this
# class, and the hash of the schema's name and the key.
_GAME_LOCK_CLASS = 0x6D6A
# Mails of one game claimed and answered together on PostgreSQL: a larger batch shares
# the claim's and the batch's commits among more mails. An order mail writes in about
# four savepoints, and past 64 of those in one transaction PostgreSQL's snapshots of
# every other session slow down (the subtransaction cache overflows): 12 stays below.
GAME_BATCH = 12
# The most games with queued mail looked at for one no other worker has.
_MOST_GAMES = 256
# How many of the oldest mails claimed by a worker that died are looked at.
_STALE = 16


def claim_game_batch(
    size: int,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    now: datetime | None = None,
) -> tuple[str, list[InboundMessage]] | None:
    """On PostgreSQL: (game key, mails) for up to ``size`` waiting mails of the game of the
    oldest waiting mail that no other worker holds; this worker's session then holds that
    game's lock until release_game. None when every waiting mail's game is held (or none
    waits). Mails without a game known (key "") go one at a time, no game held: they may
    touch any game, and a deadlock puts them back in the queue (process_batch)."""
    now = now or utcnow()
    cutoff = now - stale_after
    waiting = _waiting_games(cutoff)
    for key in waiting.keys:
        stale = waiting.may_have_stale(key)
        if not key:
            # No game known: one mail at a time, as any worker finds it, no game held.
            _, taken = claim_some(1, stale_after, max_attempts, now, key, stale)
            if taken:
                return key, taken
            continue
        if not _lock_game(key):
            continue  # another worker answers this game's mails
        try:
            while True:
                found, taken = claim_some(size, stale_after, max_attempts, now, key, stale)
                if taken:
                    return key, taken
                if len(found) < size:
                    break
        except BaseException:
            release_game(key)
            raise
        release_game(key)
    return None


class _Waiting(NamedTuple):
    keys: list[str]  # the games with mail waiting, the game of the oldest mail first
    stale_keys: set[str]  # the games of the oldest mails whose worker died
    stale_all_seen: bool  # fewer than _STALE of those: stale_keys names every such game

    def may_have_stale(self, key: str) -> bool:
        """Whether the game may have mail claimed by a worker that died (read it then)."""
        return key in self.stale_keys or not self.stale_all_seen


def _waiting_games(cutoff: datetime) -> _Waiting:
    """The games with mail waiting: each game with queued mail and its oldest, and the
    games of the oldest mails whose worker died, in one statement (store.mail.WAITING_GAMES). Asked
    once a batch, not once a mail."""
    found = store_mail.waiting_games(
        _MOST_GAMES, InboundMessage.claimed_at.db_value(cutoff), _STALE
    )
    arrived = InboundMessage.received_at.python_value
    # A game's oldest mail may be claimed between the steps of the walk: then it has none.
    rows = [(arrived(at), key, stale) for at, key, stale in found if at is not None]
    stale_keys = {key for _, key, stale in rows if stale}
    rows.sort(key=lambda row: row[0])
    return _Waiting(
        list(dict.fromkeys(key for _, key, _ in rows)),
        stale_keys,
        sum(1 for *_, stale in rows if stale) < _STALE,
    )


def _lock_game(key: str) -> bool:
    return store_mail.try_lock_game(_GAME_LOCK_CLASS, key)


def release_game(key: str) -> None:
    """Give up a game's lock taken by claim_game_batch. A session that is gone (the
    database restarted) has lost its locks already."""
    if not key:
        return
    try:
        store_mail.unlock_game(_GAME_LOCK_CLASS, key)
    except Exception as err:
        if unusable(err) is None:
            log.warning("could not release the lock of game %r: %s", key, err)
        # else the session is gone, and its locks with it (the outage is logged once)

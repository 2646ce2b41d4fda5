"""Claims on stored mails: taking the oldest waiting mails up, finishing one (fenced by its
claim), who holds a claim, and taking back the claims of holders that are gone.

Claims are fenced by the attempt counter: a worker that lost its claim (it was too slow
and another took the mail up) cannot mark the mail done, so its work rolls back.

A worker marks the mails it claims with its own name (`holder`). On PostgreSQL that is
its session on the server: a worker that dies (its process killed, its machine gone, the
server restarted) loses its session, and with it the transaction in which it answered the
mails. On SQLite it is the worker's process on this machine. Either way a claim whose
holder is gone will never be finished, and `free_orphans` hands it to the usual taking-up
of stale claims at once, instead of after claim_timeout_seconds (which stays, for a
holder that is alive but stuck).
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from peewee import Field

from mailjudge.store import mail as store_mail
from mailjudge.store.db import database_proxy, is_postgres, prompt_write
from mailjudge.store.models import InboundMessage, utcnow

# A claim made stale is back-dated to this moment: older than any cutoff.
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)
# How often a worker looks for orphans: a query of the processing mails' holders.
LOOK_EVERY = 1.0

DEFAULT_STALE_AFTER = timedelta(minutes=10)
# A mail whose worker died (or stalled past the claim's timeout) this often is shunted:
# the mail itself is likely the cause, and taking it again would stall the judge again.
DEFAULT_MAX_ATTEMPTS = 2
# The implicit primary key, which peewee's stubs do not declare.
ID_FIELD: Field[int] = InboundMessage._meta.fields["id"]


def row_id(row: InboundMessage) -> int:
    """A stored mail's id (peewee's stubs do not declare the implicit key)."""
    return int(row.__data__["id"])


class LostClaim(RuntimeError):
    """Another worker took the mail up meanwhile; this worker's work must not count."""


_PG_HOLDERS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_looked = 0.0


def holder() -> str:
    """This worker's name on the claims it makes now."""
    if not is_postgres():
        return f"os:{os.getpid()}:{_process_start(os.getpid())}"
    connection = database_proxy.connection()
    name = _PG_HOLDERS.get(connection)
    if name is None:
        pid, start = store_mail.this_session()
        name = _PG_HOLDERS[connection] = f"pg:{pid}:{start:.6f}"
    return name


def _process_start(pid: int) -> str:
    """When process ``pid`` started, in the kernel's ticks since boot ("" where /proc
    cannot tell): a pid used again by a later process is not the same holder."""
    try:
        stat = open(f"/proc/{pid}/stat", "rb").read()  # noqa: SIM115 (one read)
    except OSError:
        return ""
    # The command name (in parentheses) may hold spaces: the fields after it are split.
    return stat.rpartition(b")")[2].split()[19].decode()


def gone(holders: Iterable[str]) -> set[str]:
    """Those of ``holders`` that are gone (their session or process has ended)."""
    named = [h for h in holders if h]
    if not named:
        return set()
    if is_postgres():
        pids = sorted({int(h.split(":")[1]) for h in named if h.startswith("pg:")})
        alive = {f"pg:{pid}:{start:.6f}" for pid, start in store_mail.live_sessions(pids)}
        return {h for h in named if h.startswith("pg:") and h not in alive}
    return {h for h in named if h.startswith("os:") and not _process_alive(h)}


def _process_alive(name: str) -> bool:
    _, pid, start = name.split(":", 2)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return _process_start(int(pid)) == start


def free_orphans(force: bool = False) -> int:
    """Make the claims of holders that are gone stale now (they are taken up again by the
    next claim, counting an attempt, as a claim that timed out); how many. At most once
    a LOOK_EVERY seconds in a process, unless ``force``."""
    global _looked
    now = time.monotonic()
    if not force and now - _looked < LOOK_EVERY:
        return 0
    _looked = now
    processing = InboundMessage.state == "processing"
    query = (
        InboundMessage.select(InboundMessage.claimed_by)
        .where(processing & (InboundMessage.claimed_by != ""))
        .distinct()
    )
    holders = [str(name) for name in query.scalars()]
    dead = gone(holders)
    if not dead:
        return 0
    with database_proxy.atomic():
        return int(
            InboundMessage.update(claimed_at=LONG_AGO)
            .where(processing & InboundMessage.claimed_by.in_(sorted(dead)))
            .execute()
        )


def claim_next(
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    now: datetime | None = None,
) -> InboundMessage | None:
    """Take the oldest queued mail (or one whose worker died more than `stale_after`
    ago) and mark it processing; None when there is nothing to do.

    A mail whose workers died `max_attempts` times is shunted instead: it is likely the
    mail itself that kills them.
    """
    rows = claim_batch(1, stale_after, max_attempts, now)
    return rows[0] if rows else None


def claim_batch(
    size: int,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    now: datetime | None = None,
) -> list[InboundMessage]:
    """Claim up to ``size`` mails at once, oldest first (see claim_next). Mails shunted
    for killing their workers do not count: the claim looks further."""
    now = now or utcnow()
    while True:
        found, taken = claim_some(size, stale_after, max_attempts, now)
        if taken or len(found) < size:
            return taken


def claim_some(
    size: int,
    stale_after: timedelta,
    max_attempts: int,
    now: datetime,
    game: str | None = None,
    stale: bool = True,
) -> tuple[list[InboundMessage], list[InboundMessage]]:
    """Claim up to ``size`` mails, of game ``game`` only when given; (found, taken).
    ``stale`` False: the caller knows that none of them was claimed by a worker that died."""
    with prompt_write():
        found = _oldest_waiting(size, now - stale_after, game, stale)
        taken = []
        for row in found:
            if row.state == "processing" and row.attempts >= max_attempts:
                finish(row, "shunted", f"abandoned: its worker stopped {row.attempts} times")
                continue
            row.state, row.claimed_at, row.attempts = "processing", now, row.attempts + 1
            taken.append(row)
        if taken:
            # One statement for the batch; each row's attempts counts one more.
            ids = [row_id(row) for row in taken]
            by = holder()
            for row in taken:
                row.claimed_by = by
            store_mail.claim_inbound(ids, now, by)
        return found, taken


def _oldest_waiting(
    size: int, cutoff: datetime, game: str | None, stale: bool = True
) -> list[InboundMessage]:
    """The ``size`` oldest mails waiting: the queued ones, read in the order of the
    (state, received_at) index, and those whose worker died, read apart. One query with
    both under an OR had the database sort every queued mail at each claim: 25 ms a batch
    with 70,000 mails waiting in a Democratic burst, against a few hundredths of a ms."""
    found: list[InboundMessage] = []
    for kind in ("queued", "stale") if stale else ("queued",):
        found += store_mail.waiting_mails(kind, size, cutoff, game)
    found.sort(key=lambda row: (row.received_at, row_id(row)))
    return found[:size]


def finish(
    row: InboundMessage, state: str, error: str = "", shunted_copy: bytes | None = None
) -> None:
    """Finish a claimed mail, unless someone else has claimed it since (LostClaim). A mail
    done takes its masked copy, if its handler kept one, in the same statement; a mail
    shunted takes ``shunted_copy`` (its passwords masked all the same)."""
    masked = row.masked_copy if state == "done" else shunted_copy
    if not store_mail.finish_inbound(row_id(row), row.attempts, state, error, utcnow(), masked):
        raise LostClaim(f"inbound message {row_id(row)} was claimed by another worker")

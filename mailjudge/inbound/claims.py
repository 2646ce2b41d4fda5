"""Who holds a claim on a stored mail, and taking back the claims of holders that are gone.

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
from datetime import UTC, datetime
from typing import Any

from mailjudge.store import mail as store_mail
from mailjudge.store.db import database_proxy, is_postgres
from mailjudge.store.models import InboundMessage

# A claim made stale is back-dated to this moment: older than any cutoff.
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)
# How often a worker looks for orphans: a query of the processing mails' holders.
LOOK_EVERY = 1.0

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

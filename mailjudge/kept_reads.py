"""Reads kept for the rest of the transaction they were made in, while nothing they read
has been written since: on PostgreSQL, where each is a round trip. (SQLite answers a
read in the judge's own process, for less than keeping it would cost.)

A worker answers a batch of one game's mails in one transaction, and every order mail
asks the same questions again (whose seat signs on, who asked to WAIT), each a round trip
to the server. Kept here, each is asked once a batch, and again only after this
connection wrote one of the tables it read (db_writes), went back to a savepoint, or
ended the transaction.

Another process's write that commits meanwhile is not seen until then: a game's mails
are answered by one worker at a time (inbound.game_batches), and what another process
changes (a password on the web) is seen by the next batch, as if this batch had been
answered a moment earlier.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from mailjudge import db_writes
from mailjudge.db import is_postgres, outermost_transaction

_Answer = TypeVar("_Answer")


class _Kept(threading.local):
    def __init__(self) -> None:
        self.transaction: weakref.ref[object] | None = None
        # key -> (the tables' write mark when read, the answer)
        self.answers: dict[Hashable, tuple[tuple[int, ...], Any]] = {}


_kept = _Kept()
_MOST_KEPT = 1024


def kept_read(
    key: Hashable,
    tables: Iterable[str],
    read: Callable[[], _Answer],
    copy: Callable[[_Answer], _Answer] | None = None,
) -> _Answer:
    """``read()``, or its answer from earlier in this transaction if none of ``tables``
    (every table the read looks at, and those whose deletion cascades into them) has
    been written since. Outside a transaction it always reads. A kept answer is handed
    out through ``copy``, which makes what a caller may change its own (an answer of
    immutable values needs none)."""
    current = outermost_transaction()
    if current is None or not is_postgres():
        return read()
    handed = copy or _same
    if _kept.transaction is None or _kept.transaction() is not current:
        _kept.transaction, _kept.answers = weakref.ref(current), {}
    now = db_writes.mark(tables)
    found = _kept.answers.get(key)
    if found is not None and found[0] == now:
        return handed(found[1])
    answer = read()
    if len(_kept.answers) >= _MOST_KEPT:  # a long batch of many signers: start again
        _kept.answers.clear()
    _kept.answers[key] = (now, answer)
    return handed(answer)


def _same(answer: _Answer) -> _Answer:
    return answer

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


class TransactionMemo(threading.local):
    """What one thread keeps for its outermost transaction open now: an empty dict again
    in each new transaction; None outside one, and None once spoiled, until the
    transaction ends."""

    def __init__(self) -> None:
        self.transaction: weakref.ref[object] | None = None
        self.answers: dict[Hashable, Any] | None = None

    def now(self) -> dict[Hashable, Any] | None:
        """The dict of the transaction open now; None outside one, or once spoiled."""
        current = outermost_transaction()
        if current is None:
            return None
        if self.transaction is None or self.transaction() is not current:
            self.transaction, self.answers = weakref.ref(current), {}
        return self.answers

    def spoil(self) -> None:
        """Keep nothing more for the rest of the transaction open now."""
        current = outermost_transaction()
        self.transaction = weakref.ref(current) if current is not None else None
        self.answers = None


# key -> (the tables' write mark when read, the answer)
_kept = TransactionMemo()
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
    answers = _kept.now() if is_postgres() else None
    if answers is None:
        return read()
    handed = copy or _same
    now = db_writes.mark(tables)
    found = answers.get(key)
    if found is not None and found[0] == now:
        return handed(found[1])
    answer = read()
    if len(answers) >= _MOST_KEPT:  # a long batch of many signers: start again
        answers.clear()
    answers[key] = (now, answer)
    return handed(answer)


def _same(answer: _Answer) -> _Answer:
    return answer

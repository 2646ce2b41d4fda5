"""Answering claimed mails: a batch in one database transaction, each mail in a savepoint
of its own. One that fails rolls back alone and is shunted (or queued again when another
worker's transaction was in the way: a deadlock, a unique key it wrote first), and a crash
at any point either leaves the mails to be taken up again or has applied each exactly
once. (One commit for several mails, instead of two for each.) A mail's pure work
(parsing) runs before the transaction, within a time budget.
"""

from __future__ import annotations

import functools
import logging
import signal
import threading
import traceback
from collections.abc import Callable
from typing import Any

from peewee import IntegrityError, OperationalError

from mailjudge.inbound.claims import ID_FIELD, LostClaim, finish, row_id
from mailjudge.secrecy.masking import mask_mail
from mailjudge.store import mail as store_mail
from mailjudge.store.db import (
    database_proxy,
    is_postgres,
    pipelined,
    prompt_write,
    secrets_overwritten,
)
from mailjudge.store.models import InboundMessage
from mailjudge.store.outages import transient, unusable

log = logging.getLogger(__name__)

# The most seconds one mail's pure work (parsing, masking) may take, where it can be
# stopped safely (a worker process's main thread: no transaction is open then). Linear
# code does it in well under a second for the largest mail taken; more is a bug, and the
# mail is shunted instead of holding up every other.
PREPARE_SECONDS = 30.0
# A mail put back in the queue by a busy lock or a deadlock this often is shunted all the
# same: no mail is tried for ever.
MOST_TRANSIENT_TRIES = 10
# PostgreSQL's SQLSTATE for a duplicate key in a unique index.
_UNIQUE_VIOLATION = "23505"

Handler = Callable[[InboundMessage], object]  # its return value is ignored


def keep_masked_copy(row: InboundMessage, masked: bytes) -> None:
    """Overwrite a mail's stored copy with its passwords masked, in the mail's own
    transaction (by the pipeline): kept on the claimed row, it is written by the statement
    that marks the mail done (process_batch; one statement a mail where there were
    two), and with the shunt if the mail fails after all."""
    row.masked_copy = masked


def process_one(row: InboundMessage, handler: Handler) -> bool:
    """Run `handler` on a claimed mail in one transaction and mark it done; on an
    exception roll the handler's work back and shunt the mail with the traceback.
    True when it is done. (A batch of one: see process_batch.)"""
    return process_batch([(row, handler)]) == 1


def _raced(err: IntegrityError) -> bool:
    """A unique key another transaction wrote between this one's look and its write: on
    PostgreSQL, where another worker's commit shows up halfway through a transaction.
    (SQLite's writers hold the write lock for their whole transaction: there a broken
    constraint is the mail's own, the same when tried again.)"""
    # peewee raises its error while handling the driver's, which carries the SQLSTATE.
    return is_postgres() and getattr(err.__context__, "sqlstate", None) == _UNIQUE_VIOLATION


def process_batch(batch: list[tuple[InboundMessage, Handler]]) -> int:
    """Handle claimed mails in one transaction, each in a savepoint: a mail whose handler
    fails is rolled back alone and shunted with its traceback. Returns how many are done.
    (A mail's parsing, done by ``prepare``, stays outside the transaction.) Each mail's
    mark is fenced by its claim (LostClaim), whoever claimed it."""
    return _process_batch(batch)


class _Unreleased(threading.local):
    """Per worker thread: the mails of a batch that the database went away under, to be
    put back in the queue by this worker once it answers again (release_own_claims)."""

    rows: list[tuple[int, int]]

    def __init__(self) -> None:
        self.rows = []


_unreleased = _Unreleased()


def release_own_claims() -> int:
    """Put back in the queue the mails this worker claimed in a batch that the database
    went away under (its work was rolled back with the connection), without counting
    that attempt: the mail was not at fault. A mail finished after all (the commit got
    through, only its answer was lost) is left alone. How many were put back."""
    rows, _unreleased.rows = _unreleased.rows, []
    if not rows:
        return 0
    put_back = 0
    try:
        with prompt_write():
            for row_id, attempts in rows:
                put_back += (
                    InboundMessage.update(
                        state="queued", attempts=attempts - 1, claimed_by=""
                    )
                    .where((row_id == ID_FIELD) & (InboundMessage.state == "processing")
                           & (InboundMessage.attempts == attempts))
                    .execute()
                )  # fmt: skip
    except Exception:
        _unreleased.rows = rows + _unreleased.rows  # still away: next time
        raise
    return put_back


def _process_batch(batch: list[tuple[InboundMessage, Handler]]) -> int:
    try:
        return _answer_batch(batch)
    except Exception as err:
        if unusable(err) is None:
            # A bug outside every mail's own savepoint: nothing of the batch counts, and
            # its mails are taken up again once their claim is stale.
            log.exception("a batch of %s inbound mails could not be committed", len(batch))
            return 0
        # The database went away: nothing of the batch was kept; this worker puts its
        # mails back once the database answers again, and its loop waits for that.
        _unreleased.rows += [(row_id(row), row.attempts) for row, _ in batch]
        raise


def _answer_batch(batch: list[tuple[InboundMessage, Handler]]) -> int:
    failed: list[tuple[InboundMessage, str, bytes | None]] = []
    again: list[InboundMessage] = []
    done = 0
    # On PostgreSQL the batch's statements go in a pipeline (db.pipelined): each mail's
    # results are all read by its done mark, whose row count is read, in its savepoint.
    with prompt_write(), pipelined():
        for row, handler in batch:
            try:
                with database_proxy.atomic():
                    handler(row)
                    finish(row, "done")
                done += 1
            except LostClaim:
                log.warning("inbound message %s: claim lost, work rolled back", row_id(row))
            except OperationalError as err:
                masked = _take_masked_copy(row)
                if unusable(err) is not None:
                    raise  # not the mail's fault: the whole batch waits
                if not transient(err) or row.attempts >= MOST_TRANSIENT_TRIES:
                    failed.append((row, traceback.format_exc(), masked))
                    continue
                # Another worker's transaction was in the way: not the mail's fault.
                log.warning("inbound message %s: %s; queued again", row_id(row), err)
                again.append(row)
            except IntegrityError as err:
                masked = _take_masked_copy(row)
                if not _raced(err) or row.attempts >= MOST_TRANSIENT_TRIES:
                    failed.append((row, traceback.format_exc(), masked))
                    continue
                # Another worker's transaction wrote the same key first and has
                # committed: tried again, the mail reads what it wrote (a refusal,
                # "FRANCE is taken", rather than no answer).
                log.warning("inbound message %s: %s; queued again", row_id(row), err)
                again.append(row)
            except Exception as err:
                # Its work is rolled back; its masked copy is kept with the shunt.
                masked = _take_masked_copy(row)
                if unusable(err) is not None:
                    raise  # not the mail's fault: the whole batch waits
                failed.append((row, traceback.format_exc(), masked))
        for row in again:
            store_mail.requeue_inbound(row_id(row))
        for row, error, masked in failed:
            log.error("inbound message %s shunted:\n%s", row_id(row), error)
            try:
                with database_proxy.atomic():
                    finish(row, "shunted", error, _shunted_copy(row, masked))
            except LostClaim:
                log.warning("inbound message %s: claim lost before it could be shunted",
                            row_id(row))  # fmt: skip
    return done


def _take_masked_copy(row: InboundMessage) -> bytes | None:
    """The masked copy the mail's handler kept, taken back from the row: the mail's work
    is rolled back, the copy goes with its shunt."""
    masked, row.masked_copy = row.masked_copy, None
    return masked


# A shunted mail whose handler kept no masked copy (its reading failed) is masked here, in
# the transaction, when it is small enough to be read at all; a larger one keeps its
# header only (it was over inbound.max_bytes, so no command of it was ever read).
MASK_AT_SHUNT = 1024 * 1024


def _shunted_copy(row: InboundMessage, masked: bytes | None) -> bytes | None:
    """What a shunted mail's stored copy becomes (None: it stays as it is): never a
    password in clear, whatever made the mail fail (issue 52)."""
    raw = bytes(row.raw)
    if masked is None:
        if len(raw) > MASK_AT_SHUNT:
            end = raw.find(b"\r\n\r\n")
            head = raw if end < 0 else raw[: end + 4]
            return mask_mail(head[:MASK_AT_SHUNT]) + b"[the body is not kept: too large]\r\n"
        try:
            masked = mask_mail(raw)
        except Exception:
            log.exception(
                "inbound message %s could not be masked; its body is dropped", row_id(row)
            )
            end = raw.find(b"\r\n\r\n")
            return (raw if end < 0 else raw[: end + 4]) + b"[the body is not kept]\r\n"
    if masked == raw:
        return None
    secrets_overwritten()
    return masked


class OverBudget(RuntimeError):
    """A mail's pure work took longer than PREPARE_SECONDS."""


class _Budget:
    """Raise OverBudget in the block after ``seconds`` (SIGALRM: only in the main thread
    of a process, and only around work that holds no transaction; elsewhere no limit).
    A class, not a generator: it is entered for every mail."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.previous: Any = None
        self.armed = False

    def __enter__(self) -> None:
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            self.previous = signal.signal(signal.SIGALRM, self._over)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    def _over(self, signum: int, frame: object) -> None:
        raise OverBudget(f"reading the mail took more than {self.seconds:.0f} s; shunted")


def with_prepared(
    handler: Handler, prepare: Callable[[InboundMessage], Any], row: InboundMessage
) -> Handler:
    try:
        with _Budget(PREPARE_SECONDS):
            prepared = prepare(row)
    except Exception as exc:  # shunted by process_batch, like any failure of the handler
        failure = exc

        def fail(_: InboundMessage) -> object:
            raise failure

        return fail
    return functools.partial(handler, prepared=prepared)  # type: ignore[call-arg]

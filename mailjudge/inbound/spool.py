"""The inbound spool: every accepted mail is stored here before any work is done on it.

store -> queued -> (claim) processing -> done, or shunted with the error when the
handler failed. Mails are claimed a few at a time and handled in one database
transaction, each mail in a savepoint of its own: one that fails rolls back alone and is
shunted (or queued again when another worker's transaction was in the way: a deadlock,
a unique key it wrote first), and a crash at any point either leaves the mails to be
taken up again or has applied each exactly once. (One commit for several mails, instead
of two for each.)

Claims are fenced by the attempt counter: a worker that lost its claim (it was too slow
and another took the mail up) cannot mark the mail done, so its work rolls back.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import signal
import threading
import traceback
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from peewee import Field, IntegrityError, OperationalError

from mailjudge.config.settings import InboundSettings
from mailjudge.inbound import claims
from mailjudge.inbound.game_key import game_key
from mailjudge.inbound.landing import LandedMail, Landing
from mailjudge.inbound.parse import (
    ParsedMail,
    header_text,
    message_id_of,
    parse_headers,
    parse_mail,
)
from mailjudge.inbound.plain_head import plain_header_values
from mailjudge.secrecy.masking import mask_mail
from mailjudge.store import mail as store_mail
from mailjudge.store.db import (
    GivingTurn,
    checkpoint_if_due,
    database_proxy,
    is_postgres,
    pipelined,
    prompt_write,
    secrets_overwritten,
)
from mailjudge.store.models import INBOUND_STATES, MESSAGE_ID_LENGTH, InboundMessage, utcnow
from mailjudge.store.outages import transient, unusable

log = logging.getLogger(__name__)

DEFAULT_STALE_AFTER = timedelta(minutes=10)
# A mail whose worker died (or stalled past the claim's timeout) this often is shunted:
# the mail itself is likely the cause, and taking it again would stall the judge again.
DEFAULT_MAX_ATTEMPTS = 2
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
# Mails claimed and committed together. More shares a commit among more mails; fewer
# keeps the write lock (SQLite's is the whole database) free sooner for the listener.
BATCH = 8
# The most landed mails moved into the spool in one transaction (inbound.landing).
MOVE = 64
# Headers that identify one mail however it reached us (IMAP and SMTP copies differ in
# Received, Return-Path and Delivered-To); hashed with the body when Message-ID is missing.
_IDENTITY_HEADERS = ("From", "To", "Cc", "Date", "Subject")

Handler = Callable[[InboundMessage], object]  # its return value is ignored
# The implicit primary key, which peewee's stubs do not declare.
_id_field: Field[int] = InboundMessage._meta.fields["id"]


def _pk(row: InboundMessage) -> int:
    return int(row.__data__["id"])


class LostClaim(RuntimeError):
    """Another worker took the mail up meanwhile; this worker's work must not count."""


def identity(raw: bytes) -> tuple[str | None, str]:
    """(Message-ID or None, hex SHA-256 of the originator headers and the body)."""
    text = _header_reader(raw)
    message_id = message_id_of(text("Message-ID"))
    if message_id is not None and len(message_id) > MESSAGE_ID_LENGTH:
        message_id = None
    body = _body(raw)
    digest = hashlib.sha256()
    for name in _IDENTITY_HEADERS:
        digest.update(f"{name}: {text(name)}\n".encode("utf-8", "replace"))
    digest.update(b"\n")
    # Line ends differ between delivery paths; the mail is the same.
    digest.update(b"\n".join(line.rstrip() for line in body.splitlines()).rstrip())
    return message_id, digest.hexdigest()


def _header_reader(raw: bytes) -> Callable[[str], str]:
    """What parse.header_text gives for each header of ``raw``: read from the bytes when
    the header block is plain (inbound.plain_head, most mails), else by the parser."""
    values = plain_header_values(raw)
    if values is not None:
        return lambda name: values.get(name.lower(), "")
    headers = parse_headers(raw)
    return functools.partial(header_text, headers)


def _body(raw: bytes) -> bytes:
    """What follows the blank line that ends the header."""
    for separator in (b"\r\n\r\n", b"\n\n"):
        end = raw.find(separator)
        if end >= 0:
            return raw[end + len(separator) :]
    return b""


def _existing(message_id: str | None, body_hash: str) -> InboundMessage | None:
    if message_id is not None:
        return InboundMessage.get_or_none(InboundMessage.message_id == message_id)
    return InboundMessage.get_or_none(
        InboundMessage.message_id.is_null(), InboundMessage.body_hash == body_hash
    )


def store(
    raw: bytes,
    envelope_from: str,
    envelope_to: list[str],
    source: str,
    received_at: datetime | None = None,
    known_identity: tuple[str | None, str] | None = None,
) -> tuple[InboundMessage, bool]:
    """Keep a received mail; (row, True) when new, (the earlier row, False) when it was
    stored before. Safe when several processes store the same mail at once: the unique
    indexes decide, and the loser finds the winner's row. ``known_identity``: what
    `identity` gives for ``raw``, when it was worked out before (by the listener)."""
    message_id, body_hash = known_identity or identity(raw)
    # Insert first and let the unique index find duplicates: they are rare, and a
    # look-up before every insert would cost more than the odd failed insert.
    now = received_at or utcnow()
    values: dict[str, Any] = {
        "message_id": message_id,
        "body_hash": body_hash,
        "raw": raw,
        "envelope_from": envelope_from,
        "envelope_to": " ".join(envelope_to),
        "source": source,
        "received_at": now,
        "state": "queued",
        "attempts": 0,
        "error": "",
        # Only PostgreSQL's workers claim by game (inbound.game_batches).
        "game_key": game_key(raw, envelope_to) if is_postgres() else "",
        "claimed_by": "",
    }
    try:
        with database_proxy.atomic():
            new_id = store_mail.insert_inbound(values)
        return InboundMessage(id=new_id, **values), True
    except IntegrityError:
        found = _existing(message_id, body_hash)
        if found is None:  # not a duplicate after all: some other constraint failed
            raise
        return found, False


def store_group(
    mails: list[tuple[bytes, str, list[str], str]],
) -> list[tuple[InboundMessage, bool] | BaseException]:
    """Keep several received mails in one transaction (group commit), each insert in a
    savepoint of its own; for each, what store gives, or the error that kept it out.
    Nothing is kept until the commit, and a failed commit fails them all."""
    results: list[tuple[InboundMessage, bool] | BaseException] = []
    with prompt_write():
        for raw, envelope_from, envelope_to, source in mails:
            try:
                results.append(store(raw, envelope_from, envelope_to, source))
            except Exception as err:  # this mail only: the others still go in
                results.append(err)
    return results


def move_landed(landing: Landing, limit: int) -> int:
    """Move up to ``limit`` landed mails into the spool in one commit, then forget them
    in the landing; how many were moved. A mail the spool has already (moved before a
    crash, or the same mail delivered twice) is not stored again."""
    landed = landing.waiting(limit)
    if not landed:
        return 0
    moved: list[LandedMail] = []
    with prompt_write():
        for mail in landed:
            try:
                store(mail.raw, mail.envelope_from, mail.envelope_to, mail.source,
                      received_at=mail.received_at,
                      known_identity=(mail.message_id, mail.body_hash))  # fmt: skip
            except Exception:
                # It stays landed and is tried again; the others go on.
                log.exception("landed mail %s could not be stored in the spool", mail.id)
                continue
            moved.append(mail)
    if moved:
        landing.remove(moved)
    return len(moved)


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
        found, taken = _claim_some(size, stale_after, max_attempts, now)
        if taken or len(found) < size:
            return taken


def _claim_some(
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
                _mark(row, "shunted", f"abandoned: its worker stopped {row.attempts} times")
                continue
            row.state, row.claimed_at, row.attempts = "processing", now, row.attempts + 1
            taken.append(row)
        if taken:
            # One statement for the batch; each row's attempts counts one more.
            ids = [_pk(row) for row in taken]
            by = claims.holder()
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
    found.sort(key=lambda row: (row.received_at, _pk(row)))
    return found[:size]


def _mark(
    row: InboundMessage, state: str, error: str = "", shunted_copy: bytes | None = None
) -> None:
    """Finish a claimed mail, unless someone else has claimed it since (LostClaim). A mail
    done takes its masked copy, if its handler kept one, in the same statement; a mail
    shunted takes ``shunted_copy`` (its passwords masked all the same)."""
    masked = row.masked_copy if state == "done" else shunted_copy
    if not store_mail.finish_inbound(_pk(row), row.attempts, state, error, utcnow(), masked):
        raise LostClaim(f"inbound message {_pk(row)} was claimed by another worker")


def keep_masked_copy(row: InboundMessage, masked: bytes) -> None:
    """Overwrite a mail's stored copy with its passwords masked, in the mail's own
    transaction (by the pipeline): kept on the claimed row, it is written by the statement
    that marks the mail done (spool.process_batch; one statement a mail where there were
    two), and with the shunt if the mail fails after all."""
    row.masked_copy = masked


def process_one(row: InboundMessage, handler: Handler) -> bool:
    """Run `handler` on a claimed mail in one transaction and mark it done; on an
    exception roll the handler's work back and shunt the mail with the traceback.
    True when it is done. (A batch of one: see process_batch.)"""
    return process_batch([(row, handler)]) == 1


def process_pending(
    handler: Handler,
    limit: int | None = None,
    *,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    prepare: Callable[[InboundMessage], Any] | None = None,
    stopping: Callable[[], bool] | None = None,
    landing: Landing | None = None,
    turns: GivingTurn | None = None,
) -> int:
    """Handle queued mails, a batch at a time, until none is left (or `limit` were taken, or
    `stopping` says the judge is stopping: the batch in hand is always finished first);
    returns how many were taken, done or shunted. `prepare`, when given, does a mail's pure
    work (parsing) before its transaction; the handler is then called with its result.
    With a `landing`, the mails kept there move into the spool before each claim.
    With ``turns`` (SQLite), the sender that asked for the write lock gets it between a
    claim and the batch's transaction, while the batch's mails are read."""
    release_own_claims()
    claims.free_orphans()
    if is_postgres():
        # Imported here: game_batches builds on this module's claims and batches.
        from mailjudge.inbound.game_batches import process_pending_by_game

        return process_pending_by_game(
            handler, limit, stale_after=stale_after, max_attempts=max_attempts,
            prepare=prepare, stopping=stopping,
        )  # fmt: skip
    taken = 0
    batch = BATCH
    while (limit is None or taken < limit) and not (stopping is not None and stopping()):
        if landing is not None:
            # Here, by the worker, not by the listener: the worker takes the spool's lock
            # anyway, and a thread of the busy listener process would hold it far longer.
            move_landed(landing, MOVE)
        size = batch if limit is None else min(batch, limit - taken)
        rows = claim_batch(size, stale_after, max_attempts)
        if not rows:
            # Idle: the WAL files lose the clear copies of the mails masked meanwhile.
            if checkpoint_if_due() and landing is not None:
                landing.checkpoint()
            break
        let_go = turns is not None and turns.let_go()
        batch_work = [
            (row, handler if prepare is None else _with_prepared(handler, prepare, row))
            for row in rows
        ]  # fmt: skip
        if let_go and turns is not None:
            turns.wait_turn_over()
        process_batch(batch_work)
        taken += len(rows)
    return taken


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
                    .where((_id_field == row_id) & (InboundMessage.state == "processing")
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
        _unreleased.rows += [(_pk(row), row.attempts) for row, _ in batch]
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
                    _mark(row, "done")
                done += 1
            except LostClaim:
                log.warning("inbound message %s: claim lost, work rolled back", _pk(row))
            except OperationalError as err:
                masked = _take_masked_copy(row)
                if unusable(err) is not None:
                    raise  # not the mail's fault: the whole batch waits
                if not transient(err) or row.attempts >= MOST_TRANSIENT_TRIES:
                    failed.append((row, traceback.format_exc(), masked))
                    continue
                # Another worker's transaction was in the way: not the mail's fault.
                log.warning("inbound message %s: %s; queued again", _pk(row), err)
                again.append(row)
            except IntegrityError as err:
                masked = _take_masked_copy(row)
                if not _raced(err) or row.attempts >= MOST_TRANSIENT_TRIES:
                    failed.append((row, traceback.format_exc(), masked))
                    continue
                # Another worker's transaction wrote the same key first and has
                # committed: tried again, the mail reads what it wrote (a refusal,
                # "FRANCE is taken", rather than no answer).
                log.warning("inbound message %s: %s; queued again", _pk(row), err)
                again.append(row)
            except Exception as err:
                # Its work is rolled back; its masked copy is kept with the shunt.
                masked = _take_masked_copy(row)
                if unusable(err) is not None:
                    raise  # not the mail's fault: the whole batch waits
                failed.append((row, traceback.format_exc(), masked))
        for row in again:
            store_mail.requeue_inbound(_pk(row))
        for row, error, masked in failed:
            log.error("inbound message %s shunted:\n%s", _pk(row), error)
            try:
                with database_proxy.atomic():
                    _mark(row, "shunted", error, _shunted_copy(row, masked))
            except LostClaim:
                log.warning("inbound message %s: claim lost before it could be shunted",
                            _pk(row))  # fmt: skip
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
            log.exception("inbound message %s could not be masked; its body is dropped", _pk(row))
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


def _with_prepared(
    handler: Handler, prepare: Callable[[InboundMessage], Any], row: InboundMessage
) -> Handler:
    try:
        with _Budget(PREPARE_SECONDS):
            prepared = prepare(row)
    except Exception as exc:  # shunted by process_one, like any failure of the handler
        failure = exc

        def fail(_: InboundMessage) -> object:
            raise failure

        return fail
    return functools.partial(handler, prepared=prepared)  # type: ignore[call-arg]


def parse_stored(row: InboundMessage, settings: InboundSettings) -> ParsedMail:
    """Parse a stored mail with the configured limits (raises MailLimitError like
    parse_mail). IMAP mail has no envelope: its Return-Path header stands in."""
    envelope = None if row.source == "imap" else row.envelope_from
    return parse_mail(
        row.raw,
        envelope_from=envelope,
        max_bytes=settings.max_bytes,
        max_lines=settings.max_lines,
    )


def requeue(row_id: int) -> bool:
    """Put a shunted mail back in the queue (after the bug that shunted it is fixed)."""
    updated = (
        InboundMessage.update(state="queued", error="", attempts=0, claimed_at=None)
        .where((row_id == _id_field) & (InboundMessage.state == "shunted"))
        .execute()
    )
    return bool(updated == 1)


def counts() -> dict[str, int]:
    """How many stored mails are in each state (for status pages and tests)."""
    return {
        state: InboundMessage.select().where(InboundMessage.state == state).count()
        for state in INBOUND_STATES
    }

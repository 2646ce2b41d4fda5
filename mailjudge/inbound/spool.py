"""The inbound spool: every accepted mail is stored here before any work is done on it.

store -> queued -> (claim) processing -> done, or shunted with the error when the
handler failed. One mail is handled in one database transaction, so a crash at any
point either leaves the mail to be taken up again or has applied it exactly once.

Claims are fenced by the attempt counter: a worker that lost its claim (it was too slow
and another took the mail up) cannot mark the mail done, so its work rolls back.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import traceback
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from peewee import Field, IntegrityError

from mailjudge.db import (
    database_proxy,
    execute_compiled,
    is_postgres,
    select_compiled,
    skip_locked,
)
from mailjudge.inbound.parse import (
    ParsedMail,
    header_text,
    message_id_of,
    parse_headers,
    parse_mail,
)
from mailjudge.models import INBOUND_STATES, MESSAGE_ID_LENGTH, InboundMessage, utcnow
from mailjudge.settings import InboundSettings

log = logging.getLogger(__name__)

DEFAULT_STALE_AFTER = timedelta(minutes=10)
DEFAULT_MAX_ATTEMPTS = 3
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


def _identity(raw: bytes) -> tuple[str | None, str]:
    """(Message-ID or None, hex SHA-256 of the originator headers and the body)."""
    headers = parse_headers(raw)
    message_id = message_id_of(header_text(headers, "Message-ID"))
    if message_id is not None and len(message_id) > MESSAGE_ID_LENGTH:
        message_id = None
    body = _body(raw)
    digest = hashlib.sha256()
    for name in _IDENTITY_HEADERS:
        digest.update(f"{name}: {header_text(headers, name)}\n".encode("utf-8", "replace"))
    digest.update(b"\n")
    # Line ends differ between delivery paths; the mail is the same.
    digest.update(b"\n".join(line.rstrip() for line in body.splitlines()).rstrip())
    return message_id, digest.hexdigest()


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
    raw: bytes, envelope_from: str, envelope_to: list[str], source: str
) -> tuple[InboundMessage, bool]:
    """Keep a received mail; (row, True) when new, (the earlier row, False) when it was
    stored before. Safe when several processes store the same mail at once: the unique
    indexes decide, and the loser finds the winner's row."""
    message_id, body_hash = _identity(raw)
    # Insert first and let the unique index find duplicates: they are rare, and a
    # look-up before every insert would cost more than the odd failed insert.
    now = utcnow()
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
    }
    fields = [f for f in InboundMessage._meta.sorted_fields if f.name in values]
    params = [f.db_value(values[f.name]) for f in fields]
    try:
        with database_proxy.atomic():
            cursor = execute_compiled(
                "store-inbound", lambda: InboundMessage.insert(**values), params
            )
            new_id = cursor.fetchone()[0] if is_postgres() else cursor.lastrowid
        return InboundMessage(id=new_id, **values), True
    except IntegrityError:
        found = _existing(message_id, body_hash)
        if found is None:  # not a duplicate after all: some other constraint failed
            raise
        return found, False


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
    now = now or utcnow()
    cutoff = now - stale_after
    stale = (InboundMessage.state == "processing") & (InboundMessage.claimed_at < cutoff)
    with database_proxy.atomic():
        while True:
            found = select_compiled(
                InboundMessage,
                "claim-next-inbound",
                lambda: skip_locked(
                    InboundMessage.select()
                    .where((InboundMessage.state == "queued") | stale)
                    .order_by(InboundMessage.received_at, _id_field)
                    .limit(1)
                ),
                ["queued", "processing", InboundMessage.claimed_at.db_value(cutoff), 1],
            )
            row: InboundMessage | None = found[0] if found else None
            if row is None:
                return None
            if row.state == "processing" and row.attempts >= max_attempts:
                _mark(row, "shunted", f"abandoned: its worker stopped {row.attempts} times")
                continue
            row.state = "processing"
            row.claimed_at = now
            row.attempts += 1
            execute_compiled(
                "claim-inbound",
                functools.partial(_claim_update, row, now),
                ["processing", row.attempts, InboundMessage.claimed_at.db_value(now), _pk(row)],
            )
            return row


def _claim_update(row: InboundMessage, now: datetime) -> Any:
    return InboundMessage.update(state=row.state, claimed_at=now, attempts=row.attempts).where(
        _id_field == _pk(row)
    )


def _mark(row: InboundMessage, state: str, error: str = "") -> None:
    """Finish a claimed mail, unless someone else has claimed it since (LostClaim)."""
    done_at = utcnow()
    updated = execute_compiled(
        "finish-inbound",
        lambda: InboundMessage.update(state=state, error=error, processed_at=done_at).where(
            (_pk(row) == _id_field)
            & (InboundMessage.state == "processing")
            & (InboundMessage.attempts == row.attempts)
        ),
        [
            state,
            InboundMessage.processed_at.db_value(done_at),
            error,
            _pk(row),
            "processing",
            row.attempts,
        ],
    ).rowcount
    if updated != 1:
        raise LostClaim(f"inbound message {_pk(row)} was claimed by another worker")


def process_one(row: InboundMessage, handler: Handler) -> bool:
    """Run `handler` on a claimed mail in one transaction and mark it done; on an
    exception roll the handler's work back and shunt the mail with the traceback.
    True when it is done."""
    try:
        with database_proxy.atomic():
            handler(row)
            _mark(row, "done")
    except LostClaim:
        log.warning("inbound message %s: claim lost, work rolled back", _pk(row))
        return False
    except Exception:
        error = traceback.format_exc()
    else:
        return True
    log.error("inbound message %s shunted:\n%s", _pk(row), error)
    try:
        with database_proxy.atomic():
            _mark(row, "shunted", error)
    except LostClaim:
        log.warning("inbound message %s: claim lost before it could be shunted", _pk(row))
    return False


def process_pending(
    handler: Handler,
    limit: int | None = None,
    *,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    prepare: Callable[[InboundMessage], Any] | None = None,
    stopping: Callable[[], bool] | None = None,
) -> int:
    """Handle queued mails one by one until none is left (or `limit` were taken, or
    `stopping` says the judge is stopping: the mail in hand is always finished first);
    returns how many were taken, done or shunted. `prepare`, when given, does a mail's pure
    work (parsing) before its transaction; the handler is then called with its result."""
    taken = 0
    while (limit is None or taken < limit) and not (stopping is not None and stopping()):
        row = claim_next(stale_after, max_attempts)
        if row is None:
            break
        if prepare is None:
            process_one(row, handler)
        else:
            process_one(row, _with_prepared(handler, prepare, row))
        taken += 1
    return taken


def _with_prepared(
    handler: Handler, prepare: Callable[[InboundMessage], Any], row: InboundMessage
) -> Handler:
    try:
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

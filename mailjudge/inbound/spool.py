"""The inbound spool: every accepted mail is stored here before any work is done on it,
and the worker's loop that takes the stored mails up.

store -> queued -> (claim: inbound.claims) processing -> done, or shunted with the error
when the handler failed (inbound.answering: a batch a transaction, a mail a savepoint).
On PostgreSQL a batch is the next mails of one game (inbound.game_batches).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from peewee import IntegrityError

from mailjudge.config.settings import InboundSettings
from mailjudge.inbound import claims
from mailjudge.inbound.answering import Handler, process_batch, release_own_claims, with_prepared
from mailjudge.inbound.claims import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_STALE_AFTER,
    ID_FIELD,
    claim_batch,
)
from mailjudge.inbound.game_batches import process_pending_by_game
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
from mailjudge.store import mail as store_mail
from mailjudge.store.db import (
    GivingTurn,
    checkpoint_if_due,
    database_proxy,
    is_postgres,
    prompt_write,
)
from mailjudge.store.models import INBOUND_STATES, MESSAGE_ID_LENGTH, InboundMessage, utcnow

log = logging.getLogger(__name__)

# Mails claimed and committed together. More shares a commit among more mails; fewer
# keeps the write lock (SQLite's is the whole database) free sooner for the listener.
BATCH = 8
# The most landed mails moved into the spool in one transaction (inbound.landing).
MOVE = 64
# Headers that identify one mail however it reached us (IMAP and SMTP copies differ in
# Received, Return-Path and Delivered-To); hashed with the body when Message-ID is missing.
_IDENTITY_HEADERS = ("From", "To", "Cc", "Date", "Subject")


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
            (row, handler if prepare is None else with_prepared(handler, prepare, row))
            for row in rows
        ]  # fmt: skip
        if let_go and turns is not None:
            turns.wait_turn_over()
        process_batch(batch_work)
        taken += len(rows)
    return taken


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
        .where((row_id == ID_FIELD) & (InboundMessage.state == "shunted"))
        .execute()
    )
    return bool(updated == 1)


def counts() -> dict[str, int]:
    """How many stored mails are in each state (for status pages and tests)."""
    return {
        state: InboundMessage.select().where(InboundMessage.state == state).count()
        for state in INBOUND_STATES
    }

"""The outbox: mail is queued here (in the caller's transaction) and sent later.

An SMTP outage delays mail, never loses it: a failed attempt is retried after a wait
that doubles each time, until the mail is given up as failed with its last error
kept. Rows are claimed for sending with a lease (state `sending`, next_attempt_at in
the lease's future), so two senders never take the same mail, and a sender that dies
holding mail only delays it until the lease runs out.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Any

from peewee import Field, IntegrityError

from mailjudge.addresses import bounce_address, kept_case
from mailjudge.outbound import clock_step, leases
from mailjudge.outbound.connections import RelayConnections
from mailjudge.outbound.draft import MailDraft
from mailjudge.outbound.invitation import add_invitation, calendar_part
from mailjudge.outbound.message import (
    Attachment,
    InlineImage,
    board_cid,
    judge_headers,
    mime_message,
    new_message_id,
    plain_text_bytes,
)
from mailjudge.outbound.retry import HOLD_RECHECK, RetryPolicy
from mailjudge.outbound.send import Sender, is_permanent
from mailjudge.outbound.sent_record import SentRecord
from mailjudge.store import mail as store_mail
from mailjudge.store.db import WriteTurn, database_proxy, prompt_write
from mailjudge.store.models import HELD, BoardPicture, Game, InboundMessage, Outbox, utcnow
from mailjudge.store.outages import DatabaseAway, unusable

log = logging.getLogger(__name__)

# The implicit primary key, which peewee's stubs do not declare.
_id_field: Field[int] = Outbox._meta.fields["id"]
# Replies claimed at a time. On SQLite each claim is a turn at the write lock the worker
# gives up between two of its batches (app.write_turns): in a burst a claim takes all that
# piled up meanwhile, not the first twenty of it.
CLAIM_BATCH = 100
# How often the sender asks for SQLite's write lock while the worker holds it: every try
# costs it processor time (in a burst of mail 20 to 40 tries a take at prompt_write's
# half millisecond), and a reply a few milliseconds later is no loss.
CLAIM_PAUSE = 0.004


def _pk(row: Outbox) -> int:
    return int(row.__data__["id"])


@dataclass
class FlushResult:
    sent: int = 0
    retried: int = 0  # failed this time; will be tried again
    failed: int = 0  # given up
    held: int = 0  # every recipient bounces: kept until one signs on again

    @property
    def taken(self) -> int:
        return self.sent + self.retried + self.failed + self.held


# Mail whose every recipient bounced outbound.bounce_limit times is held (HELD, kept in
# store/models.py beside the Outbox table), given up after HOLD_FOR.
HOLD_FOR = timedelta(days=30)


def envelope_recipients(message: EmailMessage) -> list[str]:
    """Every address in To, Cc and Bcc as written (the domain lower-cased), each once
    whatever its case, in order."""
    values = [str(v) for name in ("To", "Cc", "Bcc") for v in message.get_all(name, [])]
    seen: dict[str, str] = {}
    for _, address in getaddresses(values):
        if "@" in address:
            seen.setdefault(address.lower(), kept_case(address))
    return list(seen.values())


def enqueue(
    message: EmailMessage,
    game: Game | None = None,
    inbound: InboundMessage | None = None,
    to_addrs: Sequence[str] | None = None,
) -> Outbox:
    """Queue a mail; it is sent by a later flush, never here. `inbound` is the mail it
    answers (the reply rate limit counts those). The envelope goes to `to_addrs`, by
    default the To, Cc and Bcc addresses; Bcc itself is not sent. Queuing the same
    Message-ID again returns the row already queued."""
    message_id = message["Message-ID"]
    if not message_id:
        raise ValueError("queue only mails with a Message-ID (build_message gives one)")
    # As written: a server may tell Jean.Dupont@ from jean.dupont@ (addresses.kept_case).
    recipients = [kept_case(a) for a in to_addrs] if to_addrs is not None else None
    recipients = recipients or envelope_recipients(message)
    if not recipients:
        raise ValueError(f"mail {message_id} has no recipient")
    if "Bcc" in message:
        message = copy.deepcopy(message)
        del message["Bcc"]
    # Insert first and look only when the unique index says it is there already:
    # queuing is on every mail's path, and the look-up would almost never find anything.
    try:
        with database_proxy.atomic():
            whole = message.as_bytes(policy=policy.SMTP)
            subject = str(message.get("Subject", ""))
            row = _row_values(
                " ".join(recipients), subject, whole, str(message_id), game, inbound, None
            )
            return _insert(row)
    except IntegrityError:
        existing = Outbox.get_or_none(Outbox.message_id == str(message_id))
        if existing is None:
            raise
        return existing


def enqueue_draft(
    draft: MailDraft,
    game: Game | None = None,
    inbound: InboundMessage | None = None,
    envelope: Sequence[str] = (),
) -> Outbox:
    """Queue a mail as a draft; the sender renders it. It gets its Message-ID now."""
    return _insert(_draft_row(draft, game, inbound, envelope))


def enqueue_draft_later(
    draft: MailDraft, game: Game | None = None, inbound: InboundMessage | None = None
) -> None:
    """`enqueue_draft` for a caller that needs nothing back (the answer to a mail)."""
    store_mail.add_outbox(_draft_row(draft, game, inbound, ()))


def _draft_row(
    draft: MailDraft, game: Game | None, inbound: InboundMessage | None, envelope: Sequence[str]
) -> dict[str, Any]:
    message_id = draft.message_id or new_message_id(draft.sender.rpartition("@")[2])
    stored = draft.as_json()  # as the draft with its Message-ID set would give it
    stored["message_id"] = message_id
    # With `envelope` (a list's members) the mail goes to them, not to the list address
    # its To names: that would send it round the list again.
    named = envelope or draft.to
    recipients = [kept_case(a) for a in named]
    # One INSERT is all-or-nothing by itself: no savepoint of its own (one on every mail's
    # path), the caller's transaction holds it.
    return _row_values(" ".join(recipients), draft.subject, b"", message_id, game, inbound,
                       stored)  # fmt: skip


def render_draft(stored: Mapping[str, Any]) -> bytes:
    """The mail a stored draft stands for, as it goes on the wire: a text alone is
    written directly (`plain_text_bytes`), one with HTML, the board picture or a calendar
    invitation by the email package."""
    draft = MailDraft.from_json(stored)
    headers = judge_headers(
        sender=draft.sender, to=draft.to, subject=draft.subject, message_id=draft.message_id,
        date=datetime.fromisoformat(draft.date) if draft.date else None,
        in_reply_to=draft.in_reply_to, references=draft.references,
        auto_submitted=draft.auto_submitted, game=draft.game, phase=draft.phase,
        role=draft.role, reply_to=draft.reply_to, sender_name=draft.sender_name,
        list_id=draft.list_id, list_post=draft.list_post,
    )  # fmt: skip
    if not draft.html and draft.board is None and not draft.calendar:
        return plain_text_bytes(headers, draft.text)
    inline, attachments = (
        _board_parts(draft.board, draft.board_svg) if draft.board is not None else ([], [])
    )
    message = mime_message(headers, draft.text, html=draft.html, inline_images=inline,
                           attachments=attachments)  # fmt: skip
    if draft.calendar:
        add_invitation(message, calendar_part(draft.calendar.encode("utf-8")))
    return message.as_bytes(policy=policy.SMTP)


def _board_parts(picture_id: int, svg_too: bool) -> tuple[list[InlineImage], list[Attachment]]:
    """A stored board picture: the PNG shown in the HTML part; the SVG attached only when
    asked for (MAP), since it is twice the PNG's size and results link it on the web. A
    picture dropped since (long-delayed mail) leaves the mail without it."""
    row = BoardPicture.get_or_none(id=picture_id)
    if row is None:
        return [], []
    name = f"board-{row.phase}"
    inline = [InlineImage(board_cid(picture_id), f"{name}.png", row.png, "image/png")]
    svg = Attachment(f"{name}.svg", row.svg.encode("utf-8"), "image/svg+xml")
    return (inline if row.png else []), ([svg] if svg_too or not row.png else [])


def _insert(values: dict[str, Any]) -> Outbox:
    """One new outbox row (from `_row_values`)."""
    return Outbox(id=store_mail.insert_outbox(values), **values)


def _row_values(
    to_addrs: str,
    subject: str,
    raw: bytes,
    message_id: str,
    game: Game | None,
    inbound: InboundMessage | None,
    draft: dict[str, Any] | None,
) -> dict[str, Any]:
    """A new outbox row's values (every answered mail makes one)."""
    now = utcnow()
    return {
        "to_addrs": to_addrs, "subject": subject, "raw": raw, "draft": draft, "state": "queued",
        "attempts": 0, "next_attempt_at": now, "last_error": "", "message_id": message_id,
        "game": game.__data__["id"] if game is not None else None,
        "inbound": inbound.__data__["id"] if inbound is not None else None,
        "created_at": now, "relay_reply": "", "leased_by": "",
    }  # fmt: skip


# How often a sender looks for the leases of senders that are gone (one query of the
# holders of the mails being sent).
LEASES_LOOK_EVERY = 1.0
_leases_looked = 0.0


def _free_dead_leases(now: datetime) -> None:
    """The mails leased by senders of this machine that are gone (killed), due now: they
    would wait out the lease otherwise. At most once a LEASES_LOOK_EVERY seconds."""
    global _leases_looked
    if time.monotonic() - _leases_looked < LEASES_LOOK_EVERY:
        return
    _leases_looked = time.monotonic()
    sending = Outbox.state == "sending"
    named = Outbox.select(Outbox.leased_by).where(sending & (Outbox.leased_by != "")).distinct()
    dead = leases.gone(str(name) for name in named.scalars())
    if dead:
        freed = (
            Outbox.update(next_attempt_at=now)
            .where(sending & Outbox.leased_by.in_(sorted(dead)))
            .execute()
        )
        log.info("%s mails that a sender now gone had in hand are due again", freed)


def claim_due(
    now: datetime,
    limit: int,
    lease: timedelta,
    record: SentRecord | None = None,
    turn: WriteTurn | None = None,
) -> list[Outbox]:
    """Reserve up to `limit` mails that are due (or whose sender's lease ran out). With a
    ``record``, its outcomes are carried into the outbox in the same transaction: one
    write transaction a batch instead of two (see `fold`). With a ``turn``, the workers
    are asked to let the sender have SQLite's write lock (app.write_turns). The leases
    name this sender (outbound.leases), and the mails of senders gone are due at once."""
    outcomes = record.outcomes() if record is not None else {}
    with prompt_write(pause=CLAIM_PAUSE, turn=turn):
        for outbox_id, changes in outcomes.items():
            _update_by_id(outbox_id, changes)
        _free_dead_leases(now)
        rows = store_mail.due_outbox(now, limit)
        if rows:
            store_mail.lease_outbox([_pk(r) for r in rows], now + lease, leases.holder())
    if record is not None and outcomes:
        record.forget(list(outcomes))
    return rows


def _finish(row: Outbox, **changes: object) -> None:
    _update_by_id(_pk(row), changes)


def _update_by_id(outbox_id: int, changes: Mapping[str, object]) -> int:
    return store_mail.update_outbox(outbox_id, changes)


def bounced_addresses(addresses: Sequence[str], limit: int) -> list[str]:
    """Those of `addresses` whose mail bounced `limit` times since their player last
    signed on (0: never stop). The sender asks for every batch it claims."""
    if limit <= 0 or not addresses:
        return []
    counts = store_mail.bounce_counts([a.lower() for a in addresses])
    return [address for address, count in counts if count >= limit]


# What became of a claimed mail ("sent", "retried", "failed" or "held") and the outbox
# columns to record for it.
Outcome = tuple[str, dict[str, object]]


@dataclass(frozen=True)
class _Ready:
    """A claimed mail ready for the relay: its bytes (``rendered`` when made from its
    draft just now) and the recipients not held for bouncing."""

    row: Outbox
    raw: bytes
    rendered: bytes | None
    live: list[str]


def _ready(row: Outbox, now: datetime, retry: RetryPolicy, bounced: set[str]) -> _Ready | Outcome:
    """A claimed mail made ready to send (its draft rendered: this may read the board
    picture, so it is done in the thread that holds the database), or its outcome when
    it goes nowhere now. ``bounced``: the addresses (lower case) held for bouncing."""
    recipients = row.to_addrs.split()
    stopped = [r for r in recipients if r.lower() in bounced]
    if stopped and len(stopped) == len(recipients):
        return _hold(row, now, stopped, retry.bounce_limit)
    rendered = None
    try:
        raw = row.raw
        if not raw and row.draft is not None:
            raw = rendered = render_draft(row.draft)
    except Exception as exc:
        if unusable(exc) is not None:
            raise  # the database's failing, not the mail's: _send_batch puts it back
        return _not_taken(row, exc, now, retry)
    return _Ready(row, raw, rendered, [r for r in recipients if r not in stopped])


def _hand_over(sender: Sender, ready: _Ready, now: datetime, retry: RetryPolicy) -> Outcome:
    """Hand one mail to the relay; what became of it. Touches no database: this may run
    in a relay connection's own thread."""
    row = ready.row
    judge = getattr(sender, "envelope_from", None)
    verp = bounce_address(judge, _pk(row), row.message_id) if judge else None
    try:
        handed = sender.send(ready.raw, ready.live, verp)
    except Exception as exc:
        return _not_taken(row, exc, now, retry)
    note = "refused: " + ", ".join(sorted(handed.refused)) if handed.refused else ""
    log.info("outbox %s sent to %s%s", _pk(row), row.to_addrs, f" ({note})" if note else "")
    changes: dict[str, object] = {
        "state": "sent",
        "attempts": row.attempts + 1,
        "last_error": note,
        "sent_at": utcnow(),
        "relay_reply": handed.reply,
    }
    if ready.rendered is not None:
        # Keep what went out; a mail with the board picture keeps its headers only, since
        # the draft and the picture (stored once for every recipient) make it again.
        with_picture = row.draft is not None and row.draft.get("board") is not None
        changes["raw"] = header_section(ready.rendered) if with_picture else ready.rendered
    return "sent", changes


def _not_taken(row: Outbox, exc: Exception, now: datetime, retry: RetryPolicy) -> Outcome:
    """A mail that could not be made or was not taken: tried again later, or failed for
    good (a permanent refusal, or the last attempt)."""
    attempts = row.attempts + 1
    error = f"{type(exc).__name__}: {exc}"
    if is_permanent(exc) or attempts >= retry.max_attempts:
        log.error("outbox %s failed after %s attempt(s): %s", _pk(row), attempts, error)
        return "failed", {"state": "failed", "attempts": attempts, "last_error": error}
    log.warning("outbox %s to %s deferred: attempt %s failed: %s", _pk(row), row.to_addrs,
                attempts, error)  # fmt: skip
    return "retried", {
        "state": "queued",
        "attempts": attempts,
        "last_error": error,
        "next_attempt_at": now + retry.delay(attempts),
    }


def _hold(
    row: Outbox, now: datetime, stopped: list[str], limit: int
) -> tuple[str, dict[str, object]]:
    """A mail whose every recipient bounces: kept (queued, looked at again later) until
    a player signs on again, given up once it has waited HOLD_FOR."""
    why = f"mail to {', '.join(stopped)} bounced {limit} times"
    if now - row.created_at >= HOLD_FOR:
        log.info("outbox %s given up: %s and nobody signed on for %s days", _pk(row), why,
                 HOLD_FOR.days)  # fmt: skip
        return "failed", {"state": "failed", "attempts": row.attempts,
                          "last_error": f"not sent: {why}; held {HOLD_FOR.days} days"}  # fmt: skip
    note = f"{HELD}{why}; sent when the player signs on again"
    if not row.last_error.startswith(HELD):
        log.info("outbox %s %s", _pk(row), note)
    return "held", {"state": "queued", "attempts": row.attempts, "last_error": note,
                    "next_attempt_at": now + HOLD_RECHECK}  # fmt: skip


def flush(
    sender: Sender,
    now: datetime | None = None,
    limit: int | None = None,
    retry: RetryPolicy | None = None,
    record: SentRecord | None = None,
    stopping: Callable[[], bool] | None = None,
    turn: WriteTurn | None = None,
) -> FlushResult:
    """Send every mail that is due (at most `limit`), recording each outcome as soon as
    the relay has answered: a sender killed after the relay took a mail and before its
    outcome was recorded sends that mail again when its lease runs out, so the record
    must follow the send as closely as it can (the mail keeps its Message-ID, so a
    receiver still sees one mail). With a ``record`` (SQLite) each outcome is kept there
    at once and carried into the outbox with the next claim, in its transaction, or
    before returning (see outbound.sent_record). When ``stopping`` says so, no further
    batch is claimed: the one in hand is finished. ``turn``: see `claim_due`."""
    now = now or utcnow()
    retry = retry or RetryPolicy()
    clock_step.mind_the_clock(sender, now, retry)
    result = FlushResult()
    _write_kept_outcomes()
    while limit is None or result.taken < limit:
        if stopping is not None and stopping():
            break
        batch = CLAIM_BATCH if limit is None else min(CLAIM_BATCH, limit - result.taken)
        rows = claim_due(now, batch, retry.lease, record, turn)
        _send_batch(sender, rows, now, retry, record, result)
        # Fewer than asked for: nothing else was due at `now` (what is queued later is due
        # later), so no further claim is needed to find that out.
        if len(rows) < batch:
            break
    if record is not None:
        fold(record, turn)  # costs nothing when the record is known to be empty
    return result


def _send_batch(
    sender: Sender,
    rows: list[Outbox],
    now: datetime,
    retry: RetryPolicy,
    record: SentRecord | None,
    result: FlushResult,
) -> None:
    """Send claimed mails one by one, keeping each outcome at once."""
    if not rows:
        return
    done: set[int] = set()
    away: str | None = None
    try:
        # Which addresses bounce too often: asked once for the batch, not for each mail.
        everyone = {a.lower() for row in rows for a in row.to_addrs.split()}
        bounced = set(bounced_addresses(sorted(everyone), retry.bounce_limit))
        for row, (outcome, changes) in _sent(sender, rows, now, retry, bounced):
            done.add(_pk(row))
            if record is not None:
                record.note(_pk(row), changes)
            elif away is not None:
                _kept_outcomes[_pk(row)] = changes
            else:
                try:
                    with prompt_write():
                        _finish(row, **changes)
                except Exception as err:
                    away = unusable(err)
                    if away is None:
                        raise
                    # The relay has the mail: its outcome is kept until the database is
                    # back (else the mail would go again when its lease runs out). The
                    # batch's other mails, leased to this sender, go on being sent.
                    _kept_outcomes[_pk(row)] = changes
            setattr(result, outcome, getattr(result, outcome) + 1)
    except Exception as err:
        reason = unusable(err)
        if reason is None:
            raise
        # The database went away before these were sent (asking who bounces, reading a
        # board picture): they are put back, no attempt counted, once it answers again.
        # Left leased, they would wait out the lease (lease_seconds, ten minutes).
        lease = (now + retry.lease, now)
        _put_back.update((_pk(row), lease) for row in rows if _pk(row) not in done)
        raise DatabaseAway(reason) from None
    if away is not None:
        raise DatabaseAway(away)


# Outcomes of mails the relay took while the database was away (PostgreSQL: SQLite's
# sender keeps a record file instead), written before this sender claims anything else.
_kept_outcomes: dict[int, dict[str, object]] = {}


# Mails this sender leased and did not send because the database went away, with the
# end and the start of their lease: due again (from the lease's start) when it answers,
# unless the lease has changed meanwhile (it ran out, and another sender has them now).
_put_back: dict[int, tuple[datetime, datetime]] = {}


def _write_kept_outcomes() -> None:
    if not _kept_outcomes and not _put_back:
        return
    with prompt_write():
        for outbox_id, changes in _kept_outcomes.items():
            _update_by_id(outbox_id, changes)
        for outbox_id, (until, due) in _put_back.items():
            Outbox.update(state="queued", next_attempt_at=due).where(
                (_id_field == outbox_id)
                & (Outbox.state == "sending")
                & (Outbox.next_attempt_at == until)
            ).execute()
    _kept_outcomes.clear()
    _put_back.clear()


def _sent(
    sender: Sender, rows: list[Outbox], now: datetime, retry: RetryPolicy, bounced: set[str]
) -> Iterator[tuple[Outbox, Outcome]]:
    """Each claimed mail with its outcome, as soon as it is known. Over one connection
    each mail is made and sent in turn; over several, all are made first (here, where the
    database is: a draft may read its board picture), then spread over the connections."""
    if not (isinstance(sender, RelayConnections) and len(sender.senders) > 1):
        for row in rows:
            got = _ready(row, now, retry, bounced)
            yield row, _hand_over(sender, got, now, retry) if isinstance(got, _Ready) else got
        return
    ready = []
    for row in rows:
        got = _ready(row, now, retry, bounced)
        if isinstance(got, _Ready):
            ready.append(got)
        else:
            yield row, got
    for mail, outcome in sender.each(
        ready, lambda mail: mail.live, lambda one, mail: _hand_over(one, mail, now, retry)
    ):
        yield mail.row, outcome


def fold(record: SentRecord, turn: WriteTurn | None = None) -> int:
    """Carry the outcomes kept in ``record`` into the outbox in one transaction, then
    forget them there; how many."""
    outcomes = record.outcomes()
    if not outcomes:
        return 0
    with prompt_write(pause=CLAIM_PAUSE, turn=turn):
        for outbox_id, changes in outcomes.items():
            _update_by_id(outbox_id, changes)
    record.forget(list(outcomes))
    return len(outcomes)


def header_section(raw: bytes) -> bytes:
    """The header lines of a mail, up to and with the blank line that ends them."""
    end = raw.find(b"\r\n\r\n")
    return raw if end < 0 else raw[: end + 4]


def prune_sent(older_than: datetime) -> int:
    """Mail sent before `older_than` keeps only its headers and its outcome (state,
    attempts, last error, when it went): the text and the draft go. Returns how many."""
    pruned, after = 0, 0
    old = (Outbox.state == "sent") & (Outbox.sent_at < older_than)
    while True:
        batch = Outbox.select(_id_field, Outbox.raw, Outbox.draft).where(old & (_id_field > after))
        rows = list(batch.order_by(_id_field).limit(200))
        if not rows:
            return pruned
        after = _pk(rows[-1])
        with database_proxy.atomic():
            for row in rows:
                headers = header_section(row.raw)
                if headers != row.raw or row.draft is not None:
                    _update_by_id(_pk(row), {"raw": headers, "draft": None})
                    pruned += 1

"""One stored mail, start to end: parse it, decide whether to answer at all, and hand it to
the handler of its kind (app/handlers.py: a bounce, a list post, a Reply to press, commands),
which queues the answer (app/replies.py) and every mail the mail causes.

It runs inside the spool's transaction for that mail (inbound.answering.process_batch), so
either all its effects are stored, the reply included, or none are and the mail is shunted.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.addresses import bounced_outbox, judge_detail, press_reply_target
from mailjudge.app import handlers, replies
from mailjudge.config.settings import Settings
from mailjudge.game import guard
from mailjudge.inbound.answering import keep_masked_copy
from mailjudge.inbound.parse import MailLimitError, ParsedMail
from mailjudge.inbound.silence import CALENDAR_ANSWERS, carries_commands, silence_reason
from mailjudge.inbound.spool import parse_stored
from mailjudge.outbound.answered import sent_to
from mailjudge.render import render
from mailjudge.secrecy.masking import mask_mail
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, utcnow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """A stored mail's pure work, done before the transaction that handles it: the mail
    parsed (or the limit it breaks), and its stored copy with the passwords masked."""

    parsed: ParsedMail | MailLimitError
    masked: bytes  # the same bytes as the stored copy when it carries no password


def prepare(row: InboundMessage, settings: Settings) -> Prepared:
    """Parse and mask a stored mail. Both take time in proportion to the mail's length at
    most, and neither holds the database's write lock while it works."""
    try:
        parsed: ParsedMail | MailLimitError = parse_stored(row, settings.inbound)
    except MailLimitError as err:
        parsed = err
    return Prepared(parsed, mask_mail(row.raw))


def handle(
    row: InboundMessage,
    settings: Settings,
    now: datetime | None = None,
    prepared: Prepared | None = None,
) -> None:
    """Handle one stored mail, and log one line saying what came of it."""
    started = time.perf_counter()
    work = prepared if prepared is not None else prepare(row, settings)
    # The stored copy loses its passwords with the mark that the mail is done, in the same
    # transaction as the mail's effects, or with the mark that it is shunted: a mail that
    # fails is never kept with a password in clear (issue 52).
    if work.masked != row.raw:
        keep_masked_copy(row, work.masked)
        db.secrets_overwritten()
    outcome = _handle(row, settings, now or utcnow(), work.parsed)
    log.info("mail %s from %s: %s, %.0f ms", row.message_id, row.envelope_from or "<>",
             outcome, (time.perf_counter() - started) * 1000)  # fmt: skip


def _handle(
    row: InboundMessage,
    settings: Settings,
    now: datetime,
    parsed: ParsedMail | MailLimitError,
) -> str:
    """Pick the mail's handler by what kind of mail it is, and let it answer."""
    if isinstance(parsed, MailLimitError):
        return _refuse(row, parsed, settings, now)
    mail, judge = parsed, settings.judge.address
    bounced = _bounced_outbox(row, mail, judge)
    if bounced is not None:
        return handlers.handle_bounce(row, bounced, settings, now)
    reason = silence_reason(mail, judge)
    if reason is not None:
        return f"not answered: {reason}"
    if mail.calendar_method in CALENDAR_ANSWERS and not carries_commands(mail):
        # One with a note (the others are silent); with a SIGNON in it, read as any mail.
        return handlers.handle_calendar_note(row, mail, settings, now)
    _note_round_trip(mail, now)
    listed = handlers.list_post_target(row, mail, judge)
    if listed is not None:
        return handlers.handle_list_post(row, mail, settings, now, *listed)
    detail = _game_from_address(row, mail, judge)
    press = press_reply_target(detail) if detail else None
    if press is not None:
        return handlers.handle_press_reply(row, mail, settings, now, *press)
    return handlers.handle_commands(row, mail, settings, now, detail)


def _refuse(row: InboundMessage, err: MailLimitError, settings: Settings, now: datetime) -> str:
    """A mail past the judge's limits is not read: its sender is told why, within its
    caps, unless it is mail the judge never answers."""
    judge = settings.judge.address
    answer_to = replies.answer_address(err.mail)
    body = render("limit_error.txt.j2", reason=str(err), judge=judge)
    if silence_reason(err.mail, judge) is None and replies.may_answer(
        err.mail, answer_to, len(body), settings, now
    ):
        replies.queue_reply(err.mail, body, row, settings, now, answer_to)
    return f"refused: {err}"


def _bounced_outbox(row: InboundMessage, mail: ParsedMail, judge: str) -> tuple[int, str] | None:
    """The judge's VERP address the mail went to, (outbox id, check): a bounce."""
    addresses = [*row.envelope_to.split(), *mail.delivered_to, *mail.to]
    return next((found for a in addresses if (found := bounced_outbox(a, judge))), None)


def _note_round_trip(mail: ParsedMail, now: datetime) -> None:
    """A mail that names (In-Reply-To, References) a mail the judge sent to its sender
    proves the sender reads the judge's mail there: a forger cannot know those
    Message-IDs. Only then is the address proven (game.guard.is_proven)."""
    sender = mail.sender.lower()
    named = [i for i in (mail.in_reply_to, *mail.references) if i][:10]
    if not sender or not named or guard.is_proven(sender):
        return
    if sent_to(named, sender):
        guard.mark_proven(sender, now)


def _game_from_address(row: InboundMessage, mail: ParsedMail, judge: str) -> str | None:
    """``judge+GAME@...`` stands in for the game name in SIGNON."""
    for address in (*row.envelope_to.split(), *mail.delivered_to, *mail.to):
        detail = judge_detail(address, judge)
        if detail:
            return detail.lower()
    return None

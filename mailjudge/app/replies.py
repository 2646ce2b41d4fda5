"""The answer to a mail, built and queued here and nowhere else: where it goes (the From,
or a proven Reply-To), whether its sender's caps allow it, its words cut to size, and the
notice that answers are held back for a while.

An answer is queued linked to the mail it answers (the outbox counts an address's answers
by that link), in the same transaction as everything else the mail did."""

from __future__ import annotations

from datetime import datetime

from mailjudge.commands.base import Context
from mailjudge.game import guard
from mailjudge.inbound.parse import ParsedMail
from mailjudge.masking import mask_text
from mailjudge.models import Game, InboundMessage, Seat
from mailjudge.outbound.draft import MailDraft
from mailjudge.outbound.outbox import (
    PAUSED_SUBJECT,
    answers_resume_at,
    enqueue_draft,
    enqueue_draft_later,
    pause_notice_sent,
)
from mailjudge.render import render
from mailjudge.render.deadline import time_for_address
from mailjudge.render.outgoing import answer_subject
from mailjudge.settings import Settings


def answer_address(mail: ParsedMail, ctx: Context | None = None) -> str:
    """Where the answer goes: the Reply-To only when that address proved by a round trip
    that it reads the judge's mail (game.guard.is_proven) and the mail's SIGNON, if any,
    did not fail; else the From. A forged Reply-To cannot aim the judge at a stranger, nor
    collect a guesser's answers. When the seat was under guessing, the answer to its right
    password goes to the seat's own address."""
    sender = mail.sender or mail.reply_to
    if ctx is not None and ctx.to_seat_only and ctx.seat is not None:
        person = ctx.seat.person
        if person is not None:
            return str(person.email)
    failed = ctx is not None and ctx.stopped and ctx.seat is None and not ctx.quiet
    token = ctx is not None and ctx.token_for_sender  # only its own address reads a token
    if mail.reply_to == sender or failed or token or not guard.is_proven(mail.reply_to):
        return sender
    return mail.reply_to


def may_answer(
    mail: ParsedMail, to: str, size: int, signed_on: bool, settings: Settings, now: datetime
) -> bool:
    """Whether an answer of `size` bytes may go to `to` within its hour's caps: the
    sender's own (generous when it signed on to a seat or proved its address), or, for an
    answer caused by someone else's mail (to a proven Reply-To), the small caps of
    unasked-for mail, kept apart so that they never spend the address's own."""
    own = signed_on or to.lower() == (mail.sender or mail.reply_to).lower()
    proven = signed_on or (own and guard.is_proven(to))
    return guard.may_mail(to, size, now, proven, "own" if own else "others", settings.security)


def within_bytes(body: str, limit: int) -> str:
    """The answer's words, cut at a line to at most `limit` bytes, saying so."""
    data = body.encode("utf-8")
    if len(data) <= limit:
        return body
    cut = data[:limit].decode("utf-8", "ignore").rpartition("\n")[0]
    return cut + (
        f"\n\n[The rest of this answer is cut: it came to {len(data)} bytes, and "
        f"the judge sends at most {limit}. Send fewer commands in one mail.]\n"
    )


def queue_reply(
    mail: ParsedMail,
    body: str,
    row: InboundMessage,
    settings: Settings,
    now: datetime,
    to: str,
    game: Game | None = None,
    seat: Seat | None = None,
) -> None:
    """The answer to `mail` into the outbox, threaded under it and linked to its stored
    row; with the game's headers when the mail signed on to a seat of one."""
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(to,),
        # A Subject may hold a SIGNON line too: the answer's never shows its password.
        subject=answer_subject(mask_text(mail.subject), game),
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        game=game.name if game is not None else None,
        phase=game.phase if game is not None else None,
        role=f"{seat.role} {seat.powers}".strip() if seat is not None else None,
        date=now.isoformat(),
    )
    enqueue_draft_later(draft, game=game, inbound=row)


def tell_answers_paused(mail: ParsedMail, settings: Settings, now: datetime, to: str) -> None:
    """One notice a window when answers are held back: the commands were carried out,
    and the answers start again at a time the person can read."""
    if pause_notice_sent(to, settings.outbound, now):
        return
    body = render(
        "answers_paused.txt.j2",
        limit=settings.outbound.reply_limit,
        minutes=settings.outbound.reply_window_minutes,
        until=time_for_address(
            answers_resume_at(to, settings.outbound, now),
            settings.judge.timezone,
            to,
        ),
        judge=settings.judge.address,
    )
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(to,),
        subject=PAUSED_SUBJECT,
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        date=now.isoformat(),
    )
    enqueue_draft(draft)  # not linked to the mail: it must not count toward the limit

"""The answer to a mail, built and queued here and nowhere else: where it goes (the From,
or a proven Reply-To), whether its sender's caps allow it, its words cut to size, and the
notices that answers are held back for a while (the reply limit, an address's caps).

An answer is queued linked to the mail it answers (the outbox counts an address's answers
by that link), in the same transaction as everything else the mail did."""

from __future__ import annotations

from datetime import datetime

from mailjudge.commands.base import Context
from mailjudge.config.settings import Settings
from mailjudge.game import guard
from mailjudge.inbound.parse import ParsedMail
from mailjudge.outbound.answered import PAUSED_SUBJECT, answers_resume_at, pause_notice_sent
from mailjudge.outbound.draft import MailDraft
from mailjudge.outbound.mailbox import mailbox
from mailjudge.outbound.outbox import enqueue_draft, enqueue_draft_later
from mailjudge.render import render
from mailjudge.render.deadline import time_for_address
from mailjudge.render.outgoing import answer_subject
from mailjudge.secrecy.masking import mask_text
from mailjudge.store.models import Game, InboundMessage, Seat


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
            return person.mailbox
    failed = ctx is not None and ctx.stopped and ctx.seat is None and not ctx.quiet
    token = ctx is not None and ctx.token_for_sender  # only its own address reads a token
    if mail.reply_to == sender or failed or token or not guard.is_proven(mail.reply_to):
        return sender
    return mail.reply_to


def own_address(mail: ParsedMail, ctx: Context | None = None) -> str:
    """The address whose own hourly allowance a mail's answer (and the mail it causes)
    spends: the seat's it signed on to, else its sender's. A mail signed on to one seat
    never spends another address's allowance, even one forged as its From (issue 52: 18
    mails forged from a player's address, signed on to the forger's own seat, used up the
    player's hour and switched the player's answers off)."""
    person = ctx.seat.person if ctx is not None and ctx.seat is not None else None
    return str(person.email if person is not None else (mail.sender or mail.reply_to)).lower()


def may_answer(
    mail: ParsedMail,
    to: str,
    size: int,
    settings: Settings,
    now: datetime,
    ctx: Context | None = None,
) -> bool:
    """Whether an answer of `size` bytes may go to `to` within its hour's caps: the own
    allowance of the address the mail speaks for (own_address: generous when it signed on
    to that seat or proved the address), or, for an answer to any other address (a proven
    Reply-To, the From of a mail signed on to another seat), the small caps of
    unasked-for mail, kept apart so that they never spend that address's own."""
    own = mailbox(to) == mailbox(own_address(mail, ctx))
    signed_on = own and ctx is not None and ctx.seat is not None
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
        to=(mail.as_written(to),),  # Jean.Dupont@ as they wrote it, not jean.dupont@
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


HELD_SUBJECT = "answers held"


def tell_answers_held(
    mail: ParsedMail, settings: Settings, now: datetime, to: str, until: datetime, same: bool
) -> None:
    """One notice an hour when an address's caps hold its answers back (``same``: the
    same text came too often): why, and when answers come again, in time the person can
    read (a master reading HELP topics from a new address was answered ten times, then
    nothing)."""
    key = f"{'same' if same else 'caps'}:{to.lower()}"
    if not guard.first_notice(key, now):
        return
    limits = settings.security
    body = render(
        "answers_held.txt.j2",
        same=same,
        proven=guard.is_proven(to),
        limit=limits.same_mail_answers if same else limits.unproven_per_hour,
        until=time_for_address(until, settings.judge.timezone, to),
        judge=settings.judge.address,
    )
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(to,),
        subject=HELD_SUBJECT,
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        date=now.isoformat(),
    )
    enqueue_draft(draft)  # not linked to the mail: the held answer is not sent


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
        to=(mail.as_written(to),),
        subject=PAUSED_SUBJECT,
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        date=now.isoformat(),
    )
    enqueue_draft(draft)  # not linked to the mail: it must not count toward the limit

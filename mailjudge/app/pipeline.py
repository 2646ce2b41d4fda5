"""One stored mail, start to end: parse it, decide whether to answer at all, run its
commands, and queue the reply and every mail the commands cause.

It runs inside the spool's transaction for that mail (spool.process_batch), so either all of
its effects are stored, the reply included, or none are and the mail is shunted.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.addresses import bounced_outbox, judge_detail, press_reply_target
from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.db import update_by_id_compiled
from mailjudge.inbound.bounces import failures
from mailjudge.inbound.own_words import reading_notes, without_own_words
from mailjudge.inbound.parse import MailLimitError, ParsedMail, silence_reason
from mailjudge.inbound.spool import parse_stored
from mailjudge.masking import mask_mail, mask_text
from mailjudge.models import Game, InboundMessage, utcnow
from mailjudge.outbound.draft import MailDraft, Outgoing
from mailjudge.outbound.message import Attachment, build_message
from mailjudge.outbound.outbox import (
    PAUSED_SUBJECT,
    answers_resume_at,
    enqueue,
    enqueue_draft,
    may_reply,
    pause_notice_sent,
)
from mailjudge.render import render
from mailjudge.service import guard
from mailjudge.service.bounces import Failure, take_bounce
from mailjudge.service.errors import ServiceError
from mailjudge.settings import Settings
from mailjudge.variants.democratic.country_lists import list_target, post

log = logging.getLogger(__name__)


def prepare(row: InboundMessage, settings: Settings) -> ParsedMail | MailLimitError:
    """Parse a stored mail: pure work, done before the transaction that handles it."""
    try:
        return parse_stored(row, settings.inbound)
    except MailLimitError as err:
        return err


def handle(
    row: InboundMessage,
    settings: Settings,
    now: datetime | None = None,
    prepared: ParsedMail | MailLimitError | None = None,
) -> None:
    """Handle one stored mail, and log one line saying what came of it."""
    started = time.perf_counter()
    outcome = _handle(row, settings, now or utcnow(), prepared)
    # The stored copy loses its passwords in the same transaction as the mail's effects:
    # if handling fails, the mail is retried with them.
    masked = mask_mail(row.raw)
    if masked != row.raw:
        update_by_id_compiled(InboundMessage, row.id, {"raw": masked})
    log.info("mail %s from %s: %s, %.0f ms", row.message_id, row.envelope_from or "<>",
             outcome, (time.perf_counter() - started) * 1000)  # fmt: skip


def _handle(
    row: InboundMessage,
    settings: Settings,
    now: datetime,
    prepared: ParsedMail | MailLimitError | None,
) -> str:
    judge = settings.judge.address
    try:
        parsed = prepared if prepared is not None else prepare(row, settings)
        if isinstance(parsed, MailLimitError):
            raise parsed
        mail = parsed
    except MailLimitError as err:
        if silence_reason(err.mail, judge) is None and may_reply(
            err.mail.reply_to, settings.outbound, now
        ):
            body = render("limit_error.txt.j2", reason=str(err), judge=judge)
            _queue_reply(err.mail, body, row, settings, now, None)
        return f"refused: {err}"
    addresses = [*row.envelope_to.split(), *mail.delivered_to, *mail.to]
    target = next((found for a in addresses if (found := bounced_outbox(a, judge))), None)
    if target is not None:
        reported = [Failure(f.recipient, f.status, f.diagnostic) for f in failures(row.raw)]
        what, notices = take_bounce(target, reported)
        for item in notices:
            queue_outgoing(item, settings, now)
        return what
    reason = silence_reason(mail, judge)
    if reason is not None:
        return f"not answered: {reason}"
    listed = _list_target(row, mail, judge)
    if listed is not None:
        _list_post(row, mail, settings, now, *listed)
        return f"a post to the list of {listed[1]} in {listed[0].name}"
    detail = _game_from_address(row, mail, judge)
    press = press_reply_target(detail) if detail else None
    ctx = execute(
        without_own_words(mail, judge), mail.sender or mail.reply_to, judge, now,
        press[0] if press else detail, press[1] if press else None,
        settings.security.max_commands, notes=reading_notes(mail),
    )  # fmt: skip
    answer_to = _answer_address(mail)
    if answer_to != (mail.sender or mail.reply_to) and ctx.seat is None:
        for answer in ctx.answers:  # a third address never reads an outsider's words
            answer.echo = answer.echo.split()[0] if answer.echo else answer.echo
    outgoing = _bounded(ctx.outgoing, settings.security.max_mails_out)
    errors = sum(1 for answer in ctx.answers if not answer.ok)
    summary = f"{len(ctx.answers)} commands, {errors} with errors, {len(outgoing)} mails out"
    if not (ctx.seat is not None or _may_mail(answer_to, now, settings)):
        summary += f", answer not sent: {answer_to} has had its hour's mail"
    elif may_reply(answer_to, settings.outbound, now):
        body = _within_bytes(reply_text(ctx), settings.security.max_reply_bytes)
        _queue_reply(mail, body, row, settings, now, ctx, answer_to)
        summary += ", answered"
    else:
        log.warning("reply to %s held back: too many replies lately", answer_to)
        _tell_answers_paused(mail, row, settings, now)
        summary += ", answer held back (reply limit)"
    for item in outgoing:
        if item.bcc or len(item.to) != 1 or _may_mail(item.to[0], now, settings):
            queue_outgoing(item, settings, now)
    return summary


def _answer_address(mail: ParsedMail) -> str:
    """Where the answer goes: the Reply-To only when its address signed on before, or it
    shares the sender's domain and the mail carries no password; else the From. A forged
    Reply-To cannot aim the judge at a stranger."""
    sender = mail.sender or mail.reply_to
    if mail.reply_to == sender or guard.is_proven(mail.reply_to):
        return mail.reply_to
    same_domain = mail.reply_to.rpartition("@")[2] == sender.rpartition("@")[2]
    return mail.reply_to if same_domain and mask_text(mail.text) == mail.text else sender


def _may_mail(address: str, now: datetime, settings: Settings) -> bool:
    """Mail to an address that never signed on is capped per hour (security)."""
    cap = settings.security.unproven_per_hour
    return guard.is_proven(address) or guard.may_mail_unproven(address, now, cap)


# Mail a phase's processing sends is the game's, not the asker's: never cut.
_ALWAYS_SENT = ("results", "list", "digest")


def _bounded(items: list[Outgoing], limit: int) -> list[Outgoing]:
    """At most `limit` mails caused by one mail to addresses outside the game's seats,
    besides what processing sends. A mail to a seat's own person (it has a role) is the
    game's business with someone who joined it: a Democratic START tells every citizen."""
    kept: list[Outgoing] = []
    counted = 0
    for item in items:
        if item.kind not in _ALWAYS_SENT and not item.role:
            counted += 1
            if counted > limit:
                continue
        kept.append(item)
    if counted > limit:
        log.warning("%s mails caused by one mail were not sent (security.max_mails_out)",
                    counted - limit)  # fmt: skip
    return kept


def _within_bytes(body: str, limit: int) -> str:
    data = body.encode("utf-8")
    if len(data) <= limit:
        return body
    cut = data[:limit].decode("utf-8", "ignore").rpartition("\n")[0]
    return cut + (
        f"\n\n[The rest of this answer is cut: it came to {len(data)} bytes, and "
        f"the judge sends at most {limit}. Send fewer commands in one mail.]\n"
    )


def _list_target(row: InboundMessage, mail: ParsedMail, judge: str) -> tuple[Game, str] | None:
    for address in (*row.envelope_to.split(), *mail.to):
        found = list_target(address, judge)
        if found is not None:
            return found
    return None


def _list_post(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: Game, power: str
) -> None:
    """A post to a country's list: out to its citizens, and a short answer to the sender."""
    try:
        seat, item = post(game, power, mail.text, mail.subject, mail.sender)
        queue_outgoing(item, settings, now)
        answer = f"ok: your post went to the list of {power} in {game.name}.\n"
        if seat.person is not None and seat.person.email != mail.reply_to.lower():
            answer += f"(Posted as {seat.name}.)\n"
    except ServiceError as err:
        answer = f"ERROR: nothing was posted to the list of {power}: {err}\n"
    if may_reply(mail.reply_to, settings.outbound, now):
        _queue_reply(mail, answer, row, settings, now, None)


def _game_from_address(row: InboundMessage, mail: ParsedMail, judge: str) -> str | None:
    """``judge+GAME@...`` stands in for the game name in SIGNON."""
    for address in (*row.envelope_to.split(), *mail.delivered_to, *mail.to):
        detail = judge_detail(address, judge)
        if detail:
            return detail.lower()
    return None


def _queue_reply(
    mail: ParsedMail,
    body: str,
    row: InboundMessage,
    settings: Settings,
    now: datetime,
    ctx: Context | None,
    to: str | None = None,
) -> None:
    subject = (
        mail.subject if mail.subject.lower().startswith("re:") else f"Re: {mail.subject}".strip()
    )
    game = ctx.game if ctx is not None else None
    seat = ctx.seat if ctx is not None else None
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(to or mail.reply_to,),
        subject=subject if subject != "Re:" else "Re: your commands",
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        game=game.name if game is not None else None,
        phase=game.phase if game is not None else None,
        role=f"{seat.role} {seat.powers}".strip() if seat is not None else None,
        date=now.isoformat(),
    )
    enqueue_draft(draft, game=game, inbound=row)


def _tell_answers_paused(
    mail: ParsedMail, row: InboundMessage, settings: Settings, now: datetime
) -> None:
    """One notice a window when answers are held back: the commands were carried out,
    and the answers start again at a time the person can read."""
    if pause_notice_sent(mail.reply_to, settings.outbound, now):
        return
    body = render(
        "answers_paused.txt.j2",
        limit=settings.outbound.reply_limit,
        minutes=settings.outbound.reply_window_minutes,
        until=answers_resume_at(mail.reply_to, settings.outbound, now).astimezone(
            ZoneInfo(settings.judge.timezone)
        ),
        judge=settings.judge.address,
    )
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(mail.reply_to,),
        subject=PAUSED_SUBJECT,
        text=body,
        in_reply_to=mail.message_id,
        references=tuple(mail.references),
        auto_submitted="auto-replied",
        date=now.isoformat(),
    )
    enqueue_draft(draft)  # not linked to the mail: it must not count toward the limit


def queue_outgoing(item: Outgoing, settings: Settings, now: datetime) -> None:
    if not item.attachments and not item.digest:
        draft = MailDraft(
            sender=settings.judge.address,
            sender_name=settings.judge.name,
            to=tuple(item.to),
            subject=item.subject,
            text=item.body,
            auto_submitted="auto-generated",
            html=item.html,
            game=item.game,
            phase=item.phase,
            role=item.role,
            date=now.isoformat(),
            list_id=item.list_id or None,
            list_post=item.list_post if item.list_id else None,
            reply_to=item.reply_to or None,
            board=item.board,
        )
        enqueue_draft(draft, game=_game_row(item.game), envelope=item.bcc)
        return
    message = build_message(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=item.to,
        subject=item.subject,
        text=item.body,
        auto_submitted="auto-generated",
        html=item.html,
        attachments=[Attachment(name, data, kind) for name, kind, data in item.attachments],
        game=item.game,
        phase=item.phase,
        role=item.role,
        date=now,
        list_id=item.list_id,
        list_post=item.list_post,
        reply_to=item.reply_to,
        digest=item.digest,
    )
    enqueue(message, game=_game_row(item.game), to_addrs=item.bcc or None)


def _game_row(name: str | None) -> Game | None:
    return Game.get_or_none(Game.name == name) if name else None

"""One stored mail, start to end: parse it, decide whether to answer at all, run its
commands, and queue the reply and every mail the commands cause.

It runs inside the spool's transaction for that mail (spool.process_batch), so either all of
its effects are stored, the reply included, or none are and the mail is shunted.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge import db
from mailjudge.addresses import bounced_outbox, judge_detail, press_reply_target
from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.game import guard
from mailjudge.game.bounces import Failure, take_bounce
from mailjudge.game.errors import BadSecret, ServiceError
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
    picture_bytes,
    sent_to,
)
from mailjudge.render import render
from mailjudge.render.deadline import time_for_address
from mailjudge.render.outgoing import answer_subject
from mailjudge.settings import Settings
from mailjudge.variants.democratic.country_lists import ListThread, list_target, post

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
    outcome = _handle(row, settings, now or utcnow(), work.parsed)
    # The stored copy loses its passwords in the same transaction as the mail's effects:
    # if handling fails, the mail is retried with them.
    if work.masked != row.raw:
        InboundMessage.update(raw=work.masked).where(InboundMessage.id == row.id).execute()
        db.secrets_overwritten()
    log.info("mail %s from %s: %s, %.0f ms", row.message_id, row.envelope_from or "<>",
             outcome, (time.perf_counter() - started) * 1000)  # fmt: skip


def _handle(
    row: InboundMessage,
    settings: Settings,
    now: datetime,
    parsed: ParsedMail | MailLimitError,
) -> str:
    judge = settings.judge.address
    try:
        if isinstance(parsed, MailLimitError):
            raise parsed
        mail = parsed
    except MailLimitError as err:
        answer_to = _answer_address(err.mail)
        body = render("limit_error.txt.j2", reason=str(err), judge=judge)
        if silence_reason(err.mail, judge) is None and _may_answer(
            err.mail, answer_to, len(body), False, settings, now
        ):
            _queue_reply(err.mail, body, row, settings, now, None, answer_to)
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
    _note_round_trip(mail, now)
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
    answer_to = _answer_address(mail, ctx)
    if answer_to != (mail.sender or mail.reply_to) and ctx.seat is None:
        for answer in ctx.answers:  # a third address never reads an outsider's words
            answer.echo = answer.echo.split()[0] if answer.echo else answer.echo
    outgoing = _bounded(ctx.outgoing, settings.security.max_mails_out)
    errors = sum(1 for answer in ctx.answers if not answer.ok)
    summary = f"{len(ctx.answers)} commands, {errors} with errors, {len(outgoing)} mails out"
    body = _within_bytes(reply_text(ctx), settings.security.max_reply_bytes)
    signed_on = ctx.seat is not None and _is_own(answer_to, mail, ctx)
    if ctx.unanswered:
        summary += ", not answered: a wrong password after too many"
    elif ctx.seat is None and _repeated(mail, now, settings):
        summary += f", not answered: the same text came from {mail.sender} too often this hour"
    elif not may_reply(answer_to, settings.outbound, now):
        log.warning("reply to %s held back: too many replies lately", answer_to)
        _tell_answers_paused(mail, row, settings, now, answer_to)
        summary += ", answer held back (reply limit)"
    elif not _may_answer(mail, answer_to, len(body), signed_on, settings, now):
        summary += f", answer not sent: {answer_to} has had its hour's mail"
    else:
        _queue_reply(mail, body, row, settings, now, ctx, answer_to)
        summary += ", answered"
    sender = (mail.sender or mail.reply_to).lower()
    for item in outgoing:
        if item.bcc or len(item.to) != 1 or item.kind in _ALWAYS_SENT:
            queue_outgoing(item, settings, now)
            continue
        to = item.to[0].lower()
        mine = to == sender or (ctx.seat is not None and _is_own(to, mail, ctx))
        ledger = "own" if mine else "seat" if item.role else "others"
        # A password proves nothing about an address: pictures and the like go to one
        # that never answered the judge under the small caps, signed on or not.
        proven = ledger == "seat" or guard.is_proven(to)
        if guard.may_mail(to, _size(item), now, proven, ledger, settings.security):
            queue_outgoing(item, settings, now)
        else:
            summary += f", a mail to {to} not sent (its hour's cap)"
    return summary


def _note_round_trip(mail: ParsedMail, now: datetime) -> None:
    """A mail that names (In-Reply-To, References) a mail the judge sent to its sender
    proves the sender reads the judge's mail there: a forger cannot know those
    Message-IDs. Only then is the address proven (service.guard.is_proven)."""
    sender = mail.sender.lower()
    named = [i for i in (mail.in_reply_to, *mail.references) if i][:10]
    if not sender or not named or guard.is_proven(sender):
        return
    if sent_to(named, sender):
        guard.mark_proven(sender, now)


def _is_own(address: str, mail: ParsedMail, ctx: Context) -> bool:
    """Whether `address` is the mail's sender or the signed-on seat's own address."""
    address = address.lower()
    if address == (mail.sender or mail.reply_to).lower():
        return True
    person = ctx.seat.person if ctx.seat is not None else None
    return person is not None and person.email == address


def _may_answer(
    mail: ParsedMail, to: str, size: int, signed_on: bool, settings: Settings, now: datetime
) -> bool:
    """Whether an answer of `size` bytes may go to `to` within its hour's caps: the
    sender's own (generous when it signed on to a seat or proved its address), or, for an
    answer caused by someone else's mail (to a proven Reply-To), the small caps of
    unasked-for mail, kept apart so that they never spend the address's own."""
    own = signed_on or to.lower() == (mail.sender or mail.reply_to).lower()
    proven = signed_on or (own and guard.is_proven(to))
    return guard.may_mail(to, size, now, proven, "own" if own else "others", settings.security)


def _repeated(mail: ParsedMail, now: datetime, settings: Settings) -> bool:
    """The same text from the same address more than `same_mail_answers` times this
    hour: an auto-responder that sets no auto-reply header. It is not answered. (Asked
    only of mail that signed on to no seat: a player may send the same orders again.)"""
    words = " ".join(mail.text.split()).lower().encode("utf-8")
    fingerprint = hashlib.sha256(words).hexdigest()[:16]
    return guard.repeats(mail.sender or mail.reply_to, fingerprint, now) > (
        settings.security.same_mail_answers
    )


def _size(item: Outgoing) -> int:
    """About how many bytes a mail comes to (its picture included)."""
    size = len(item.body) + len(item.html or "") + sum(len(a[2]) for a in item.attachments)
    if item.board is not None:
        size += picture_bytes(item.board)
    return size + 1024  # headers


def _answer_address(mail: ParsedMail, ctx: Context | None = None) -> str:
    """Where the answer goes: the Reply-To only when that address proved by a round trip
    that it reads the judge's mail (service.guard.is_proven) and the mail's SIGNON, if
    any, did not fail; else the From. A forged Reply-To cannot aim the judge at a
    stranger, nor collect a guesser's answers. When the seat was under guessing, the
    answer to its right password goes to the seat's own address."""
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
    """A post to a country's list: out to its citizens, and a short answer to the sender
    (to its Reply-To only as any answer: service.guard.is_proven), within its caps."""
    try:
        thread = ListThread(mail.message_id, mail.in_reply_to, mail.references)
        seat, item = post(game, power, mail.text, mail.subject, mail.sender, thread)
        queue_outgoing(item, settings, now)
        answer = f"ok: your post went to the list of {power} in {game.name}.\n"
        if seat.person is not None and seat.person.email != mail.reply_to.lower():
            answer += f"(Posted as {seat.name}.)\n"
    except BadSecret as err:
        if not err.answered:
            return
        answer = f"ERROR: nothing was posted to the list of {power}: {err}\n"
    except ServiceError as err:
        answer = f"ERROR: nothing was posted to the list of {power}: {err}\n"
    target = _answer_address(mail)
    if may_reply(target, settings.outbound, now) and _may_answer(
        mail, target, len(answer), False, settings, now
    ):
        _queue_reply(mail, answer, row, settings, now, None, target)


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
    game = ctx.game if ctx is not None else None
    seat = ctx.seat if ctx is not None else None
    draft = MailDraft(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=(to or mail.reply_to,),
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
    enqueue_draft(draft, game=game, inbound=row)


def _tell_answers_paused(
    mail: ParsedMail, row: InboundMessage, settings: Settings, now: datetime, to: str
) -> None:
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
            board_svg=item.board_svg,
            in_reply_to=item.in_reply_to,
            references=item.references,
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

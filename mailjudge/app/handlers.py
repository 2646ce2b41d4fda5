"""One handler for each kind of mail the judge answers, which app/pipeline.py picks: a
bounce of the judge's own mail, a post to a Democratic country's list, a Reply to press,
and mail of commands. Each queues what it causes and the answer (app/replies.py), and
returns one line for the log saying what came of the mail."""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from mailjudge.app import replies
from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.game import guard
from mailjudge.game.bounces import Failure, take_bounce
from mailjudge.game.errors import BadSecret, ServiceError
from mailjudge.inbound.auth_results import sender_proven
from mailjudge.inbound.bounces import failures
from mailjudge.inbound.own_words import reading_notes, without_own_words
from mailjudge.inbound.parse import ParsedMail
from mailjudge.models import Game, InboundMessage
from mailjudge.outbound.draft import Outgoing
from mailjudge.outbound.outbox import may_reply, picture_bytes
from mailjudge.outbound.queue import queue_all, queue_outgoing
from mailjudge.settings import Settings
from mailjudge.variants import list_target, variant_of
from mailjudge.variants.base import ListThread

log = logging.getLogger(__name__)


def handle_bounce(
    row: InboundMessage, target: tuple[int, str], settings: Settings, now: datetime
) -> str:
    """A bounce to the judge's VERP address `target`: the failing seats are marked and
    their games' masters told. A bounce is never answered."""
    reported = [Failure(f.recipient, f.status, f.diagnostic) for f in failures(row.raw)]
    what, notices = take_bounce(target, reported)
    queue_all(notices, settings, now)
    return what


def list_post_target(row: InboundMessage, mail: ParsedMail, judge: str) -> tuple[Game, str] | None:
    """(game, country) when the mail went to one of the judge's country lists."""
    for address in (*row.envelope_to.split(), *mail.to):
        found = list_target(address, judge)
        if found is not None:
            return found
    return None


def handle_list_post(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: Game, power: str
) -> str:
    """A post to a country's list: out to its citizens, and a short answer to the sender
    (to its Reply-To only as any answer: game.guard.is_proven), within its caps."""
    done = f"a post to the list of {power} in {game.name}"
    try:
        thread = ListThread(mail.message_id, mail.in_reply_to, mail.references)
        seat, item = variant_of(game).post_to_list(
            game, power, mail.text, mail.subject, mail.sender, thread
        )
        queue_outgoing(item, settings, now)
        answer = f"ok: your post went to the list of {power} in {game.name}.\n"
        if seat.person is not None and seat.person.email != mail.reply_to.lower():
            answer += f"(Posted as {seat.name}.)\n"
    except BadSecret as err:
        if not err.answered:
            return done
        answer = f"ERROR: nothing was posted to the list of {power}: {err}\n"
    except ServiceError as err:
        answer = f"ERROR: nothing was posted to the list of {power}: {err}\n"
    target = replies.answer_address(mail)
    if may_reply(target, settings.outbound, now) and replies.may_answer(
        mail, target, len(answer), False, settings, now
    ):
        replies.queue_reply(mail, answer, row, settings, now, target)
    return done


def handle_press_reply(
    row: InboundMessage,
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: str,
    writers: list[str],
) -> str:
    """A Reply to press (sent to judge+GAME-press-POWERS@): its text is press back to the
    powers that wrote, its SIGNON and any commands run as in any mail."""
    ctx = _run_commands(mail, settings, now, game, writers)
    return _answer_and_send(row, mail, settings, now, ctx)


def handle_commands(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: str | None
) -> str:
    """A mail of commands; `game` stands in for the game's name in SIGNON when the mail
    went to judge+GAME@."""
    ctx = _run_commands(mail, settings, now, game, None)
    return _answer_and_send(row, mail, settings, now, ctx)


def _run_commands(
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: str | None,
    press_to: list[str] | None,
) -> Context:
    judge = settings.judge.address
    proven = sender_proven(mail.auth_results, settings.security.trusted_authserv_id, mail.sender)
    return execute(
        without_own_words(mail, judge), mail.sender or mail.reply_to, judge, now, game,
        press_to, settings.security.max_commands, notes=reading_notes(mail),
        sender_proven=proven,
    )  # fmt: skip


def _answer_and_send(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, ctx: Context
) -> str:
    """The answer to a mail whose commands ran, within its caps, and the mail they caused."""
    answer_to = replies.answer_address(mail, ctx)
    if answer_to != (mail.sender or mail.reply_to) and ctx.seat is None:
        for answer in ctx.answers:  # a third address never reads an outsider's words
            answer.echo = answer.echo.split()[0] if answer.echo else answer.echo
    outgoing = _bounded(ctx.outgoing, settings.security.max_mails_out)
    errors = sum(1 for answer in ctx.answers if not answer.ok)
    summary = f"{len(ctx.answers)} commands, {errors} with errors, {len(outgoing)} mails out"
    body = replies.within_bytes(reply_text(ctx), settings.security.max_reply_bytes)
    signed_on = ctx.seat is not None and _is_own(answer_to, mail, ctx)
    if ctx.unanswered:
        summary += ", not answered: a wrong password after too many"
    elif ctx.seat is None and _repeated(mail, now, settings):
        summary += f", not answered: the same text came from {mail.sender} too often this hour"
    elif not may_reply(answer_to, settings.outbound, now):
        log.warning("reply to %s held back: too many replies lately", answer_to)
        replies.tell_answers_paused(mail, settings, now, answer_to)
        summary += ", answer held back (reply limit)"
    elif not replies.may_answer(mail, answer_to, len(body), signed_on, settings, now):
        summary += f", answer not sent: {answer_to} has had its hour's mail"
    else:
        replies.queue_reply(mail, body, row, settings, now, answer_to, ctx.game, ctx.seat)
        summary += ", answered"
    return summary + _send_caused(outgoing, mail, ctx, settings, now)


def _send_caused(
    outgoing: list[Outgoing], mail: ParsedMail, ctx: Context, settings: Settings, now: datetime
) -> str:
    """Queue the mail the commands caused, each within its address's hour's caps; what
    was held back, for the log line."""
    held = ""
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
            held += f", a mail to {to} not sent (its hour's cap)"
    return held


def _is_own(address: str, mail: ParsedMail, ctx: Context) -> bool:
    """Whether `address` is the mail's sender or the signed-on seat's own address."""
    address = address.lower()
    if address == (mail.sender or mail.reply_to).lower():
        return True
    person = ctx.seat.person if ctx.seat is not None else None
    return person is not None and person.email == address


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
    size += len(item.calendar or "")
    if item.board is not None:
        size += picture_bytes(item.board)
    return size + 1024  # headers


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

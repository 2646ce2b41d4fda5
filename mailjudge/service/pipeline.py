"""One stored mail, start to end: parse it, decide whether to answer at all, run its
commands, and queue the reply and every mail the commands cause.

It runs inside the spool's transaction for that mail (spool.process_one), so either all of
its effects are stored, the reply included, or none are and the mail is shunted.
"""

from __future__ import annotations

import logging
from datetime import datetime

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.inbound.addresses import judge_detail
from mailjudge.inbound.parse import MailLimitError, ParsedMail, silence_reason
from mailjudge.inbound.spool import parse_stored
from mailjudge.models import Game, InboundMessage, utcnow
from mailjudge.outbound.message import Attachment, build_message
from mailjudge.outbound.outbox import enqueue, enqueue_draft, may_reply
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing
from mailjudge.settings import Settings

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
    now = now or utcnow()
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
        return
    reason = silence_reason(mail, judge)
    if reason is not None:
        log.info("mail %s not answered: %s", row.message_id, reason)
        return
    target = _list_target(row, mail, judge)
    if target is not None:
        _list_post(row, mail, settings, now, *target)
        return
    ctx = execute(
        mail.text, mail.sender or mail.reply_to, judge, now, _game_from_address(row, mail, judge)
    )
    if may_reply(mail.reply_to, settings.outbound, now):
        _queue_reply(mail, reply_text(ctx), row, settings, now, ctx)
    else:
        log.warning("reply to %s held back: too many replies lately", mail.reply_to)
    for item in ctx.outgoing:
        queue_outgoing(item, settings, now)


def _list_target(row: InboundMessage, mail: ParsedMail, judge: str) -> tuple[Game, str] | None:
    from mailjudge.service.lists import list_target

    for address in (*row.envelope_to.split(), *mail.to):
        found = list_target(address, judge)
        if found is not None:
            return found
    return None


def _list_post(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: Game, power: str
) -> None:
    """A post to a country's list: out to its citizens, and a short answer to the sender."""
    from mailjudge.service.errors import ServiceError
    from mailjudge.service.lists import post

    try:
        seat, item = post(game, power, mail.text)
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
) -> None:
    subject = (
        mail.subject if mail.subject.lower().startswith("re:") else f"Re: {mail.subject}".strip()
    )
    game = ctx.game if ctx is not None else None
    seat = ctx.seat if ctx is not None else None
    draft = {
        "sender": settings.judge.address,
        "to": [mail.reply_to],
        "subject": subject if subject != "Re:" else "Re: your commands",
        "text": body,
        "in_reply_to": mail.message_id,
        "references": list(mail.references),
        "auto_submitted": "auto-replied",
        "game": game.name if game is not None else None,
        "phase": game.phase if game is not None else None,
        "role": f"{seat.role} {seat.powers}".strip() if seat is not None else None,
        "date": now.isoformat(),
    }
    enqueue_draft(draft, game=game, inbound=row)


def queue_outgoing(item: Outgoing, settings: Settings, now: datetime) -> None:
    if not item.attachments and not item.digest:
        draft: dict[str, object] = {
            "sender": settings.judge.address,
            "to": item.to,
            "subject": item.subject,
            "text": item.body,
            "auto_submitted": "auto-generated",
            "html": item.html,
            "game": item.game,
            "phase": item.phase,
            "role": item.role,
            "date": now.isoformat(),
        }
        if item.list_id:
            draft.update(list_id=item.list_id, list_post=item.list_post)
        if item.board is not None:
            draft["board"] = item.board
        enqueue_draft(draft, game=_game_row(item.game), envelope=item.bcc)
        return
    message = build_message(
        sender=settings.judge.address,
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
        digest=item.digest,
    )
    enqueue(message, game=_game_row(item.game), to_addrs=item.bcc or None)


def _game_row(name: str | None) -> Game | None:
    return Game.get_or_none(Game.name == name) if name else None

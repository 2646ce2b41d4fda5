"""Queueing the mail the judge sends besides its answers (results, notices, press, a
list's copies, the clock's mail) into the outbox, in the caller's transaction. The one
way in for every such mail: the pipeline queues what a mail's commands cause, and the
clock what its tick causes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from mailjudge.config.settings import Settings
from mailjudge.outbound.draft import MailDraft, Outgoing
from mailjudge.outbound.invitation import add_invitation, calendar_part
from mailjudge.outbound.message import Attachment, build_message
from mailjudge.outbound.outbox import enqueue, enqueue_draft
from mailjudge.store.models import Game


def queue_all(items: Iterable[Outgoing], settings: Settings, now: datetime) -> None:
    for item in items:
        queue_outgoing(item, settings, now)


def queue_outgoing(item: Outgoing, settings: Settings, now: datetime) -> None:
    """One mail into the outbox, linked to its game: as a draft, which the sender renders,
    unless it carries attachments or a digest, which are built into a message now. A
    calendar invitation goes in as its last alternative, unless the operator turned
    invitations off (outbound.calendar_invitations)."""
    calendar = _calendar_text(item) if settings.outbound.calendar_invitations else None
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
            calendar=calendar,
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
    if calendar:
        add_invitation(message, calendar_part(calendar.encode("utf-8")))
    enqueue(message, game=_game_row(item.game), to_addrs=item.bcc or None)


def _calendar_text(item: Outgoing) -> str | None:
    """The invitation as the stored draft keeps it: text (JSON has no bytes)."""
    if isinstance(item.calendar, bytes):
        return item.calendar.decode("utf-8")
    return item.calendar or None


def _game_row(name: str | None) -> Game | None:
    return Game.get_or_none(Game.name == name) if name else None

"""What the outbox says of the mail an address got: the answers to its own mail within the
reply limit's window (loop safety), whether it was told that its answers are paused,
whether a mail it answers was the judge's (a round trip), and what a board picture weighs
in a mail (the caps)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import cast

from peewee import fn

from mailjudge.config.settings import OutboundSettings
from mailjudge.outbound.mailbox import mailbox
from mailjudge.store.models import BoardPicture, InboundMessage, Outbox, utcnow


def _own_answers(address: str, since: datetime) -> list[datetime]:
    """When answers were queued since `since` to `address`'s mailbox for mail it sent
    itself (its envelope sender), oldest first: mail from others with a Reply-To of
    `address` never spends its limit, and the plus-address variants of one mailbox
    (box+1@, box+2@) spend one limit (outbound/mailbox.py)."""
    box = mailbox(address)
    local, _, domain = box.partition("@")
    query = (
        Outbox.select(Outbox.to_addrs, Outbox.created_at, InboundMessage.envelope_from)
        .join(InboundMessage, on=(Outbox.inbound == InboundMessage.id))
        .where(
            (Outbox.created_at >= since)
            & Outbox.to_addrs.contains(local)
            & Outbox.to_addrs.contains("@" + domain)
        )
        .order_by(Outbox.created_at)
        .tuples()
    )
    rows = cast(Iterable[tuple[str, datetime, str | None]], query)
    # contains() is a substring match: keep only whole addresses of the mailbox.
    return [
        created for to_addrs, created, envelope in rows
        if mailbox(envelope or "") == box and any(mailbox(a) == box for a in to_addrs.split())
    ]  # fmt: skip


def replies_sent(address: str, within: timedelta, now: datetime | None = None) -> int:
    """How many answers went to `address`'s mailbox lately for mail it sent itself."""
    return len(_own_answers(address, (now or utcnow()) - within))


def sent_to(message_ids: Sequence[str], address: str) -> bool:
    """Whether the judge sent `address` one of the mails `message_ids` name: an answer
    naming one proves that the address reads the judge's mail (a round trip)."""
    query = Outbox.select(Outbox.to_addrs).where(Outbox.message_id.in_(list(message_ids)))
    return any(address.lower() in row.to_addrs.lower().split() for row in query)


def picture_bytes(picture_id: int) -> int:
    """The size of a stored board picture as a mail carries it (PNG and SVG)."""
    row = (
        BoardPicture.select(
            fn.LENGTH(BoardPicture.png).coerce(False), fn.LENGTH(BoardPicture.svg).coerce(False)
        )
        .where(BoardPicture.id == picture_id)
        .tuples()
        .first()
    )
    if row is None:
        return 0
    png, svg = row
    return (int(png or 0) + int(svg or 0)) * 137 // 100  # base64 and its line ends


PAUSED_SUBJECT = "answers paused"


def answers_resume_at(address: str, settings: OutboundSettings, now: datetime) -> datetime:
    """When the reply limit lets answers to `address` go out again: the oldest answer in
    the window leaves it then."""
    window = timedelta(minutes=settings.reply_window_minutes)
    answers = _own_answers(address, now - window)
    return (answers[0] if answers else now) + window


def pause_notice_sent(address: str, settings: OutboundSettings, now: datetime) -> bool:
    """Whether `address` was already told, within the window, that answers are paused."""
    window = timedelta(minutes=settings.reply_window_minutes)
    box = mailbox(address)
    query = Outbox.select(Outbox.to_addrs).where(
        (Outbox.subject == PAUSED_SUBJECT) & (Outbox.created_at >= now - window)
        & Outbox.to_addrs.contains("@" + box.partition("@")[2])
    )  # fmt: skip
    return any(mailbox(a) == box for row in query for a in row.to_addrs.split())


def may_reply(address: str, settings: OutboundSettings, now: datetime | None = None) -> bool:
    """False once `address` has had reply_limit answers within the window (loop safety)."""
    if settings.reply_limit == 0:
        return True
    window = timedelta(minutes=settings.reply_window_minutes)
    return replies_sent(address, window, now) < settings.reply_limit

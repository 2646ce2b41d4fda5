"""What became of the judge's mail to a player, and whose mail did not arrive this phase.

The outbox keeps each mail's fate: sent with the time the relay took it, deferred with the
relay's last error and the next try, held for bouncing, failed, or come back with the far
server's words (game.bounces). STATUS shows a player the last few of their
own mails; the clock excuses a seat whose mail this phase did not arrive from being late
(see ``undelivered``), so nobody is put in civil disorder for mail they never had.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from peewee import fn

from mailjudge.config.settings import current_settings
from mailjudge.game.bounces import BOUNCED
from mailjudge.game.schedule import phase_began, players_to_order_by_clock, timing_of
from mailjudge.store.models import HELD, Confirmation, Game, Outbox, Seat, utcnow

# The least grace a seat whose mail did not arrive gets, for games whose TIMING has none.
DELIVERY_GRACE = timedelta(hours=24)
# How many of the judge's own mails this phase are looked at for a seat.
_LOOKED_AT = 20


@dataclass(frozen=True)
class MailFate:
    """One mail the judge sent an address, and what became of it, in words."""

    subject: str
    queued_at: datetime
    outcome: str


def _stamp(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def fate_of(row: Outbox) -> str:
    """What became of outbox ``row``, as a player reads it."""
    if row.last_error.startswith(BOUNCED):
        return row.last_error
    if row.state == "sent" and row.sent_at is not None:
        relay = current_settings().outbound.host
        said = f" ({row.relay_reply})" if row.relay_reply else ""
        refused = f" ({row.last_error})" if row.last_error else ""
        return f"accepted by {relay} at {_stamp(row.sent_at)}{said}{refused}"
    if row.state == "failed":
        return f"not delivered: {row.last_error}"
    if row.last_error.startswith(HELD):
        return "held: " + row.last_error.removeprefix(HELD)
    if row.attempts:
        return (
            f"deferred, {row.attempts} attempt(s) failed ({row.last_error}); "
            f"retrying at {_stamp(row.next_attempt_at)}"
        )
    return "waiting to be sent"


def recent_mail(game: Game, address: str, count: int = 4) -> list[MailFate]:
    """The last ``count`` mails of ``game`` the judge sent ``address`` alone (never a mail
    to anyone else, nor one of several recipients), newest first, with their fates."""
    rows = list(
        Outbox.select()
        .where((Outbox.game == game) & (fn.LOWER(Outbox.to_addrs) == address.lower()))
        .order_by(Outbox.created_at.desc(), Outbox.id.desc())
        .limit(count)
    )
    return [MailFate(r.subject, r.created_at, fate_of(r)) for r in rows]


def _this_phase(game: Game, row: Outbox, began: datetime | None) -> bool:
    """A mail of the game's current phase: queued since it began (the results or start
    mail that opened it is queued as it begins), or drafted for it."""
    if began is not None and row.created_at >= began:
        return True
    return bool((row.draft or {}).get("phase") == game.phase)


def undelivered(
    game: Game, seat: Seat, began: datetime | None, warn_at: datetime, now: datetime | None = None
) -> str | None:
    """Why the seat's player may not have had the judge's mail this phase, or None: the
    judge's own mail to them this phase (the mail that opened it, reminders; not answers
    to their mail) bounced, is held for bouncing, failed, or was still deferred at
    ``warn_at`` (the first reminder); or their SET ADDRESS waits for its CONFIRM."""
    now = now or utcnow()
    if seat.person is None:
        return None
    address = seat.person.email
    hours = current_settings().security.confirm_hours
    pending = Confirmation.get_or_none(
        (Confirmation.seat == seat)
        & (Confirmation.kind == "address")
        & (Confirmation.created_at > now - timedelta(hours=hours))
    )
    if pending is not None:
        return f"their new address {pending.address} waits for its CONFIRM"
    rows = [
        row
        for row in Outbox.select()
        .where(
            (Outbox.game == game)
            & (fn.LOWER(Outbox.to_addrs) == address)  # kept as written (addresses.kept_case)
            & Outbox.inbound.is_null()
        )
        .order_by(Outbox.id.desc())
        .limit(_LOOKED_AT)
        if _this_phase(game, row, began) and row.created_at <= now
    ]
    for row in rows:
        why = _not_arrived(row, warn_at)
        if why:
            return f'the judge\'s mail "{row.subject}" to {address} {why}'
    return None


def _not_arrived(row: Outbox, warn_at: datetime) -> str | None:
    if row.state == "failed" or row.last_error.startswith((HELD, BOUNCED)):
        return fate_of(row)
    late_at_warn = row.sent_at is None or row.sent_at > warn_at
    if row.attempts and row.created_at <= warn_at and late_at_warn and row.state != "sent":
        return "was still " + fate_of(row)
    deferred = row.attempts > 1
    if deferred and row.state == "sent" and row.created_at <= warn_at < (row.sent_at or warn_at):
        return f"was still deferred at the first reminder ({_stamp(warn_at)})"
    return None


def excused(game: Game, late: list[str], now: datetime | None = None) -> dict[str, str]:
    """Of the ``late`` powers, those whose seat's mail did not arrive this phase (see
    ``undelivered``): power -> why. They are not late until ``excused_until``."""
    if not late or game.deadline is None:
        return {}
    warns = timing_of(game).reminders(game.deadline)
    warn_at = warns[0] if warns else game.deadline
    began = phase_began(game)
    found: dict[str, str] = {}
    for seat in players_to_order_by_clock(game):
        mine = [p for p in seat.powers if p in late]
        why = undelivered(game, seat, began, warn_at, now) if mine else None
        if why:
            found.update(dict.fromkeys(mine, why))
    return found


def excused_until(game: Game) -> datetime | None:
    """When the grace of a seat whose mail did not arrive ends: the game's GRACE after the
    deadline, and never less than DELIVERY_GRACE."""
    deadline: datetime | None = game.deadline
    if deadline is None:
        return None
    return deadline + max(timing_of(game).grace, DELIVERY_GRACE)

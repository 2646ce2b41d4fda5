"""Openings: the powers that need a player, as stored and as the public may read them.

A power is opened when its player resigns, the master ejects its player or makes it a
dummy, or it falls into civil disorder (its player sent no orders by the deadline); it
is closed when someone takes it over (TAKEOVER), its player is back (orders of their own
again), it is out of the game, or the game is over. What is shown of an opening is public
by nature: the game, the power, its centres and units at the start of the phase, the
phase, and how to take it over; never who played it, an address, orders on file or
press. A game the public may not see (private, SOLITAIRE, NO_OBSERVATIONS) shows none.

Who hears of new openings by mail: the addresses that asked (OPENINGS ON) and answered
the token mailed to them (CONFIRM), so that nobody can sign up someone else.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from mailjudge.game import guard
from mailjudge.game.confirmations import expired, not_for_sender
from mailjudge.game.state import current_position, game_map, is_public, power_title
from mailjudge.store.models import Game, GameState, Opening, OpeningsSubscriber, utcnow

# The word that stands for the taker's new password in the TAKEOVER line shown.
PASSWORD_WORD = "password"
REASON_WORDS = {
    "resigned": "its player resigned",
    "ejected": "its player was removed by the master",
    "dummy": "the master made it a dummy (nobody plays it)",
    "civil disorder": "its player sent no orders by the deadline (civil disorder)",
}


def open_row(game: Game, power: str) -> Opening | None:
    found: Opening | None = Opening.get_or_none(
        (Opening.game == game) & (Opening.power == power.upper()) & Opening.closed_at.is_null()
    )
    return found


def open_power(game: Game, power: str, reason: str, now: datetime | None = None) -> Opening | None:
    """Open ``power``; the new row, or None when it is open already (no second
    announcement) or the game is not under way."""
    if game.state not in (GameState.ACTIVE, GameState.PAUSED) or open_row(game, power):
        return None
    return Opening.create(
        game=game, power=power.upper(), reason=reason, phase=game.phase or "",
        sequence=game.sequence, opened_at=now or utcnow(),
    )  # fmt: skip


def close_power(game: Game, power: str, why: str, now: datetime | None = None) -> Opening | None:
    """Close the power's opening (taken, returned, out, over); the row, or None if none."""
    row = open_row(game, power)
    if row is not None:
        row.closed_at = now or utcnow()
        row.closed_why = why
        row.save()
    return row


def open_powers(game: Game) -> list[str]:
    rows = Opening.select(Opening.power).where((Opening.game == game) & Opening.closed_at.is_null())
    return sorted(str(r.power) for r in rows)


def extended_this_phase(game: Game) -> bool:
    """Whether a takeover moved this phase's deadline already (once a phase)."""
    return (
        Opening.select()
        .where((Opening.game == game) & (Opening.extended_sequence == game.sequence))
        .exists()
    )


@dataclass(frozen=True)
class OpeningView:
    """One opening as the public reads it: the page, the feed and the mail."""

    id: int
    game: str
    variant: str
    power: str
    reason: str  # in words
    phase: str
    centres: list[str]  # upper-case province codes
    units: list[str]  # "A PAR", "F SPA/SC"
    opened_at: datetime
    deadline: datetime | None
    title: str = ""  # the power as people read it ("British Columbia")

    @property
    def takeover(self) -> str:
        return f"TAKEOVER {self.power.lower()}@{self.game} {PASSWORD_WORD}"


def view(row: Opening) -> OpeningView | None:
    """The public view of an opening; None for a game the public may not see."""
    game = row.game
    if not is_public(game) or not game.position:
        return None
    pos = current_position(game)
    units = sorted(f"{u.type} {u.loc.upper()}" for u in pos.units_of(row.power))
    return OpeningView(
        id=int(row.id), game=str(game.name), variant=str(game.variant),
        power=str(row.power), reason=REASON_WORDS.get(str(row.reason), str(row.reason)),
        phase=str(game.phase or ""), centres=[c.upper() for c in pos.centres_of(row.power)],
        units=units, opened_at=row.opened_at,
        deadline=game.deadline if game.state == GameState.ACTIVE else None,
        title=power_title(game, str(row.power)),
    )  # fmt: skip


def public_openings() -> list[OpeningView]:
    """Every open power of a running public game, newest first."""
    rows = (
        Opening.select(Opening, Game)
        .join(Game)
        .where(Opening.closed_at.is_null() & Game.state.in_((GameState.ACTIVE, GameState.PAUSED)))
        .order_by(Opening.opened_at.desc(), Opening.id.desc())
    )
    views = [view(row) for row in rows]
    return [v for v in views if v is not None]


def last_change() -> datetime | None:
    """When an opening last opened or closed (the feed's updated)."""
    times = [
        t
        for t in (
            Opening.select(Opening.opened_at).order_by(Opening.opened_at.desc()).scalar(),
            Opening.select(Opening.closed_at)
            .where(Opening.closed_at.is_null(False))
            .order_by(Opening.closed_at.desc())
            .scalar(),
        )
        if t is not None
    ]
    return max(times) if times else None


def power_is_known(game: Game, power: str) -> bool:
    return power.upper() in game_map(game).powers


# The subscribers.


def ask(address: str) -> str:
    """OPENINGS ON from ``address``: a token it must send back with CONFIRM (a new one
    each time it asks); it gets nothing until then."""
    token = "o" + secrets.token_hex(6)
    row = OpeningsSubscriber.get_or_none(OpeningsSubscriber.address == address.lower())
    if row is None:
        OpeningsSubscriber.create(address=address.lower(), token=token)
    else:
        row.token, row.asked_at = token, utcnow()
        row.save()
    return token


def is_subscribed(address: str) -> bool:
    row = OpeningsSubscriber.get_or_none(OpeningsSubscriber.address == address.lower())
    return row is not None and row.confirmed_at is not None


def holds_token(token: str) -> bool:
    return OpeningsSubscriber.select().where(OpeningsSubscriber.token == token.lower()).exists()


def confirm(token: str, sender: str) -> None:
    """CONFIRM token from the address it was sent to: the address gets the openings mail."""
    row = OpeningsSubscriber.get_or_none(OpeningsSubscriber.token == token.lower())
    if row is None or row.address != sender.lower():
        raise not_for_sender()
    too_old = expired(row.asked_at, "write OPENINGS ON again")
    if too_old is not None:
        raise too_old
    row.token, row.confirmed_at = "", utcnow()
    row.save()
    guard.mark_proven(str(row.address), utcnow())  # as any answered token proves it


def stop(address: str) -> bool:
    """OPENINGS OFF: no more openings mail to ``address``; whether it had asked."""
    return bool(
        OpeningsSubscriber.delete().where(OpeningsSubscriber.address == address.lower()).execute()
    )


def subscribers() -> list[str]:
    rows = OpeningsSubscriber.select(OpeningsSubscriber.address).where(
        OpeningsSubscriber.confirmed_at.is_null(False)
    )
    return sorted(str(r.address) for r in rows)

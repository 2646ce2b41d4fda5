"""Mail goes only where it was asked for: an observer's results start, a player's JOIN
from a new address is done (service/seats.ask_to_join), a seat's mail moves to a new
address, and a TAKEOVER from an address the judge never had an answer from gives it the
power, only once that address answers the token it was sent (CONFIRM), within
`security.confirm_hours`. A token is mailed to that address only, never to a
Reply-To; its answer proves the address (service.guard.mark_proven).
An address can stop a game's mail to its observer seats with STOP, no password needed,
as a mailing list's unsubscribe."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from mailjudge.config.settings import current_settings
from mailjudge.game import guard
from mailjudge.game.errors import NotAllowed, NotFound, ServiceError
from mailjudge.game.state import person_for
from mailjudge.store.models import Confirmation, Game, JoinRequest, Seat, utcnow


def new_token(kind: str, seat: Seat, address: str) -> str:
    """A token for `address` to send back; an earlier one of the same kind for the seat
    is replaced."""
    Confirmation.delete().where((Confirmation.seat == seat) & (Confirmation.kind == kind)).execute()
    token = secrets.token_hex(6)
    Confirmation.create(token=token, kind=kind, seat=seat, address=address.lower())
    return token


def new_takeover_token(seat: Seat, address: str, password_hash: str) -> str:
    """A TAKEOVER of ``seat`` from ``address`` waits for its CONFIRM, with the taker's
    password hash; the address's earlier one for the seat is replaced, another address's
    is not (the first to confirm takes the seat)."""
    address = address.lower()
    Confirmation.delete().where(
        (Confirmation.seat == seat) & (Confirmation.kind == "takeover")
        & (Confirmation.address == address)
    ).execute()  # fmt: skip
    token = secrets.token_hex(6)
    Confirmation.create(token=token, kind="takeover", seat=seat, address=address,
                        password_hash=password_hash)  # fmt: skip
    return token


def takeover_waiting(token: str, sender: str) -> Confirmation | None:
    """The TAKEOVER a CONFIRM token answers; None when the token is of another kind, or
    unknown (``confirm`` answers those). Refused from another address, or too old."""
    found = Confirmation.get_or_none(Confirmation.token == token.lower())
    if found is None or found.kind != "takeover":
        return None
    if found.address != sender.lower():
        raise not_for_sender()
    too_old = expired(found.created_at, "write the TAKEOVER again")
    if too_old is not None:
        raise too_old
    return found


def forget_takeovers(seat: Seat) -> None:
    """The seat is taken: every TAKEOVER still waiting for it lapses."""
    Confirmation.delete().where(
        (Confirmation.seat == seat) & (Confirmation.kind == "takeover")
    ).execute()


@dataclass(frozen=True)
class Confirmed:
    kind: str  # observe, address, or the role of a seat a variant's JOIN made (citizen)
    seat: Seat
    address: str  # where the mail goes now
    old_address: str  # where it went before ("" for a new observer)


def not_for_sender() -> NotFound:
    """A CONFIRM whose token is unknown, or was sent to another address."""
    return NotFound(
        "no such confirmation for this address: answer from the address the token was "
        "sent to, with CONFIRM and the token as it was written"
    )


def expired(asked_at: datetime, again: str) -> NotFound | None:
    """The refusal of a token asked for at ``asked_at`` that is too old now (``again``
    says how to get a new one), or None while it is good."""
    hours = current_settings().security.confirm_hours
    if asked_at + timedelta(hours=hours) > utcnow():
        return None
    return NotFound(
        f"that token is more than {hours} hours old and no longer good: {again} and answer "
        "the new token"
    )


def join_request(token: str, sender: str) -> JoinRequest | None:
    """The JOIN waiting for the token ``token`` (None when the token is another kind's),
    if ``sender`` is the address it went to and it is not too old; the address is then
    proven. The caller does the JOIN (service/seats.confirm_join)."""
    found = JoinRequest.get_or_none(JoinRequest.token == token.lower())
    if found is None:
        return None
    if found.address != sender.lower():
        raise not_for_sender()
    too_old = expired(found.created_at, "send the JOIN again")
    if too_old is not None:
        found.delete_instance()
        raise too_old
    guard.mark_proven(found.address, utcnow())
    return found


def confirm(token: str, sender: str) -> Confirmed:
    """CONFIRM token from `sender`: the observer's seat becomes active, or the seat's mail
    moves to the new address."""
    found = Confirmation.get_or_none(Confirmation.token == token.lower())
    if found is None or found.address != sender.lower():
        raise not_for_sender()
    too_old = expired(found.created_at, "ask again (OBSERVE or SET ADDRESS)")
    if too_old is not None:
        found.delete_instance()
        raise too_old
    seat = found.seat
    old = seat.person.email if seat.person is not None and found.kind == "address" else ""
    if found.kind == "address":
        seat.person = person_for(found.address)
    else:  # an observer, or a seat a variant's JOIN made: it waited for its address
        seat.status = "active"
    seat.save()
    found.delete_instance()
    guard.mark_proven(found.address, utcnow())
    return Confirmed(str(found.kind), seat, str(found.address), old)


def stop(game: Game, sender: str) -> list[Seat]:
    """STOP game: the observer seats of `sender` in the game get no more mail."""
    mine = [s for s in Seat.select().where((Seat.game == game) & (Seat.role == "observer"))
            if s.person is not None and s.person.email == sender.lower()
            and s.status in ("active", "invited")]  # fmt: skip
    if not mine:
        players = Seat.select().where((Seat.game == game) & (Seat.role != "observer"))
        if any(s.person is not None and s.person.email == sender.lower() for s in players):
            raise NotAllowed(f"STOP is for observers; a player leaves {game.name} with "
                             "SIGNON and RESIGN")  # fmt: skip
        raise ServiceError(f"{sender} observes nothing in {game.name}: it gets no mail from it")
    for seat in mine:
        seat.status = "resigned"
        seat.save()
        Confirmation.delete().where(Confirmation.seat == seat).execute()
    return mine

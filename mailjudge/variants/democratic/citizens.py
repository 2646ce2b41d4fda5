"""Democratic Diplomacy's citizens (seed 000): each belongs to a supply centre, and so to
whichever country owns it. Who they are, where they are, and how to reach them; used by
the variant, its country lists and their digests."""

from __future__ import annotations

from mailjudge.engine.catalogue import playable_powers
from mailjudge.game.state import game_map
from mailjudge.models import Game, Person, Seat

CITIZEN_ROLES = ("citizen", "diplomat")


def _owners(game: Game) -> dict[str, str]:
    return dict(game.position.get("sc_owners") or {}) if game.position else {}


def home_centres(game: Game) -> list[str]:
    """Where citizens live: the home centres of the powers played (none of a power the
    map leaves to nobody)."""
    gmap = game_map(game)
    return sorted(c for p in playable_powers(gmap) for c in gmap.home_centres[p])


def citizens(game: Game) -> list[Seat]:
    return list(
        Seat.select()
        .where((Seat.game == game) & Seat.role.in_(CITIZEN_ROLES) & (Seat.status == "active"))
        .order_by(Seat.id)
    )


def country_of(seat: Seat, owners: dict[str, str] | None = None) -> str | None:
    owners = owners if owners is not None else _owners(seat.game)
    return owners.get(seat.centre) if seat.centre else None


def citizens_of(game: Game, power: str) -> list[Seat]:
    owners = _owners(game)
    return [s for s in citizens(game) if s.centre and owners.get(s.centre) == power]


def centres_of(game: Game, power: str) -> list[str]:
    return sorted(c for c, owner in _owners(game).items() if owner == power)


def citizen_addresses(game: Game, power: str) -> list[str]:
    """The addresses of a country's citizens, straight from the database (a country may
    have tens of thousands)."""
    centres = centres_of(game, power)
    if not centres:
        return []
    rows = (
        Person.select(Person.email)
        .join(Seat, on=(Seat.person == Person.id))
        .where((Seat.game == game) & Seat.role.in_(CITIZEN_ROLES) & Seat.centre.in_(centres)
               & (Seat.status == "active"))
    )  # fmt: skip
    return [str(email) for email in rows.scalars()]

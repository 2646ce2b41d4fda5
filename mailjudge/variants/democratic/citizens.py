"""Democratic Diplomacy's citizens (seed 000): each belongs to a supply centre, and so to
whichever country owns it. Who they are, where they are, and how to reach them; used by
the variant, its country lists and their digests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mailjudge.engine.catalogue import playable_powers
from mailjudge.game.state import game_map
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, Person, PhaseRecord, Seat

CITIZEN_ROLES = ("citizen", "diplomat")


def centre_owners(game: Game) -> dict[str, str]:
    """Who owns each centre, as its citizens belong to it. Seed 000: citizens move when
    "their home supply center gets overtaken" and "once a country gains control of a
    supply center ... prior to disbanding or building units": control changes at the end
    of the Fall turn, after its retreats. The engine's board of a Fall retreat phase shows
    the owners the Fall's moves make, so during that phase the citizens still belong to
    the owners the Fall began with."""
    if not game.position:
        return {}
    phase = game.phase or ""
    if phase.startswith("F") and phase.endswith("R"):
        began = owners_at_start(game, phase[:-1] + "M")
        if began is not None:
            return began
    return dict(game.position.get("sc_owners") or {})


def owners_at_start(game: Game, phase: str) -> dict[str, str] | None:
    """The centres' owners on the board the stored ``phase`` began with; None when that
    phase is not stored."""
    record = PhaseRecord.get_or_none((PhaseRecord.game == game) & (PhaseRecord.phase == phase))
    return dict((record.position or {}).get("sc_owners") or {}) if record else None


def citizen_owners_before(game: Game, phase: str) -> dict[str, str]:
    """The owners the citizens followed while the stored ``phase`` was played (a Fall
    retreat's are the Fall's first: see centre_owners)."""
    if phase.startswith("F") and phase.endswith("R"):
        began = owners_at_start(game, phase[:-1] + "M")
        if began is not None:
            return began
    return owners_at_start(game, phase) or {}


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
    owners = owners if owners is not None else centre_owners(seat.game)
    return owners.get(seat.centre) if seat.centre else None


def citizens_of(game: Game, power: str) -> list[Seat]:
    owners = centre_owners(game)
    return [s for s in citizens(game) if s.centre and owners.get(s.centre) == power]


def centres_of(game: Game, power: str) -> list[str]:
    return sorted(c for c, owner in centre_owners(game).items() if owner == power)


# Set while a phase is processed: game id -> centre -> its citizens' addresses.
_READ_ONCE: ContextVar[dict[int, dict[str, list[str]]] | None] = ContextVar(
    "citizen_addresses_read_once", default=None
)


@contextmanager
def addresses_read_once() -> Iterator[None]:
    """Within, each game's citizens' addresses are read once, all centres together, and
    every country's mail takes its own from that: processing a phase mails every
    country's list two or three times (the count, the diplomats, the digest), and each
    country's query walks all the game's citizens. Nothing run within may add or remove
    a citizen or change their centre (a change of role between citizen and diplomat, or
    of the country that owns a centre, is no change here)."""
    token = _READ_ONCE.set({})
    try:
        yield
    finally:
        _READ_ONCE.reset(token)


def _members(game: Game, centres: list[str] | None) -> Any:
    """The active citizens' (centre, address) rows, of ``centres`` or of the whole game."""
    which = (Seat.game == game) & Seat.role.in_(CITIZEN_ROLES) & (Seat.status == "active")
    if centres is not None:
        which &= Seat.centre.in_(centres)
    query = Person.select(Seat.centre, Person.email).join(Seat, on=(Seat.person == Person.id))
    # Plain rows from the driver: a country may have hundreds of thousands of citizens.
    return database_proxy.execute(query.where(which))


def citizen_addresses(game: Game, power: str) -> list[str]:
    """The addresses of a country's citizens, straight from the database (a country may
    have tens of thousands)."""
    centres = centres_of(game, power)
    if not centres:
        return []
    memo = _READ_ONCE.get()
    if memo is None:
        return [str(email) for _, email in _members(game, centres)]
    by_centre = memo.get(game.id)
    if by_centre is None:
        by_centre = memo[game.id] = {}
        for centre, email in _members(game, None):
            by_centre.setdefault(centre, []).append(str(email))
    return [email for centre in centres for email in by_centre.get(centre, ())]


def diplomat_of(game: Game, power: str) -> Seat | None:
    """The country's elected diplomat, if it has one now."""
    centres = centres_of(game, power)
    if not centres:
        return None
    return Seat.get_or_none(
        (Seat.game == game) & (Seat.role == "diplomat") & Seat.centre.in_(centres)
        & (Seat.status == "active")
    )  # fmt: skip

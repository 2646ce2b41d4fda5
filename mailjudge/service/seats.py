"""Who sits in a game: players, observers, the master; joining, leaving, signing on."""

from __future__ import annotations

import random
import secrets
from datetime import timedelta

from mailjudge.config.settings import current_settings
from mailjudge.engine.catalogue import playable_powers
from mailjudge.game.errors import NotAllowed, NotFound, ServiceError
from mailjudge.game.state import (
    authenticate,
    game_map,
    has_rule,
    lock_game,
    person_for,
    players,
    public_name,
    seat_in,
    seat_named,
    unique_name,
)
from mailjudge.render.outgoing import Outgoing
from mailjudge.secrecy.passwords import hash_password, verify_password_remembered
from mailjudge.service import multiseat, records
from mailjudge.service.games import start_game
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, GameState, JoinRequest, Seat, utcnow
from mailjudge.variants import variant_of


def seat_for_power(game: Game, power: str) -> Seat:
    power = power.upper()
    for seat in players(game):
        if power in seat.powers:
            return seat
    raise NotFound(f"{power} is not a power in game {game.name}")


def seats_known_as(game: Game, name: str) -> list[Seat]:
    """Seats a player may also sign on by: the name they joined with (the start renames
    seats after their powers), or a power they hold (in Double two players hold each
    power, and the password tells them apart)."""
    joined = (game.variant_state or {}).get("joined_as", {})
    ids = [int(seat_id) for seat_id, joined_name in joined.items() if joined_name == name.lower()]
    if ids:
        return list(Seat.select().where((Seat.game == game) & Seat.id.in_(ids)))
    power = name.upper()
    return [
        seat for seat in Seat.select().where((Seat.game == game) & (Seat.role == "player"))
        if power in seat.powers
    ]  # fmt: skip


def seat_for_signon(game_name: str, name: str, password: str) -> Seat:
    """The seat a SIGNON names: by its own name, else as seats_known_as finds it. Among
    several (a power two players hold) the one whose password this is; if none, the
    first, so that the wrong password is counted as usual."""
    try:
        return seat_in(game_name, name)
    except NotFound:
        game = Game.get_or_none(Game.name == game_name.lower())
        candidates = seats_known_as(game, name) if game is not None else []
        if not candidates:
            raise
    for seat in candidates:
        if seat.password_hash and verify_password_remembered(password, seat.password_hash):
            return seat
    return candidates[0]


def join(
    game: Game,
    email: str,
    password: str,
    power: str | None = None,
    name: str | None = None,
    rng: random.Random | None = None,
    started: list[Outgoing] | None = None,
    password_hash: str | None = None,
) -> Seat:
    """JOIN a forming game. Under POWER_CHOICE a free power may be named; otherwise powers
    are dealt at random when the game starts. The game starts by itself when full, unless
    START_MASTER; the variant's mail at the start is added to ``started``. Under the
    game's lock: concurrent JOINs take their turns, and the last seat starts the game.
    ``password_hash``: the password hashed already (a JOIN confirmed: ask_to_join)."""
    lock_game(game)
    _may_join(game, email, name)
    joined = variant_of(game).people.join(game, email, password, name)
    if joined is not None:
        return joined
    person = person_for(email)
    with database_proxy.atomic():
        chosen, seats = _player_seat_for(game, person.id, power)
        playable = playable_powers(game_map(game))
        seat_name = (
            chosen.lower() if chosen else unique_name(game, name or person.email.split("@")[0])
        )
        seat = Seat.create(
            game=game,
            person=person,
            role="player",
            name=seat_name,
            public_name=public_name(name),
            powers=chosen,
            password_hash=password_hash or hash_password(password),
        )
        multiseat.note_password(seat, password)  # the master's signals: one password, two seats
        if len(seats) + 1 == len(playable) and not has_rule(game, "START_MASTER"):
            mails = start_game(game, rng)
            if started is not None:
                started += mails
            seat = Seat.get_by_id(seat.id)
    return seat


def _may_join(game: Game, email: str, name: str | None) -> None:
    records.require_min_record(game, email)  # the game's MIN_RECORD, if it has one
    if name and variant_of(game).people.anonymous:
        raise NotAllowed(
            f"{game.name} is anonymous: players are known by their powers only; JOIN without"
            " AS name"
        )


def _player_seat_for(game: Game, person_id: int, power: str | None) -> tuple[str, list[Seat]]:
    """The checks of a player's JOIN: the power it takes ("" when dealt at the start) and
    the player seats there are, or the refusal saying why not."""
    if game.state != GameState.FORMING:
        raise NotAllowed(
            f"game {game.name} is {game.state}; JOIN is for forming games (try TAKEOVER)"
        )
    seats = players(game)
    mine = [s for s in seats if s.person_id == person_id]
    if mine and not has_rule(game, "MULTIPLE_POWERS_PER_PLAYER"):
        raise NotAllowed(f"you already play in {game.name}; one power per player in this game")
    playable = playable_powers(game_map(game))
    if len(seats) >= len(playable):
        raise NotAllowed(f"game {game.name} is full")
    chosen = ""
    if power:
        chosen = power.upper()
        if not has_rule(game, "POWER_CHOICE"):
            raise NotAllowed("powers are dealt at random in this game; JOIN without naming one")
        if chosen not in playable:
            raise ServiceError(
                f"{power!r} is not a power to play; choose from {', '.join(playable)}"
            )
        if any(chosen in s.powers for s in seats):
            raise NotAllowed(f"{chosen} is taken; free powers: {', '.join(free_powers(game))}")
    return chosen, seats


def ask_to_join(
    game: Game, email: str, password: str, power: str | None = None, name: str | None = None
) -> str | None:
    """A player's JOIN from an address that never answered the judge: checked now as join()
    would (the refusal comes at once), kept, and done when the address answers the token
    returned (confirm_join). Until then it holds no seat and keeps no power: a forged JOIN
    puts no stranger in a game, nor takes a place from anyone (issue 52). None when the
    variant seats its joiners its own way (Democratic: a citizen waits in an invited seat),
    and join() is to be called."""
    if not variant_of(game).people.has_players:
        return None
    _may_join(game, email, name)
    chosen, _ = _player_seat_for(game, person_for(email).id, power)
    hours = current_settings().security.confirm_hours
    JoinRequest.delete().where(
        ((JoinRequest.game == game) & (JoinRequest.address == email.lower()))
        | (JoinRequest.created_at < utcnow() - timedelta(hours=hours))
    ).execute()
    token = secrets.token_hex(6)
    JoinRequest.create(token=token, game=game, address=email.lower(), power=chosen,
                       name=name or "", password_hash=hash_password(password))  # fmt: skip
    multiseat.note_waiting_join(game, email, password)  # the master's signals
    return token


def confirm_join(request: JoinRequest, started: list[Outgoing] | None = None) -> Seat:
    """The JOIN an address kept waiting, done now that it answered its token (checked
    again: the game may have filled meanwhile)."""
    seat = join(request.game, request.address, "", power=request.power or None,
                name=request.name or None, started=started,
                password_hash=request.password_hash)  # fmt: skip
    request.delete_instance()
    return seat


def free_powers(game: Game) -> list[str]:
    held = {p for s in players(game) for p in s.powers}
    return [p for p in playable_powers(game_map(game)) if p not in held]


def observe(game: Game, email: str, password: str, name: str | None = None) -> Seat:
    lock_game(game)  # one seat an address, and each seat's name its own
    if has_rule(game, "NO_OBSERVATIONS"):
        raise NotAllowed(f"game {game.name} takes no observers (NO_OBSERVATIONS)")
    person = person_for(email)
    watching = Seat.select().where(
        (Seat.game == game) & (Seat.role == "observer") & (Seat.person == person)
        & Seat.status.in_(("active", "invited"))
    )  # fmt: skip
    if watching.exists():
        raise NotAllowed(f"{person.email} observes {game.name} already: one seat an address")
    # "invited" until the address answers its token: no results go to it before.
    return Seat.create(
        game=game,
        person=person,
        role="observer",
        status="invited",
        name=unique_name(game, name or person.email.split("@")[0]),
        password_hash=hash_password(password),
    )


def is_vacant(seat: Seat) -> bool:
    return seat.role == "player" and seat.person_id is None


def check_takeover(game: Game, seat: Seat, email: str) -> None:
    """Whether ``email`` may take ``seat`` over (service/openings.py has found it open):
    the game's MIN_RECORD, and one power a player unless MULTIPLE_POWERS_PER_PLAYER. Under
    the game's lock, so that of two TAKEOVERs of one power the second finds it taken."""
    lock_game(game)
    records.require_min_record(game, email)
    person = records.person_at(email)
    held = [s for s in players(game) if person is not None and s.person_id == person.id]
    if held and not has_rule(game, "MULTIPLE_POWERS_PER_PLAYER"):
        raise NotAllowed(f"you already play {held[0].powers} in {game.name}; one power per player")


def takeover(seat: Seat, email: str, password_hash: str) -> Seat:
    """Give ``seat`` to ``email``, with the password whose hash is given: a vacant seat
    (after a RESIGN, an EJECT, or a dummy at START), or one whose player missed a deadline
    (its power open in civil disorder); check_takeover first."""
    seat.person = person_for(email)
    seat.password_hash = password_hash
    seat.public_name = ""  # the name was the one who left; the newcomer has chosen none
    seat.dummy = False
    seat.status = "active"
    seat.wait = False
    seat.failed_signons = 0
    seat.locked_until = None
    seat.save()
    records.note_takeover(seat)  # in the taker's favour
    return seat


def vacate(seat: Seat, status: str) -> None:
    seat.person = None
    seat.password_hash = None
    seat.status = status
    seat.wait = False
    seat.save()


def resign(seat: Seat) -> None:
    lock_game(seat.game)
    if seat.role == "player":
        vacate(seat, "resigned")
    else:
        seat.status = "resigned"
        seat.save()


def eject(game: Game, power: str) -> Seat:
    lock_game(game)
    seat = seat_for_power(game, power)
    vacate(seat, "ejected")
    return seat


def make_dummy(game: Game, power: str) -> Seat:
    """The master's DUMMY: the power has no player; its orders come from the master or the
    civil-disorder defaults."""
    lock_game(game)
    seat = seat_for_power(game, power)
    vacate(seat, "active")
    seat.dummy = True
    seat.save()
    return seat


def revive(game: Game, power: str) -> Seat:
    """The master's REVIVE: a dummy or eliminated power plays again (for a TAKEOVER)."""
    lock_game(game)
    seat = seat_for_power(game, power)
    seat.dummy = False
    seat.eliminated = False
    seat.status = "active"
    seat.save()
    return seat


def signon(game: Game, name: str, password: str, sender: str = "") -> Seat:
    """SIGNON name@game password, or Mgame / Fgame (initials) forms resolved by the caller."""
    return authenticate(seat_named(game, name), password, sender)


def set_password(seat: Seat, password: str) -> None:
    seat.password_hash = hash_password(password)
    seat.save()


def set_wait(seat: Seat, wait: bool) -> None:
    if wait and has_rule(seat.game, "REAL_TIME"):
        raise NotAllowed(
            "this game is REAL_TIME: it processes as soon as all orders are in; no WAIT"
        )
    seat.wait = wait
    seat.save()


def set_preference(seat: Seat, words: list[str]) -> list[str]:
    """SET PREFERENCE E,F,G (njudge): the powers wanted, best first, honoured when the
    powers are dealt at random; only before the deal."""
    game = seat.game
    if seat.role != "player":
        raise NotAllowed("only a player waiting for a power has a preference")
    if game.state != GameState.FORMING or seat.powers:
        raise NotAllowed(
            f"the powers of {game.name} are dealt already: a preference counts only while "
            "the game is forming and your power is not yet chosen"
        )
    gmap = game_map(game)
    by_initial = {p.initial.upper(): p.name for p in gmap.powers.values()}
    wanted: list[str] = []
    for word in " ".join(words).replace(",", " ").replace("/", " ").upper().split():
        if word in ("RANDOM", "NONE"):
            continue
        names = [word] if word in gmap.powers else [by_initial.get(c, "?") for c in word]
        for name in names:
            if name not in gmap.powers:
                raise ServiceError(
                    f"{word!r} is not a power or power initials; write SET PREFERENCE "
                    "E,F,G (initials, best first) or SET PREFERENCE RANDOM"
                )
            if name not in wanted:
                wanted.append(name)
    seat.preference = " ".join(wanted)
    seat.save()
    return wanted

"""Games: creation, rules, start, pause and resume, and the end."""

from __future__ import annotations

import random
import secrets
from datetime import datetime

from mailjudge.config.settings import current_settings
from mailjudge.engine.catalogue import find_map, playable_powers
from mailjudge.engine.interchange import position_to_dict
from mailjudge.engine.maps import GameMap, MapError
from mailjudge.engine.phases import EngineOptions
from mailjudge.engine.rules import RuleError, RuleSet, apply_change
from mailjudge.engine.state import initial_position
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.schedule import schedule_phase
from mailjudge.game.state import game_map, lock_game, person_for, rules_of
from mailjudge.render.outgoing import Outgoing
from mailjudge.secrecy.passwords import hash_password
from mailjudge.store.db import database_proxy
from mailjudge.store.models import GAME_NAME, Game, GameState, Seat, utcnow
from mailjudge.variants import VARIANTS, variant_of
from mailjudge.variants.events import Started
from mailjudge.variants.questions import PlayOn


def _variants() -> tuple[str, ...]:
    return tuple(VARIANTS)


def engine_options(game: Game) -> EngineOptions:
    """The options for processing the current phase (its own changes of status count)."""
    rules = rules_of(game)
    variant = variant_of(game)
    return EngineOptions(
        build_any=rules.has("BUILD_ANY"),
        dont_skip_phases=rules.has("DONT_SKIP_PHASES"),
        victory_centres=game.victory_count,
        shared_victory=rules.has("SHARED_VICTORY"),
        hold_win=rules.has("HOLD_WIN"),
        passive=variant.phase.passive(game, game.sequence),
        keep_adjustments_every=variant.phase.keep_adjustments_every,
        civil_disorder_seed=(
            game.name if rules.has("CIVIL_DISORDER") and variant.phase.random_removals else ""
        ),
        multiple_orders_hold=rules.has("NO_CHECK"),
        centre_weights=tuple(sorted(variant.phase.centre_weights.items())),
    )


def passive_now(game: Game) -> frozenset[str]:
    """Powers nobody orders in the current phase, as its players see it: a change that
    processing this phase brings (a vote-out) is not yet known."""
    if game.state != GameState.ACTIVE and game.state != GameState.PAUSED:
        return frozenset()
    return variant_of(game).phase.passive(game, game.sequence - 1).powers


def create_game(
    name: str,
    master_email: str,
    password: str,
    variant: str = "standard",
    rules: str = "",
    map_name: str = "standard",
    timezone: str | None = None,
) -> Game:
    """A new game in the forming state; the creator is its master. Its deadlines are in
    ``timezone``, by default the judge's (judge.timezone)."""
    name = name.strip().lower()
    if not GAME_NAME.fullmatch(name):
        raise ServiceError(
            f"{name!r} cannot be a game name: use 1 to 32 lower-case letters, digits, '-' or '_'"
        )
    if variant not in _variants():
        raise ServiceError(
            f"unknown variant {variant!r}; this judge plays {', '.join(_variants())}"
        )
    chosen = VARIANTS[variant]
    change = f"{chosen.default_rules} {rules}".strip()
    try:
        ruleset = apply_change(RuleSet(), change, variant=variant) if change else RuleSet()
    except RuleError as err:
        raise ServiceError(str(err)) from None
    gmap = _map_for(chosen.name, map_name)
    victory = chosen.phase.victory_count(len(gmap.centres)) or gmap.victory_centres
    with database_proxy.atomic():
        if Game.get_or_none(Game.name == name) is not None:
            raise NotAllowed(f"a game called {name!r} exists already; choose another name")
        game = Game.create(
            name=name,
            variant=variant,
            map_name=gmap.name,
            rules=str(ruleset),
            master=person_for(master_email),
            victory_count=victory,
            timing=chosen.default_timing,
            private="SOLITAIRE" in ruleset,
            timezone=timezone or current_settings().judge.timezone,
        )
        Seat.create(
            game=game,
            person=game.master,
            role="master",
            name="master",
            password_hash=hash_password(password),
        )
        if "SOLITAIRE" in ruleset:
            # Every power is a dummy the master runs; there is nothing to form.
            for power in gmap.power_names:
                Seat.create(game=game, role="player", name=power.lower(), powers=power, dummy=True)
            _begin(game, gmap)
    return game


def assign_privacy(game: Game) -> str:
    """Seed 001, SOLITAIRE: "A PRIVACY password will be automatically assigned, because
    these are typically private games." A password of its own, apart from the master's
    (the master may hand it to a watcher without giving away the game): made here, kept
    as a salted hash, returned once for the answer to the CREATE."""
    privacy = secrets.token_urlsafe(9)
    game.privacy_hash = hash_password(privacy)
    Game.update(privacy_hash=game.privacy_hash).where(Game.id == game.id).execute()
    return privacy


def _map_for(variant: str, map_name: str) -> GameMap:
    """The map called so, if the variant can be played on it; else why not."""
    try:
        gmap = find_map(map_name)
    except MapError as err:
        raise ServiceError(str(err)) from None
    refusal = VARIANTS[variant].people.refusal(PlayOn(gmap))
    if refusal:
        raise ServiceError(f"{variant} cannot be played on the map {gmap.name}: {refusal}")
    return gmap


def set_map(game: Game, map_name: str) -> GameMap:
    """A forming game nobody has joined moves to another map (DPjudge's ``MAP name`` line
    after CREATE); its victory count follows the map."""
    if game.state != GameState.FORMING or players_joined(game):
        raise NotAllowed(
            f"{game.name} keeps the map {game.map_name}: a map is chosen before anyone joins"
        )
    gmap = _map_for(game.variant, map_name)
    variant = VARIANTS[game.variant]
    game.map_name = gmap.name
    game.victory_count = variant.phase.victory_count(len(gmap.centres)) or gmap.victory_centres
    game.save()
    return gmap


def players_joined(game: Game) -> int:
    return Seat.select().where((Seat.game == game) & (Seat.role == "player")).count()


def start_game(
    game: Game, rng: random.Random | None = None, now: datetime | None = None
) -> list[Outgoing]:
    """Deal the powers and begin. Powers nobody holds become dummies (civil disorder).
    Returns the mail the variant sends at the start (the citizens' countries, say). Under
    the game's lock: a master's START and the last JOIN at once start it once."""
    lock_game(game)
    if game.state != GameState.FORMING:
        raise NotAllowed(
            f"game {game.name} is {game.state}, not forming; only a forming game starts"
        )
    gmap = game_map(game)
    rng = rng or random.Random()
    variant = variant_of(game)
    if not variant.people.has_players:
        with database_proxy.atomic():
            playable = playable_powers(gmap)
            for power in gmap.power_names:
                Seat.create(game=game, role="player", name=power.lower(), powers=power,
                            dummy=power not in playable)  # fmt: skip
            _begin(game, gmap, now)
            return variant.phase.on(Started(game, rng, now or utcnow()))
    with database_proxy.atomic():
        seats = list(
            Seat.select().where((Seat.game == game) & (Seat.role == "player")).order_by(Seat.id)
        )
        # The start renames seats after their powers; the names players joined with stay
        # good for SIGNON (seats.seat_for_signon).
        state = dict(game.variant_state or {})
        state["joined_as"] = {str(s.id): s.name for s in seats if s.person_id is not None}
        game.variant_state = state
        taken = {p for s in seats for p in s.powers}
        free = [p for p in playable_powers(gmap) if p not in taken]
        rng.shuffle(free)
        waiting = [s for s in seats if not s.powers]
        if len(waiting) > len(free):
            raise NotAllowed("more players than powers; EJECT someone before START")
        if any(s.preference for s in waiting):
            # njudge's way with SET PREFERENCE: in a random order, each player gets the
            # first power of their list still free; the others are dealt at random.
            rng.shuffle(waiting)
            waiting.sort(key=lambda s: not s.preference)
        # Seats take their power's name; a player who joined under another power's name
        # (turkey@ playing France) must not hold it meanwhile: clear the names first.
        for seat in waiting:
            Seat.update(name=f"#{seat.id}").where(Seat.id == seat.id).execute()
        for seat in waiting:
            power = next((p for p in seat.preference.split() if p in free), free[-1])
            free.remove(power)
            seat.powers, seat.name = power, power.lower()
            seat.save()
        nobodys = [p for p in gmap.power_names if p not in playable_powers(gmap)]
        for power in free + nobodys:
            Seat.create(game=game, role="player", name=power.lower(), powers=power, dummy=True)
        _begin(game, gmap, now)
        return variant.phase.on(Started(game, rng, now or utcnow()))


def _begin(game: Game, gmap: GameMap, now: datetime | None = None) -> None:
    pos = initial_position(gmap)
    game.state = GameState.ACTIVE
    game.phase = str(pos.phase)
    game.position = position_to_dict(pos)
    game.started_at = now or utcnow()
    game.save()
    schedule_phase(game, game.started_at)


def pause_game(game: Game) -> None:
    lock_game(game)  # the row as processing left it, not as this mail first read it
    if game.state != GameState.ACTIVE:
        raise NotAllowed(f"game {game.name} is {game.state}; only an active game can be paused")
    game.state = GameState.PAUSED
    game.deadline_sequence += 1  # the deadline's calendar event is cancelled while paused
    game.save()


def resume_game(game: Game) -> None:
    lock_game(game)
    if game.state != GameState.PAUSED:
        raise NotAllowed(f"game {game.name} is {game.state}, not paused")
    game.state = GameState.ACTIVE
    game.deadline_sequence += 1  # and sent again
    game.save()

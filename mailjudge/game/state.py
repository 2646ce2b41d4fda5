"""A game as it is stored, read and kept with no variant's rules: its map and rules
flags, its board, the orders on file, its seats and their passwords. The variants build on
this module; service/games.py, orders.py and seats.py add what depends on a variant."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, cast

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.orders import OrderError
from mailjudge.engine.readings import Readings
from mailjudge.engine.rules import RuleError, RuleSet, later_change
from mailjudge.engine.state import MOVEMENT, RETREAT, Position
from mailjudge.game import guard
from mailjudge.game.errors import BadSecret, NotAllowed, NotFound, ServiceError
from mailjudge.secrecy.passwords import verify_password_remembered
from mailjudge.store import games as store_games
from mailjudge.store.db import is_postgres
from mailjudge.store.models import Game, GameState, OrderLine, Person, Seat, utcnow

_POSITIONS: dict[int, tuple[Any, Position]] = {}


def rules_of(game: Game) -> RuleSet:
    return RuleSet.parse(game.rules)  # a RuleSet already, as the field reads it


def has_rule(game: Game, name: str) -> bool:
    """Whether the game has the rules flag ``name`` (a known flag's name: see RuleSet.has)."""
    return rules_of(game).has(name)


def game_map(game: Game) -> GameMap:
    return load_map(game.map_name)


def power_title(game: Game, power: str) -> str:
    """A power of ``game`` as people read it ("British Columbia"; the code is for orders)."""
    return game_map(game).power_title(power)


def get_game(name: str, lock: bool = False) -> Game:
    """The game called ``name``; with ``lock``, held as lock_game holds it."""
    query = Game.select().where(Game.name == name.lower())
    game: Game | None = (query.for_update() if lock and is_postgres() else query).first()
    if game is None:
        raise NotFound(f"there is no game called {name!r}; LIST shows the games on this judge")
    return game


def lock_game(game: Game) -> Game:
    """Hold ``game``'s row until the transaction ends, and bring ``game`` (the same object,
    returned) up to date with it.

    Whatever decides from the game's other seats or its state (the free powers, the count
    of players that starts the game, a vacancy, forming or started) takes this first. On
    PostgreSQL several workers (of one judge or of several) answer at once, each mail in a
    transaction that sees only what was committed: two JOINs each counted six players and
    none started the game, two took FRANCE. Under the lock (SELECT ... FOR UPDATE) the
    second waits for the first to commit, and each of its statements after the lock reads
    what the first did (READ COMMITTED). SQLite's writers take turns for the whole
    transaction anyway: there the row is only read again."""
    query = Game.select().where(Game.id == game.id)
    fresh = (query.for_update() if is_postgres() else query).get()
    game.__data__.update(fresh.__data__)
    return game


def person_for(email: str) -> Person:
    address = email.strip().lower()
    if "@" not in address:
        raise ServiceError(f"{email!r} is not a mail address")
    person, _ = Person.get_or_create(email=address)  # type: ignore[no-untyped-call]
    return cast(Person, person)


def set_rules(game: Game, change: str) -> RuleSet:
    """The master's SET RULE +X -Y, implications applied, forbidden combinations refused."""
    try:
        new = later_change(rules_of(game), change, variant=game.variant)
    except RuleError as err:
        raise ServiceError(str(err)) from None
    game.rules = new
    game.save()
    return new


def finish_game(game: Game, outcome: str, when: datetime | None = None) -> None:
    """End the game: 'WIN FRANCE', 'DRAW ENGLAND FRANCE', 'CONCESSION TURKEY'."""
    game.state = GameState.FINISHED
    game.outcome = outcome
    game.finished_at = when or utcnow()
    game.deadline = None
    game.deadline_sequence += 1  # the last phase's calendar event is cancelled
    game.save()


def require_active(game: Game) -> None:
    if game.state != GameState.ACTIVE:
        raise NotAllowed(f"game {game.name} is {game.state}; that needs an active game")


def current_position(game: Game) -> Position:
    """The game's board, read from its stored JSON once per change (every order mail and
    every readiness check asks for it)."""
    cached = _POSITIONS.get(game.id)
    stored = game.position
    # The same dict (the same game row, asked again) needs no comparing, key by key.
    if cached is not None and (cached[0] is stored or cached[0] == stored):
        if cached[0] is not stored:
            _POSITIONS[game.id] = (stored, cached[1])
        return cached[1]
    pos = position_from_dict(game.position, game_map(game))
    if len(_POSITIONS) > 1000:
        _POSITIONS.clear()
    _POSITIONS[game.id] = (game.position, pos)
    return pos


def orders_on_file(game: Game) -> dict[str, list[OrderLine]]:
    """Each power's orders for the current phase, in their order."""
    lines = store_games.orders_on_file(game.id, game.phase)
    table: dict[str, list[OrderLine]] = {}
    for line in lines:
        table.setdefault(line.power, []).append(line)
    return table


def order_texts(game: Game, power: str) -> list[tuple[str, int | None]]:
    """``power``'s orders on file, as (text, who sent it): the little an order mail needs
    to lay its lines over them, read without building rows."""
    return store_games.order_texts(game.id, game.phase, power)


def order_senders(game: Game, power: str) -> list[tuple[str, int | None, datetime]]:
    """``power``'s orders on file as (text, who sent it, when), in their order: what an
    order mail needs to keep the sender of each order it carries over, read without
    building a row for every power's orders."""
    return store_games.order_senders(game.id, game.phase, power)


def missing_orders(
    game: Game, pos: Position, power: str, texts: list[str], read: Readings | None = None
) -> list[str]:
    """Units (or adjustments) of ``power`` that the texts leave without an order; ``read``:
    the lines the caller has read already (a mail's)."""
    gmap = game_map(game)
    read = Readings.of(read, gmap, pos.phase.type)
    ordered: set[str] = set()
    count = 0
    for text in texts:
        try:
            syntax = read.syntax(text)
        except OrderError:
            continue
        count += 1
        if syntax.loc is not None:
            ordered.add(syntax.loc[0])
    ptype = pos.phase.type
    if ptype == MOVEMENT:
        return [
            str(u) for p, u in sorted(pos.units.items()) if u.power == power and p not in ordered
        ]
    if ptype == RETREAT:
        return [
            str(d.unit) for p, d in sorted(pos.dislodged.items())
            if d.unit.power == power and p not in ordered
        ]  # fmt: skip
    due = adjustment_due(pos, power)
    if due > 0:
        due = min(due, len(build_sites(gmap, pos, power, has_rule(game, "BUILD_ANY"))))
    left = abs(due) - count
    if left <= 0:
        return []
    plural = "s" if left > 1 else ""
    if due > 0:
        sites = build_sites(gmap, pos, power, has_rule(game, "BUILD_ANY"))
        examples = [f"A {site.upper()} B" for site in sorted(sites)[:2]]
        choices = ", ".join(examples) + ("," if len(examples) > 1 else "") + " or WAIVE"
        return [f"{left} build{plural} ({choices})"]
    units = sorted(str(u) for u in pos.units.values() if u.power == power)
    return [f"{left} removal{plural} ({units[0]} D, for instance)"] if units else []


def power_is_done(
    game: Game, pos: Position, power: str, lines: list[OrderLine], read: Readings | None = None
) -> bool:
    return not missing_orders(game, pos, power, [line.text for line in lines], read)


def _seats(game: Game, role: str | None = None) -> list[Seat]:
    if role is None:
        return list(Seat.select().where(Seat.game == game).order_by(Seat.id))
    return store_games.seats_of_role(game.id, role)


def players(game: Game) -> list[Seat]:
    return _seats(game, "player")


def waiting_players(game: Game) -> list[str]:
    """The names of the players who asked to WAIT, in seat order (asked after every order
    mail: only the names are read)."""
    return store_games.waiting_players(game.id)


def seat_in(game_name: str, name: str) -> Seat:
    """The seat ``name`` in game ``game_name``: seat, game and the seat's person in one
    query (a SIGNON asks with every order mail)."""
    game_name, name = game_name.lower(), name.lower()
    found = store_games.seat_game_person(game_name, name)
    if found is None:
        game = Game.get_or_none(Game.name == game_name)
        if game is None:
            raise NotFound(f"there is no game called {game_name!r}; LIST shows the games")
        raise NotFound(f"nobody called {name!r} sits in game {game.name}")
    seat, game, person = found
    seat.game = game
    if person is not None:
        seat.person = person
    return seat


def person_of(seat: Seat) -> Person | None:
    """The seat's registered person, read unless the seat was read with it; kept on the
    seat for later questions."""
    if seat.person_id is None:
        return None
    known = seat.__rel__.get("person")
    if isinstance(known, Person) and known.id == seat.person_id:
        return known
    person = store_games.person_by_id(seat.person_id)
    seat.person = person
    return person


def seat_named(game: Game, name: str) -> Seat:
    seat = Seat.get_or_none((Seat.game == game) & (Seat.name == name.lower()))
    if seat is None:
        raise NotFound(f"nobody called {name!r} sits in game {game.name}")
    return seat


def public_name(chosen: str | None) -> str:
    """The name a player chose with JOIN ... AS name, as the web shows it: letters, digits
    and a few marks, at most 40; never anything like an address ("" then)."""
    if not chosen or "@" in chosen:
        return ""
    return re.sub(r"[^\w .'-]", "", chosen)[:40].strip()


def unique_name(game: Game, wanted: str) -> str:
    base = re.sub(r"[^a-z0-9_.-]", "", wanted.lower())[:28] or "player"
    taken = {s.name for s in _seats(game)}
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name


def authenticate(seat: Seat, password: str, sender: str = "") -> Seat:
    """Check a SIGNON secret (see `check_secret`)."""
    check_secret(seat, password, sender)
    return seat


def check_secret(seat: Seat, password: str, sender: str = "") -> bool:
    """Check a SIGNON secret first, whoever sent it: a right one always works, so no
    guesser can lock a player out. A wrong one is counted per sending address and per
    seat (service.guard), and beyond a few gets no answer (BadSecret.answered). Returns
    whether the seat was under guessing (then the answer goes to the seat's own address)."""
    now = utcnow()
    sender = sender.lower()
    owner = person_of(seat)
    own = owner is not None and owner.email.lower() == sender
    until = None if own else guard.not_checked_until(seat, sender, now)
    if until is not None:
        # Counted as a wrong guess (the answers and the owner's notice stay bounded).
        answered, tell = guard.wrong_password(seat, sender, now)
        raise BadSecret(
            f"not checked: {seat.name}@{seat.game.name} has had too many wrong passwords "
            f"lately; sign on from the address its mail goes to, or after {until:%H:%M} UTC",
            tell_owner=tell, answered=answered,
        )  # fmt: skip
    if seat.password_hash is None or not verify_password_remembered(password, seat.password_hash):
        answered, tell = guard.wrong_password(seat, sender, now)
        raise BadSecret(f"wrong password for {seat.name}@{seat.game.name}", tell_owner=tell,
                        answered=answered)  # fmt: skip
    # Where the answer goes changes only for a sender other than the seat's own person:
    # the seat's own address is not read for (a round trip on every order mail).
    guarded = owner is not None and not own and guard.seat_guarded(seat, now)
    guard.signed_on(seat, sender)
    return guarded


def powers_owing(game: Game, pos: Position, passive: frozenset[str]) -> list[str]:
    """The powers that have something to order in this phase, ``passive`` ones aside."""
    gmap = game_map(game)
    ptype = pos.phase.type
    if ptype == MOVEMENT:
        return sorted({u.power for u in pos.units.values()} - passive)
    if ptype == RETREAT:
        return sorted({d.unit.power for d in pos.dislodged.values()} - passive)
    build_any = has_rule(game, "BUILD_ANY")
    out = []
    for power in sorted(set(gmap.power_names) - passive):
        due = adjustment_due(pos, power)
        if due < 0 or (due > 0 and build_sites(gmap, pos, power, build_any)):
            out.append(power)
    return out


def phase_of(game: Game) -> str:
    """The phase a started game is in (forming games have none)."""
    if game.phase is None:
        raise NotAllowed(f"game {game.name} has not started")
    return str(game.phase)


def game_by_id(game_id: int) -> Game:
    return store_games.game_by_id(game_id)


# Games the public may read on the web: not private (SOLITAIRE) and open to observers.
HIDDEN_FROM_PUBLIC = ("SOLITAIRE", "NO_OBSERVATIONS")


def is_public(game: Game) -> bool:
    """A fog-of-war game (FOG) opens to the public only when it is over."""
    fogged = game.rules.has("FOG") and game.state != GameState.FINISHED
    hidden = any(game.rules.has(rule) for rule in HIDDEN_FROM_PUBLIC)
    return not game.private and not hidden and not fogged


def web_link(game: Game, phase: str | None = None) -> str | None:
    """The game's page (or a phase's) when web.base_url is set and the game is public."""
    from mailjudge.config.settings import current_settings

    base = current_settings().web.base_url
    if not base or not is_public(game):
        return None
    return f"{base}/games/{game.name}" + (f"/phases/{phase}" if phase else "")


def phase_label(code: str | None) -> str:
    """S1901M as players read it (Spring 1901 movement); an unknown code as it is."""
    from mailjudge.engine.state import Phase

    if not code:
        return "not started"
    try:
        return Phase.parse(code).long_name()
    except ValueError:
        return code

"""`mailjudge bench year`: a simulated judge year, whose /stats figures must be what the
simulation did, to the seat-phase.

Games are played one after another, each starting a few weeks after the last, on a SQLite
judge of their own (or the database already connected, for the test). Seven players from
a pool of addresses sit in each game; every phase each player owing orders draws what they
do at the rates given: miss the phase, or send orders (random legal ones) by a Reply token,
by the ready-to-send block or as a plain ORDERS block, early, after the reminder or in the
deadline's grace. A few are replaced at a phase's start (RESIGN, then a newcomer's
TAKEOVER); some games have the stand-in (STANDIN); in some every player stops ordering
from the second year on (abandoned games). The mails go through the judge's own command
runner (commands/run.execute: SIGNON, the token's check, ORDERS), the clock through the
judge's own tick (reminders, grace, civil disorder). No mail leaves the process.

The simulation counts what it did in the shapes service/stats.py uses, and the bench
prints both and whether they agree.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mailjudge.commands.run import execute
from mailjudge.config.settings import Settings, current_settings, use_settings
from mailjudge.engine.randomplay import random_orders
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.reply_tokens import token_for
from mailjudge.game.state import current_position, finish_game, game_map, get_game, players
from mailjudge.secrecy import passwords
from mailjudge.service import deadlines, extend, stats
from mailjudge.service.games import create_game, start_game
from mailjudge.service.openings import take_over
from mailjudge.service.orders import powers_to_order
from mailjudge.service.seats import join, resign
from mailjudge.service.stats import Figures, GameFigures, Stats
from mailjudge.store import db
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.tools import migrations

JUDGE = "judge@bench.test"
TIMING = "MOVE 2D RETREAT 1D ADJUST 1D WARN 6H GRACE 6H"
START = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
POOL = 24  # addresses the players are drawn from: many play several games
# When each kind of sender mails, from the deadline D (WARN 6H: the reminder at D-6h).
EARLY, REMINDER_AT, AFTER, GRACE_AT, GRACE_END = (
    timedelta(hours=-12), timedelta(hours=-6), timedelta(hours=-3), timedelta(hours=2),
    timedelta(hours=6, minutes=1),
)  # fmt: skip


@dataclass(frozen=True)
class Rates:
    miss: float = 0.15
    token: float = 0.2
    ready: float = 0.35
    after_reminder: float = 0.2
    grace: float = 0.1
    replace: float = 0.02
    extend: float = 0.1  # movement phases whose players vote an extension at the start
    abandon: float = 0.15  # games whose players all stop from the second year
    standin: float = 0.3  # games with the stand-in


@dataclass
class Done:
    """What the simulation did to one seat-phase, in SeatPhase's words."""

    person: str
    ordered_by: str
    replacement: bool = False
    levers: str = ""


@dataclass
class Plan:
    seat: Seat
    power: str
    at: datetime
    lever: str  # token, ready, plain
    lines: list[str] = field(default_factory=list)
    replacement: bool = False


@dataclass
class Year:
    expected: Stats = field(default_factory=Stats)
    people: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)  # game, nmr
    mails: int = 0
    phases: int = 0
    replacements: int = 0


def _new_game(name: str, rng: random.Random, standin: bool, at: datetime) -> Game:
    rules = "START_MASTER POWER_CHOICE CIVIL_DISORDER" + (" STANDIN" if standin else "")
    game = create_game(name, "master@bench.test", "pw", rules=rules)
    game.timing = TIMING
    game.save()
    gmap = game_map(game)
    for power, k in zip(gmap.power_names, rng.sample(range(POOL), 7), strict=False):
        join(game, f"p{k}@players.test", "pw", power=power)
    start_game(get_game(name), rng, now=at)
    return get_game(name)


def _replace(game: Game, seat: Seat, power: str, n: int, now: datetime) -> Seat:
    resign(seat)
    taken = take_over(get_game(game.name), power, f"r{n}@players.test", "pw", now, proven=True)
    assert taken.seat is not None
    return Seat.get_by_id(taken.seat.id)


def _extended(game: Game, rng: random.Random, rates: Rates, stop: bool) -> bool:
    """At the phase's start, maybe every player votes VOTE EXTEND 12H; whether the deadline
    moved (the game's EXTENSIONS a year may be spent)."""
    deadline = game.deadline
    if stop or deadline is None or current_position(game).phase.type != "movement":
        return False
    if rng.random() >= rates.extend:
        return False
    for seat in players(game):
        try:
            if extend.vote(game, seat, timedelta(hours=12), deadline - timedelta(hours=20)):
                return True
        except (NotAllowed, ServiceError):
            return False
    return False


def _address(plan: Plan) -> str:
    person = plan.seat.person
    assert person is not None  # plans are made for seats with a player only
    return str(person.email)


def _text(game: Game, plan: Plan) -> str:
    body = "\n".join(plan.lines)
    if plan.lever == "token":
        head = f"SIGNON {plan.seat.name.lower()}@{game.name} {token_for(game, plan.seat)}"
    else:
        head = f"SIGNON {plan.seat.name.lower()}@{game.name} pw"
    orders = "ORDERS" if plan.lever == "plain" else f"ORDERS {plan.power} {game.phase}"
    return f"{head}\n{orders}\n{body}\nEND\n"


def _plans(game: Game, rng: random.Random, rates: Rates, stop: bool, year: Year) -> list[Plan]:
    """What each seat owing orders does this phase (None: nothing)."""
    pos = current_position(game)
    due = set(powers_to_order(game, pos))
    orders = random_orders(game_map(game), pos, rng)
    deadline = game.deadline
    assert deadline is not None
    found = []
    for seat in players(game):
        owed = [p for p in seat.powers if p in due]
        if seat.person is None or not owed:
            continue
        power = owed[0]
        replaced = not stop and rng.random() < rates.replace
        if replaced:
            year.replacements += 1
            seat = _replace(game, seat, power, year.replacements, deadline - timedelta(days=1))
        draw = rng.random()
        when = EARLY if draw < 1 - rates.after_reminder - rates.grace else (
            AFTER if draw < 1 - rates.grace else GRACE_AT)  # fmt: skip
        lever = rng.random()
        how = (
            "token"
            if lever < rates.token
            else "ready"
            if lever < rates.token + rates.ready
            else "plain"
        )
        missing = stop or rng.random() < rates.miss
        lines = [] if missing else orders.get(power, [])
        found.append(Plan(seat, power, deadline + when, how, lines, replaced))
    return found


def _play_phase(game: Game, rng: random.Random, rates: Rates, stop: bool, year: Year) -> datetime:
    """One phase: the mails and ticks in time order until the phase is processed; when."""
    kind = current_position(game).phase.type
    extended = _extended(game, rng, rates, stop)
    game = get_game(game.name)
    plans = _plans(game, rng, rates, stop, year)
    deadline = get_game(game.name).deadline
    assert deadline is not None
    steps: list[tuple[datetime, int, Plan | None]] = [
        (deadline + d, 0, None) for d in (REMINDER_AT, timedelta(0), GRACE_END)
    ]
    steps += [(p.at + timedelta(minutes=i), 1, p) for i, p in enumerate(plans) if p.lines]
    steps.sort(key=lambda s: (s[0], s[1]))
    sequence = game.sequence
    sent: dict[str, tuple[Plan, datetime]] = {}
    reminder: datetime | None = None
    for at, _, plan in steps:
        if plan is None:
            deadlines.tick(at)
            reminder = reminder or (at if at == deadline + REMINDER_AT else None)
        else:
            proven = plan.lever == "token"
            execute(_text(get_game(game.name), plan), _address(plan), JUDGE, at,
                    sender_proven=proven)  # fmt: skip
            year.mails += 1
            sent[plan.power] = (plan, at)
        if get_game(game.name).sequence != sequence:
            _tally(game.name, kind, plans, sent, (reminder, deadline, at), extended, year)
            return at
    raise RuntimeError(f"{game.name} {game.phase} was not processed by the end of its grace")


def _tally(
    name: str, kind: str, plans: list[Plan], sent: dict[str, tuple[Plan, datetime]],
    times: tuple[datetime | None, datetime, datetime], extended: bool, year: Year,
) -> None:  # fmt: skip
    """What the simulation did in the phase just processed, counted as /stats counts it."""
    reminder, deadline, at = times
    month = at.strftime("%Y-%m")
    standin = "STANDIN" in str(get_game(name).rules)
    year.phases += 1
    if not plans:
        return
    for plan in plans:
        person = _address(plan)
        if plan.power in sent:
            moment = sent[plan.power][1]
            levers = [plan.lever] if plan.lever != "plain" else []
            if reminder is not None and moment > reminder:
                levers.append("reminder")
            if extended:  # voted before anyone's orders
                levers.append("extension")
            if moment > deadline:
                levers.append("grace")
            done = Done(person, "person", plan.replacement, " ".join(levers))
        else:
            done = Done(person, "standin" if standin else "none")
        e = year.expected
        for figures in (e.total, e.by_kind.setdefault(kind, Figures()),
                        e.by_month.setdefault(month, Figures()),
                        e.by_game.setdefault(name, GameFigures()).figures):  # fmt: skip
            figures.add(done)
        year.people.setdefault(person, []).append((name, done.ordered_by != "person"))
    year.expected.by_game[name].abandoned = not sent


def play_game(
    name: str, rng: random.Random, rates: Rates, at: datetime, years: int, year: Year
) -> None:
    abandon = rng.random() < rates.abandon
    game = _new_game(name, rng, rng.random() < rates.standin, at)
    first = current_position(game).phase.year
    while game.state == GameState.ACTIVE and current_position(game).phase.year < first + years:
        stop = abandon and current_position(game).phase.year > first
        moment = _play_phase(game, rng, rates, stop, year)
        game = get_game(name)
    if game.state == GameState.ACTIVE:
        finish_game(game, "DRAW", moment)


def _reliable(year: Year) -> None:
    """Players, and the reliable ones: at most 10 % NMR over their last 10 games."""
    e = year.expected
    e.players = len(year.people)
    for played in year.people.values():
        games = list(dict.fromkeys(g for g, _ in played))[-stats.RELIABLE_GAMES :]
        mine = [nmr for g, nmr in played if g in games]
        e.reliable += sum(mine) <= len(mine) * stats.RELIABLE_NMR


def simulate(games: int, years: int, seed: int, rates: Rates) -> Year:
    """Play ``games`` games of ``years`` game years on the connected database; what the
    simulation did. Reply tokens work when the settings in force have them on."""
    rng = random.Random(seed)
    year = Year()
    for n in range(games):
        play_game(f"year{n}", rng, rates, START + timedelta(days=20 * n), years, year)
    _reliable(year)
    return year


def with_tokens(settings: Settings) -> Settings:
    """The settings with Reply tokens on (an MTA named as trusted, a key)."""
    security = dataclasses.replace(settings.security, trusted_authserv_id="mta.bench.test",
                                   token_key="bench-key-not-for-production")  # fmt: skip
    return dataclasses.replace(settings, security=security)


def run(games: int, years: int, seed: int, rates: Rates) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-year-"))
    db.connect(f"sqlite:///{folder / 'judge.db'}")
    migrations.upgrade()
    use_settings(with_tokens(current_settings()))
    passwords.SCRYPT_N = 2**10  # the figures, not the cost of passwords, are measured here
    started = time.perf_counter()
    year = simulate(games, years, seed, rates)
    spent = time.perf_counter() - started
    found = stats.stats().as_json()
    wanted = year.expected.as_json()
    db.close()
    return {"games": games, "phases": year.phases, "mails": year.mails,
            "seconds": round(spent, 1), "match": found == wanted,
            "total": found["total"], "abandoned": found["abandoned"],
            "players": found["players"], "reliable": found["reliable"]}  # fmt: skip


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench year", description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--years", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    for name, value in dataclasses.asdict(Rates()).items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=float, default=value,
                        help=f"rate (default {value})")  # fmt: skip
    args = ap.parse_args(argv)
    rates = Rates(**{k: getattr(args, k) for k in dataclasses.asdict(Rates())})
    found = run(args.games, args.years, args.seed, rates)
    print(json.dumps(found, indent=1))
    return 0 if found["match"] else 1

"""`mailjudge bench standin`: the stand-in against the reference bots, and how fast it
orders.

Tournaments played in-process on the engine. In each field one player sits among six
others (benchmarks/bots.py): the stand-in (in the mode asked for) against six HoldBots,
six random bots, six of the demo's greedy players and six DumbBots, and one DumbBot
against six stand-ins. The lone player's seat turns round the seven powers game by game.
A game ends after the Winter of its last year or at a solo. Per field: the lone player's
mean centres at the end with a 95 % interval (mean +- 1.96 standard errors), its solos,
the games it survived (a centre or more at the end), and the others' solos.

Then the speed: seven stand-ins play each map (standard and others) for a few years; the
stand-in's orders for all seven powers of every phase met are timed in the process's own
CPU time (one core; other work on the machine does not lengthen it).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from mailjudge.benchmarks.bots import PLAYERS, Player
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.phases import process_phase
from mailjudge.engine.standin import CARETAKER, MODES, PLAYS, standin_texts
from mailjudge.engine.state import Phase, Position, initial_position
from mailjudge.engine.valuation import ADJUST, FALL, SPRING, values_for

TARGET_MS = 50.0
OPPONENTS = ("holdbot", "randombot", "greedy", "dumbbot")
SPEED_MAPS = ("standard", "ancmed", "modern", "world")


@dataclass(frozen=True)
class Field:
    lone: str  # the player in the one seat
    others: str  # the player in the six others

    @property
    def name(self) -> str:
        return f"{self.lone} vs 6 {self.others}"


@dataclass(frozen=True)
class Game:
    lone_centres: int
    lone_solo: bool
    others_solo: bool


def fields(mode: str, lone: str | None = None) -> list[Field]:
    """The stand-in (or ``lone``: another player, for comparison) against each reference
    bot, and one DumbBot against six stand-ins."""
    me = "standin" if mode == PLAYS else "caretaker"
    return [Field(lone or me, o) for o in OPPONENTS] + [Field("dumbbot", me)]


def play(
    gmap: GameMap, seats: dict[str, Player], name: str, last_year: int
) -> tuple[Position, frozenset[str]]:
    """A game from the start to the end of ``last_year`` or a solo: the last board, winners."""
    pos = initial_position(gmap)
    while pos.phase.year <= last_year:
        orders = {p: seats[p](gmap, pos, p, name) for p in gmap.power_names}
        outcome = process_phase(gmap, pos, orders)
        if outcome.winners:
            return outcome.next, outcome.winners
        pos = outcome.next
    return pos, frozenset()


def one_game(args: tuple[Field, int, int, int]) -> Game:
    field, number, seed, years = args
    gmap = load_map("standard")
    lone = gmap.power_names[number % len(gmap.power_names)]
    seats = {p: PLAYERS[field.lone if p == lone else field.others] for p in gmap.power_names}
    name = f"bench{seed}-{field.lone}-{field.others}-{number}"
    pos, winners = play(gmap, seats, name, Phase.parse(gmap.first_phase).year + years - 1)
    return Game(pos.centre_counts().get(lone, 0), lone in winners, bool(winners - {lone}))


def interval(values: list[int]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval."""
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def field_line(field: Field, games: list[Game]) -> str:
    mean, half = interval([g.lone_centres for g in games])
    alive = sum(1 for g in games if g.lone_centres > 0)
    solos = sum(g.lone_solo for g in games)
    theirs = sum(g.others_solo for g in games)
    return (
        f"  {field.name:<26} {mean:5.2f} +- {half:4.2f} centres; solos {solos},"
        f" survived {alive}/{len(games)}, the others' solos {theirs}"
    )


def speed(mode: str, years: int) -> Iterator[tuple[str, float, list[float]]]:
    """Per map, the ms the map's value tables take to build (once a process), and the ms of
    the stand-in's orders for every power of every phase met."""
    for name in SPEED_MAPS:
        gmap = load_map(name)
        pos = initial_position(gmap)
        started = time.process_time()
        values_for(gmap, pos, gmap.power_names[0], SPRING)
        values_for(gmap, pos, gmap.power_names[0], FALL)
        values_for(gmap, pos, gmap.power_names[0], ADJUST)
        tables = (time.process_time() - started) * 1000
        last = pos.phase.year + years - 1
        times: list[float] = []
        while pos.phase.year <= last:
            started = time.process_time()
            orders = standin_texts(gmap, pos, gmap.power_names, f"speed-{name}", mode=mode)
            times.append((time.process_time() - started) * 1000)
            outcome = process_phase(gmap, pos, orders)
            if outcome.winners:
                break
            pos = outcome.next
        yield name, tables, times


def run(
    games: int, years: int, seed: int, mode: str, jobs: int = 1, lone: str | None = None
) -> list[str]:
    lines = [
        f"mailjudge bench standin --mode {mode} --games {games} --years {years} --seed {seed}"
        f"{f' --lone {lone}' if lone else ''}:"
        f" {games} games a field, seats rotated, centres at the end of year {years}"
        " of the game (1900 + years on the standard map) or at a solo"
    ]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for field in fields(mode, lone):
            work = [(field, n, seed, years) for n in range(games)]
            lines.append(field_line(field, list(pool.map(one_game, work, chunksize=4))))
    for name, tables, ms in speed(mode, 5):
        verdict = "under" if max(ms) < TARGET_MS else "NOT under"
        lines.append(
            f"  speed on {name}: all powers' orders, {len(ms)} phases (CPU): median"
            f" {statistics.median(ms):.2f} ms, worst {max(ms):.2f} ms ({verdict} {TARGET_MS:g} ms);"
            f" the map's value tables, once a process: {tables:.0f} ms"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench standin", description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="games a field (default 200)")
    ap.add_argument("--years", type=int, default=15, help="game years a game lasts (15)")
    ap.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    ap.add_argument("--mode", choices=MODES, default=PLAYS, help=f"{PLAYS} or {CARETAKER}")
    ap.add_argument("--jobs", type=int, default=1, help="processes to play in (default 1)")
    ap.add_argument(
        "--lone", choices=sorted(PLAYERS), help="another player in the stand-in's seat, to compare"
    )
    args = ap.parse_args(argv)
    print("\n".join(run(args.games, args.years, args.seed, args.mode, args.jobs, args.lone)))
    return 0

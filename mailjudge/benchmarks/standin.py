"""`mailjudge bench standin`: how well the stand-in (engine/standin.py) keeps a silent
power's centres, and how fast it orders.

Each seeded game deals one power (the seven in turn) to the stand-in; the other six are
played by the demo's players, each at random (engine/randomplay.py) or greedy
(demo/greedy.py), the mix drawn from the game's seed. The same game is then played again
from the same start with the same seeds for the others, the dealt power left to hold
(civil disorder: its units hold, its dislodged units disband, it builds nothing and loses
units by the civil-disorder rule). After five game years the dealt power's centres are
counted in both. The stand-in's orders for all seven powers of every movement phase of
the stand-in games are timed too: the process's own CPU time, one core (other work on the
machine does not lengthen it).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mailjudge.demo.greedy import greedy_orders
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.standin import standin_texts
from mailjudge.engine.state import MOVEMENT, Position, initial_position

TARGET_MS = 50.0
YEARS = 5
Orders = dict[str, list[str]]


@dataclass
class Pair:
    """One game played twice: the dealt power's centres with the stand-in and holding."""

    power: str
    standin: int
    hold: int


@dataclass
class Figures:
    pairs: list[Pair] = field(default_factory=list)
    phase_ms: list[float] = field(default_factory=list)  # all seven powers, movement


def _players(seed: int, game: int, dealt: str, gmap: GameMap) -> dict[str, str]:
    """Who plays each of the other six: "random" or "greedy", drawn from the seed."""
    rng = random.Random(f"players:{seed}:{game}")
    return {p: rng.choice(("random", "greedy")) for p in gmap.power_names if p != dealt}


def _others_orders(
    gmap: GameMap, pos: Position, players: dict[str, str], seed: int, game: int
) -> Orders:
    """The six others' orders: each phase's draws depend on the seed and phase only, so
    both plays of a game give the others the same dice."""
    rng = random.Random(f"others:{seed}:{game}:{pos.phase}")
    everyone = random_orders(gmap, pos, rng)
    orders: Orders = {}
    for power, kind in sorted(players.items()):
        if kind == "random":
            if power in everyone:
                orders[power] = everyone[power]
        else:
            own = greedy_orders(
                gmap, pos, power, random.Random(f"{seed}:{game}:{power}:{pos.phase}")
            )
            if own:
                orders[power] = own
    return orders


Dealt = Callable[[Position], Orders]


def play_game(
    gmap: GameMap, seed: int, game: int, dealt: str, dealt_orders: Dealt
) -> tuple[int, list[Position]]:
    """Five years from the start; the dealt power's centres at the end, and the movement
    positions met."""
    players = _players(seed, game, dealt, gmap)
    pos = initial_position(gmap)
    last = pos.phase.year + YEARS
    moves: list[Position] = []
    while pos.phase.year < last:
        if pos.phase.type == MOVEMENT:
            moves.append(pos)
        orders = _others_orders(gmap, pos, players, seed, game) | dealt_orders(pos)
        outcome = process_phase(gmap, pos, orders)
        pos = outcome.next
        if outcome.winners:
            break
    return pos.centre_counts().get(dealt, 0), moves


def compare(gmap: GameMap, seed: int, game: int) -> tuple[Pair, list[float]]:
    """One game, played with the stand-in and left to hold; the ms of the stand-in's
    orders for all seven powers in each movement phase of the stand-in's play."""
    dealt = gmap.power_names[game % len(gmap.power_names)]
    name = f"bench{seed}-{game}"

    def by_standin(pos: Position) -> Orders:
        return standin_texts(gmap, pos, [dealt], name)

    kept, moves = play_game(gmap, seed, game, dealt, by_standin)
    held, _ = play_game(gmap, seed, game, dealt, lambda pos: {})
    times = []
    for pos in moves:
        started = time.process_time()
        standin_texts(gmap, pos, gmap.power_names, name)
        times.append((time.process_time() - started) * 1000)
    return Pair(dealt, kept, held), times


def run(games: int, seed: int) -> Figures:
    gmap = load_map("standard")
    figures = Figures()
    for game in range(games):
        pair, times = compare(gmap, seed, game)
        figures.pairs.append(pair)
        figures.phase_ms += times
    return figures


def report(figures: Figures, games: int, seed: int) -> list[str]:
    pairs = figures.pairs
    better = sum(1 for p in pairs if p.standin > p.hold)
    equal = sum(1 for p in pairs if p.standin == p.hold)
    worse = len(pairs) - better - equal
    lines = [
        f"mailjudge bench standin: {games} seeded games (seed {seed}), {YEARS} game years each;"
        " the six others random or greedy, one power (the seven in turn) by the stand-in,"
        " then the same game with that power left to hold",
        f"  centres after {YEARS} years: stand-in {statistics.mean(p.standin for p in pairs):.2f}"
        f" on average, holding {statistics.mean(p.hold for p in pairs):.2f}",
        f"  the stand-in did better in {better} games, as well in {equal}, worse in {worse}",
    ]
    by_power: dict[str, list[Pair]] = {}
    for p in pairs:
        by_power.setdefault(p.power, []).append(p)
    for power, mine in sorted(by_power.items()):
        lines.append(
            f"    {power:<8} stand-in {statistics.mean(p.standin for p in mine):5.2f}, "
            f"holding {statistics.mean(p.hold for p in mine):5.2f} ({len(mine)} games)"
        )
    ms = figures.phase_ms
    if ms:
        verdict = "under" if max(ms) < TARGET_MS else "NOT under"
        lines.append(
            f"  the stand-in's orders for all seven powers, {len(ms)} movement phases (CPU): "
            f"median {statistics.median(ms):.2f} ms, worst {max(ms):.2f} ms "
            f"({verdict} the {TARGET_MS:g} ms target)"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench standin", description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="seeded games (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    args = ap.parse_args(argv)
    figures = run(args.games, args.seed)
    print("\n".join(report(figures, args.games, args.seed)))
    return 0

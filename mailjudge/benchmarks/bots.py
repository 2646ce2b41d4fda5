"""The players of `mailjudge bench standin`: each gives one power's order lines for a phase.

- holdbot: every unit holds (no order at all: the engine's default), it never builds, and
  it loses units by the civil-disorder rule;
- randombot: a random legal order for every unit (engine/randomplay.py);
- greedy: the demo's greedy player (demo/greedy.py);
- dumbbot: our DumbBot, from its published design (benchmarks/dumbbot.py);
- standin / caretaker: the judge's stand-in, playing or as a caretaker (engine/standin.py).

A player's draws come from the game's name, the phase and the power only, so a game
replays the same.
"""

from __future__ import annotations

from collections.abc import Callable

from mailjudge.benchmarks.dumbbot import dumbbot_orders
from mailjudge.demo.greedy import greedy_orders
from mailjudge.engine.maps import GameMap
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.standin import CARETAKER, PLAYS, rng_for, standin_texts
from mailjudge.engine.state import Position

Player = Callable[[GameMap, Position, str, str], list[str]]  # map, board, power, game name


def holdbot(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return []


def randombot(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return random_orders(gmap, pos, rng_for(game, str(pos.phase), power)).get(power, [])


def greedy(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return greedy_orders(gmap, pos, power, rng_for(game, str(pos.phase), power))


def dumbbot(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return [str(o) for o in dumbbot_orders(gmap, pos, power, rng_for(game, str(pos.phase), power))]


def standin(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return standin_texts(gmap, pos, [power], game, mode=PLAYS).get(power, [])


def caretaker(gmap: GameMap, pos: Position, power: str, game: str) -> list[str]:
    return standin_texts(gmap, pos, [power], game, mode=CARETAKER).get(power, [])


PLAYERS: dict[str, Player] = {
    "holdbot": holdbot,
    "randombot": randombot,
    "greedy": greedy,
    "dumbbot": dumbbot,
    "standin": standin,
    "caretaker": caretaker,
}

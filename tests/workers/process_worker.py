"""A judge worker in its own process, for the race tests: wait for the starting gun, then
try to process the phase it was told about, and print what happened."""

from __future__ import annotations

import sys
import time

from mailjudge.game.state import get_game
from mailjudge.service import processing
from mailjudge.store import db


def main(url: str, game_name: str, sequence: int, start_at: float) -> None:
    db.connect(url)
    game = get_game(game_name)
    time.sleep(max(0.0, start_at - time.time()))
    done = processing.process(game, force=True, expected_sequence=sequence)
    print("processed" if done is not None else "skipped", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))

"""A game of random orders for the benchmarks that measure what its pages and mails are."""

from __future__ import annotations

import random
from collections.abc import Callable

from mailjudge.engine.randomplay import random_orders
from mailjudge.game.outcomes import Processed
from mailjudge.game.state import current_position, game_map, get_game
from mailjudge.service import processing
from mailjudge.service.orders import submit_orders
from mailjudge.store.models import Seat, utcnow


def play_random(
    name: str,
    phases: int,
    rng: random.Random,
    after: Callable[[Processed], None] | None = None,
) -> list[str]:
    """Up to ``phases`` phases of the active game ``name``, each power's random legal orders
    submitted by its seat and the phase processed (``after`` is told of each); the phases
    played so far."""
    for _ in range(phases):
        game = get_game(name)
        if game.state != "active":
            break
        orders = random_orders(game_map(game), current_position(game), rng)
        for power, lines in orders.items():
            seat = Seat.get_or_none((Seat.game == game) & (Seat.powers == power))
            if lines and seat is not None:
                submit_orders(game, seat, power, list(lines))
        done = processing.process(get_game(name), force=True, now=utcnow())
        if done is not None and after is not None:
            after(done)
    return [r.phase for r in processing.history(get_game(name))]

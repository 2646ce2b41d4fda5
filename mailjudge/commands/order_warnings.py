"""The warnings on a seat's orders (engine/order_warnings.py) as lines, for the answer to
an orders mail and for STATUS. Only the seat's own orders are read: in Double a player's
own lines for a shared power (never the partner's, even where STATUS shows them), and
never another power's."""

from __future__ import annotations

from collections.abc import Sequence

from mailjudge.engine.order_warnings import order_warnings
from mailjudge.engine.readings import Readings
from mailjudge.game import fog
from mailjudge.game.state import current_position, game_map, has_rule, orders_on_file
from mailjudge.render import render
from mailjudge.service.games import passive_now
from mailjudge.store.models import Game, Seat
from mailjudge.variants import variant_of


def _own_orders(game: Game, seat: Seat, power: str) -> dict[str, list[str]]:
    """The orders on file the seat counts as its own, by power: every power it holds
    (a player holding two sees how one's orders fit the other's), and ``power``."""
    on_file = orders_on_file(game)
    own_only = variant_of(game).people.orders_per_player and seat.role == "player"
    known: dict[str, list[str]] = {}
    for held in {*seat.powers, power}:
        lines = on_file.get(held, [])
        known[held] = [
            line.text for line in lines
            if not own_only or line.submitted_by_id in (seat.id, None)
        ]  # fmt: skip
    return known


def warning_lines(
    game: Game, seat: Seat, power: str, given: Sequence[str] | None = None, indent: str = "",
    read: Readings | None = None,
) -> list[str]:  # fmt: skip
    """The warnings on ``power``'s orders: ``given`` (the set just filed, as the answer
    lists it) or, when None, the seat's own orders on file. Nothing for a power nobody
    orders now (Survive's outcasts, Diplonomic's civil disorder). ``read``: the lines
    read already."""
    if not game.phase or game.position is None or power in passive_now(game):
        return []
    if given is not None and not set(seat.powers) - {power}:
        known = {power: list(given)}  # the set just filed is all there is to read
    else:
        known = _own_orders(game, seat, power)
        if given is not None:
            known[power] = list(given)
    found = order_warnings(
        game_map(game), fog.board_for(game, current_position(game), power), power, known,
        build_any=has_rule(game, "BUILD_ANY"), lines=read,
    )  # fmt: skip
    if not found:
        return []
    text = render("order_warnings.txt.j2", warnings=found)
    return [indent + line for line in text.rstrip("\n").splitlines()]

"""Rule 17: "A Move order making use of a Convoy must specify what Convoy paths it will
use or conditionals to determine such." An army's move that needs a convoy (to a
province it cannot walk to, or marked VIA) is taken only with its path of seas."""

from __future__ import annotations

from mailjudge.engine.checker import parse_order
from mailjudge.engine.maps import ARMY, GameMap
from mailjudge.engine.orders import Move, OrderError
from mailjudge.engine.state import MOVEMENT, Position


def pathless_convoys(gmap: GameMap, pos: Position, power: str, texts: list[str]) -> list[str]:
    """The convoyed moves among ``texts`` that give no path, in canonical text."""
    if pos.phase.type != MOVEMENT:
        return []
    found = []
    for text in texts:
        try:
            order = parse_order(text, pos, power, gmap)
        except OrderError:
            continue  # the order's own check reports it
        if type(order) is not Move or order.unit.type != ARMY or order.route:
            continue
        walks = order.dest in gmap.army_moves.get(order.unit.province, ())
        if order.via or not walks:
            found.append(str(order))
    return found


def refusal(gmap: GameMap, pos: Position, power: str, texts: list[str]) -> str | None:
    """Why the set is refused, with how to write each move; None: nothing to refuse."""
    pathless = pathless_convoys(gmap, pos, power, texts)
    if not pathless:
        return None
    moves = "; ".join(pathless)
    return (
        f"rule 17: a move by convoy must specify the convoy path it will use: {moves}. Write"
        " the seas in order, as in A LON - NTH - BEL (or A LON - ENG - MAO - SPA); nothing"
        " of this set was filed and the orders on file stand"
    )

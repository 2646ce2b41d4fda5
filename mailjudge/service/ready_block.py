"""The data of a seat's ready-to-send block (render/ready_block.py writes it).

Only a player's seat gets one, for the powers it holds that have something to order in the
current phase (a passive power, out of the game, has none). Observers and the master order
nothing of their own; Democratic's citizens order by proposals and votes, not by an ORDERS
block, so their mails carry none. Where partners share a power (Double) a player's orders
replace only their own, so the block holds only theirs: never the partner's. Nor does it
write the judge's default for a unit they have not ordered (the variant's answer to
``Unordered`` says so): sent back, the default would be their order, set against
the partner's (Lytton's rule 1 has the partner's order stand for a missing one), so a
block from one partner changes only what that partner changed.
"""

from __future__ import annotations

from mailjudge.engine.adjustments import adjustment_due
from mailjudge.engine.fog import fogged_for
from mailjudge.engine.legal import comment_line, legal_orders
from mailjudge.engine.orders import Disband, Hold, Order, OrderError
from mailjudge.engine.reader import read_order
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, Position
from mailjudge.game.fog import fog_running
from mailjudge.game.reply_tokens import token_for
from mailjudge.game.state import current_position, game_map, has_rule, order_texts
from mailjudge.render.ready_block import DEFAULT_NOTE, PowerBlock, UnitLines, ready_block
from mailjudge.service.orders import powers_to_order
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.questions import Unordered


def ready_lines(game: Game, seat: Seat) -> list[str]:
    """The block for ``seat`` in ``game``'s current phase; [] when it has nothing to order."""
    if seat.role != "player" or game.state != GameState.ACTIVE or not seat.powers:
        return []
    pos = current_position(game)
    owing = powers_to_order(game, pos)
    variant = variant_of(game)
    own = seat.id if variant.people.orders_per_player else None
    said = variant.people.lines(Unordered(game, pos.phase.type))
    unordered = said[0] if said else None
    made = [_power_block(game, pos, p, own, unordered) for p in seat.powers if p in owing]
    blocks = [b for b in made if b is not None]
    signon = f"{seat.name.lower()}@{game.name}"
    return ready_block(
        signon, pos.phase.long_name(), blocks, token_for(game, seat), phase_code=str(pos.phase)
    )


def _power_block(
    game: Game, pos: Position, power: str, own: int | None, unordered: str | None
) -> PowerBlock | None:
    """``own``: only the orders this seat sent count as on file (and those nobody's seat
    sent), as STATUS shows them to a Double player. ``unordered``: a unit with nothing on
    file gets no order line, and this note instead of the default's."""
    gmap = game_map(game)
    # Under fog of war the orders offered name only the units the power sees.
    seen = fogged_for(gmap, pos, (power,)) if fog_running(game) else pos
    legal = legal_orders(gmap, seen, power, build_any=has_rule(game, "BUILD_ANY"))
    if not legal:
        return None
    on_file = [text for text, by in order_texts(game, power) if own is None or by in (own, None)]
    if pos.phase.type == ADJUSTMENT:
        return _adjustment_block(pos, power, legal, on_file, unordered)
    by_province: dict[str, str] = {}
    for text in on_file:
        try:
            syntax = read_order(text, gmap, pos.phase.type)
        except OrderError:
            continue
        if syntax.loc is not None:
            by_province.setdefault(syntax.loc[0], text)
    units = []
    for province, orders in legal.items():
        filed = by_province.get(province)
        if filed is not None:
            lines: tuple[str, ...] = (filed,)
        else:
            lines = () if unordered else (_default(orders, pos.phase.type == MOVEMENT),)
        units.append(UnitLines(lines, filed is None, comment_line(orders)))
    return PowerBlock(power, tuple(units), default_note=unordered or DEFAULT_NOTE)


def _default(orders: list[Order], movement: bool) -> str:
    """What the judge enters for a unit with no order: it holds, or when dislodged it is
    disbanded."""
    wanted = Hold if movement else Disband
    return next(str(order) for order in orders if isinstance(order, wanted))


def _adjustment_block(
    pos: Position,
    power: str,
    legal: dict[str, list[Order]],
    on_file: list[str],
    unordered: str | None,
) -> PowerBlock:
    due = adjustment_due(pos, power)
    if due > 0:
        due = min(due, len(legal))  # no more builds than vacant sites
        note = f"{power} may build {due} unit{'s' if due > 1 else ''}"
        default = ("WAIVE",) * due
        default_note = "builds not ordered are waived"
    else:
        note = f"{power} must remove {-due} unit{'s' if due < -1 else ''}"
        default = ()
        default_note = "removals not ordered are chosen by the game's rule"
    filed = tuple(on_file)
    orders = UnitLines(filed or (() if unordered else default), not filed, "")
    choices = tuple(UnitLines((), False, comment_line(o)) for o in legal.values())
    notes = (f"{note}:", f"{default_note}." if not unordered else "")
    return PowerBlock(
        power, (orders, *choices), tuple(n for n in notes if n), unordered or DEFAULT_NOTE
    )

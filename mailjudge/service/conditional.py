"""njudge's conditional orders (IF ... ELSE ... ENDIF after a PHASE line): kept with their
phase, each order beside the condition it depends on, and resolved against the board when
that phase begins.

The stored form is the order line on file for that later phase, written
``IF <condition>: <order>`` (the condition in its canonical form). When the phase begins,
each such line whose condition holds on the new board becomes a plain order, laid over any
other order sent ahead for the same unit; the others are withdrawn. Orders sent during the
phase replace them as usual.
"""

from __future__ import annotations

from mailjudge.engine.conditions import ConditionError, parse_condition
from mailjudge.engine.orders import OrderError
from mailjudge.engine.reader import read_order
from mailjudge.engine.state import Phase
from mailjudge.game import fog
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import current_position, game_map, require_active
from mailjudge.permissions.policy import may_order_for
from mailjudge.service.orders import FutureOrders, ahead_check, unit_of
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, OrderLine, Seat, utcnow

PREFIX = "IF "
SEPARATOR = ": "


def stored_text(condition: str, order: str) -> str:
    return f"{PREFIX}{condition}{SEPARATOR}{order}"


def split_stored(text: str) -> tuple[str, str] | None:
    """(condition, order) of a conditional line on file; None for a plain order."""
    if not text.startswith(PREFIX) or SEPARATOR not in text:
        return None
    condition, order = text[len(PREFIX) :].rsplit(SEPARATOR, 1)
    return condition, order


def file_conditional_orders(
    game: Game, seat: Seat, phase_text: str, condition: str, texts: list[str]
) -> FutureOrders:
    """Order lines for a later phase that stand only if ``condition`` (canonical text)
    holds when it begins. Each line must read as an order of that phase's kind."""
    require_active(game)
    try:
        target = Phase.from_words(phase_text)
    except ValueError as err:
        raise ServiceError(str(err)) from None
    now_phase = current_position(game).phase
    if target.order_key() <= now_phase.order_key():
        raise ServiceError(f"{target} is not a later phase than {now_phase}")
    powers = [p for p in seat.powers if may_order_for(seat, p)]
    if len(powers) != 1:
        raise NotAllowed("orders sent ahead are for a player with one power")
    power = powers[0]
    gmap = game_map(game)
    report = FutureOrders(str(target), power)
    fresh: list[str] = []
    for line in texts:
        try:
            order = ahead_check(game, line, read_order(line, gmap, target.type))
            fresh.append(stored_text(condition, str(order)))
        except OrderError as err:
            report.errors.append((line.strip(), f"{err.kind}: {err}"))
    here = (
        (OrderLine.game == game.id) & (OrderLine.phase == str(target)) & (OrderLine.power == power)
    )
    rows = list(OrderLine.select().where(here).order_by(OrderLine.line))
    on_file = [row.text for row in rows]
    start = max((row.line for row in rows), default=-1) + 1
    now = utcnow()
    with database_proxy.atomic():
        for n, text in enumerate(t for t in fresh if t not in on_file):
            OrderLine.create(game=game, phase=str(target), power=power, line=start + n,
                             text=text, submitted_by=seat, submitted_at=now)  # fmt: skip
    report.accepted = on_file + [t for t in fresh if t not in on_file]
    return report


def resolve_conditional_orders(game: Game) -> list[str]:
    """The phase ``game`` is now at has begun: each conditional line on file for it is
    filed as its order if its condition holds on this board, else withdrawn. Where a unit
    is then left with several orders sent ahead, the last one sent stands (as when plain
    orders are sent ahead twice). Returns one note a line, saying what was decided."""
    rows = list(
        OrderLine.select()
        .where((OrderLine.game == game.id) & (OrderLine.phase == game.phase))
        .order_by(OrderLine.power, OrderLine.line)
    )
    if not any(split_stored(row.text) for row in rows):
        return []
    gmap = game_map(game)
    pos = current_position(game)
    notes: list[str] = []
    standing: list[OrderLine] = []
    with database_proxy.atomic():
        for row in rows:
            parts = split_stored(row.text)
            if parts is None:
                standing.append(row)
                continue
            condition, order = parts
            try:
                # Under fog of war a condition is judged on what its power sees.
                holds = parse_condition(condition, gmap).holds(fog.board_for(game, pos, row.power))
            except ConditionError:
                holds = False  # read when filed; only a changed map could make it unreadable
            notes.append(
                f"{row.power}: IF {condition} "
                + (f"holds, filed: {order}" if holds else f"is false, not filed: {order}")
            )
            if holds:
                row.text = order
                row.save()
                standing.append(row)
            else:
                row.delete_instance()
        last: dict[tuple[str, str], OrderLine] = {}
        for row in standing:  # in line order, so a later line replaces an earlier one
            unit = unit_of(row.text, gmap, pos.phase.type)
            if unit is None:
                continue
            earlier = last.get((row.power, unit))
            if earlier is not None:
                earlier.delete_instance()
            last[(row.power, unit)] = row
    return notes

"""Diplonomic rule 15 (seed 003): retreats and builds given with the turn's orders.

"Each set of orders should specify what eir units will do and how they will retreat and
disband if necessary. When appropriate, orders should also contain conditionals for the
creation and destruction of units."

Under the RULE15 timing a contestant may send, in a movement phase:

    IF DISLODGED A PAR R BUR      (or IF DISLODGED A PAR D: disband)
    IF ADJUSTING BUILD A PAR      (after a Fall turn: also REMOVE A MUN, WAIVE)

They are filed as orders of the phase they are for (the retreat phase of this season, the
winter adjustments after a Fall), so when that phase comes they are on file at once, and
the phase is processed as soon as every power that owes orders has them, without waiting
for its deadline. A contestant who gave none gets the phase's usual deadline; orders given
in advance may still be changed in the phase itself. A retreat given for a unit that was
not dislodged is dropped when the retreat phase begins.
"""

from __future__ import annotations

from mailjudge.engine.checker import entry_check
from mailjudge.engine.orders import IllegalOrder, OrderError
from mailjudge.engine.reader import read_order
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT
from mailjudge.engine.timing import RULE15
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Readiness
from mailjudge.game.schedule import timing_of
from mailjudge.game.state import (
    current_position,
    game_map,
    has_rule,
    require_active,
)
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, OrderLine, Seat, utcnow

USAGE = "IF DISLODGED A PAR R BUR | IF DISLODGED A PAR D | IF ADJUSTING BUILD A PAR"


def takes_advance_orders(game: Game) -> bool:
    return timing_of(game).preset == RULE15


def file_advance_order(game: Game, seat: Seat, when: str, text: str) -> tuple[str, str, str]:
    """File one order for the coming retreat (``when`` DISLODGED) or adjustment phase
    (ADJUSTING); it replaces an earlier one for the same unit or site. Returns the phase
    it is for, the power and the order as the judge reads it."""
    require_active(game)
    if not takes_advance_orders(game):
        raise NotAllowed("orders in advance (IF ...) are for games with the RULE15 timing")
    pos = current_position(game)
    if pos.phase.type != MOVEMENT:
        raise NotAllowed(
            f"IF orders go with a movement phase's orders; in {game.phase} order directly"
        )
    gmap = game_map(game)
    when = when.upper()
    if when == "DISLODGED":
        phase, phase_type = f"{pos.phase.season}{pos.phase.year}R", RETREAT
    elif when == "ADJUSTING":
        if pos.phase.season != "F":
            raise NotAllowed("units are built and removed after a Fall turn; give these in Fall")
        phase, phase_type = f"W{pos.phase.year}A", ADJUSTMENT
    else:
        raise ServiceError(f"write {USAGE}")
    try:
        syntax = entry_check(read_order(text, gmap, phase_type))
    except OrderError as err:
        raise ServiceError(f"{err}; write {USAGE}") from None
    if syntax.kind not in ("retreat", "disband", "build", "remove", "waive"):
        raise ServiceError(f"{text!r} is no {phase_type} order; write {USAGE}")
    power = _power_of(game, seat, syntax.kind, syntax.loc, phase_type)
    canonical = str(syntax)
    key = syntax.loc[0] if syntax.loc is not None else None
    with database_proxy.atomic():
        mine = OrderLine.select().where(
            (OrderLine.game == game) & (OrderLine.phase == phase) & (OrderLine.power == power)
        )
        kept = [line.text for line in mine if key is None or _province(line.text) != key]
        if key is None and canonical in kept:
            kept.remove(canonical)
        OrderLine.delete().where(
            (OrderLine.game == game) & (OrderLine.phase == phase) & (OrderLine.power == power)
        ).execute()
        now = utcnow()
        for n, line in enumerate([*kept, canonical]):
            OrderLine.create(game=game, phase=phase, power=power, line=n, text=line,
                             submitted_by=seat, submitted_at=now)  # fmt: skip
    return phase, power, canonical


def _province(text: str) -> str | None:
    words = text.split()
    return words[1].split("/")[0].lower() if len(words) > 1 else None


def _gives_orders(seat: Seat) -> bool:
    """A contestant orders for its power; a teammate for its contestant's while it is
    authorized (rule 7); the master names the power."""
    if seat.role == "teammate":
        return bool(seat.authorized) and seat.status == "active"
    return seat.role == "player"


def _power_of(
    game: Game, seat: Seat, kind: str, loc: tuple[str, str | None] | None, phase_type: str
) -> str:
    """The seat's power the order is for: the unit's owner now (a retreat), the home
    centre's power (a build), or the seat's only power."""
    pos = current_position(game)
    gmap = game_map(game)
    mine = list(seat.powers) if _gives_orders(seat) else []
    owner: str | None = None
    if kind in ("retreat", "disband") and loc is not None:
        unit = pos.units.get(loc[0])
        if unit is None:
            raise IllegalOrder(f"there is no unit in {loc[0].upper()} to retreat if dislodged")
        owner = unit.power
    elif kind == "build" and loc is not None and not has_rule(game, "BUILD_ANY"):
        owner = next((p for p, homes in gmap.home_centres.items() if loc[0] in homes), None)
    elif len(mine) == 1:
        owner = mine[0]
    if owner is None and len(mine) == 1:
        owner = mine[0]
    if owner is None or owner not in mine:
        raise NotAllowed(
            f"that {phase_type} order is not for a power you order for"
            + (f" ({owner} is not yours)" if owner else "")
        )
    return owner


def drop_undislodged(game: Game) -> None:
    """When a retreat phase begins: retreats given in advance for units that were not
    dislodged have nothing to do."""
    pos = current_position(game)
    if pos.phase.type != RETREAT:
        return
    for line in OrderLine.select().where(
        (OrderLine.game == game) & (OrderLine.phase == game.phase)
    ):
        if _province(line.text) not in pos.dislodged:
            line.delete_instance()


def ready_early(game: Game, standard: Readiness) -> bool:
    """Rule 15: a retreat or adjustment phase whose orders are all on file (given in
    advance, or since) goes ahead without waiting for its deadline. ``standard`` counts
    the late powers of such a phase."""
    if not takes_advance_orders(game) or game.phase is None or game.phase.endswith("M"):
        return False
    return not standard.waiting_for

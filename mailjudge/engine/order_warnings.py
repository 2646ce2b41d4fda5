"""Warnings, never errors, for orders that do not fit together.

Every order here is legal on its own; these are the sets a player most likely did not
mean: a support of their own unit's move that the unit was not ordered to make, a support
to hold of their own unit that moves, a convoy of their own army that is ordered
elsewhere, an army sent across water with none of their fleets to carry it, and units
(or builds and removals) left without orders, with what the judge then does.

Only the reader's own orders are looked at: a unit of another power may do anything, so
nothing is said about supports or convoys of it, and a foreign fleet might yet convoy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.checker import check_order
from mailjudge.engine.maps import ARMY, GameMap
from mailjudge.engine.orders import (
    Build,
    Convoy,
    Move,
    Order,
    OrderError,
    Remove,
    SupportHold,
    SupportMove,
    Waive,
)
from mailjudge.engine.readings import Readings
from mailjudge.engine.state import MOVEMENT, RETREAT, Position, Unit

# The kinds of warning.
SUPPORT_NOT_MATCHED = "support-not-matched"  # supports a move its own unit does not make
SUPPORTED_HOLD_MOVES = "supported-hold-moves"  # supports a hold of its own unit that moves
CONVOY_NOT_MATCHED = "convoy-not-matched"  # convoys its own army, ordered elsewhere
NO_CONVOY = "no-convoy"  # its own army goes across water, no own fleet carries it all the way
NO_ORDER = "no-order"  # a unit without an order: it holds, or disbands in a retreat phase
BUILDS_SHORT = "builds-short"  # fewer builds (and waives) than the power may make
REMOVALS_SHORT = "removals-short"  # fewer removals than the power must make


class OrderWarning(NamedTuple):
    unit: str  # the unit it is about, as "A PAR"; "" for a power's builds or removals
    kind: str  # one of the kinds above
    words: str  # what the player reads


class _Read(NamedTuple):
    """A power's orders as the engine reads them: the order for each unit's province, and
    every province an order line names (a line the checker refuses still names its unit,
    which then is not 'without orders')."""

    orders: dict[str, Order]
    named: set[str]
    extra: list[Order]  # builds, removals and waives, which belong to no standing unit


def _read(
    power: str, texts: Sequence[str], pos: Position, read: Readings, build_any: bool
) -> _Read:
    got = _Read({}, set(), [])
    gmap = read.gmap
    for text in texts:
        try:
            syntax = read.syntax(text)
        except OrderError:
            continue
        if syntax.loc is not None:
            got.named.add(syntax.loc[0])
        try:
            order = check_order(syntax, pos, power, gmap, build_any=build_any)
        except OrderError:  # on file unchecked (NO_CHECK): the adjudicator decides
            continue
        if isinstance(order, Build | Remove | Waive):
            got.extra.append(order)
        else:
            got.orders.setdefault(order.unit.province, order)  # a second one is void
    return got


def order_warnings(
    gmap: GameMap,
    pos: Position,
    power: str,
    known: Mapping[str, Sequence[str]],
    *,
    build_any: bool = False,
    lines: Readings | None = None,
) -> list[OrderWarning]:
    """The warnings on ``power``'s orders ``known[power]``. ``known`` may also hold the
    orders of other powers the reader gives (a player holding two powers): supports and
    convoys of their units are checked against them too. Powers not in ``known`` are
    someone else's, and never warned about. ``lines``: the lines read already."""
    lines = Readings.of(lines, gmap, pos.phase.type)
    read = {p: _read(p, texts, pos, lines, build_any) for p, texts in known.items()}
    mine = read.get(power, _Read({}, set(), []))
    if pos.phase.type == MOVEMENT:
        return _movement(gmap, pos, power, mine, read)
    if pos.phase.type == RETREAT:
        return [
            OrderWarning(str(d.unit), NO_ORDER, f"{d.unit} has no order: it will be disbanded")
            for prov, d in sorted(pos.dislodged.items())
            if d.unit.power == power and prov not in mine.named
        ]
    return _adjustments(gmap, pos, power, mine, build_any)


def _movement(
    gmap: GameMap, pos: Position, power: str, mine: _Read, read: Mapping[str, _Read]
) -> list[OrderWarning]:
    found: list[OrderWarning] = []
    for order in mine.orders.values():
        if isinstance(order, SupportMove | Convoy):
            known, target = _order_of(order.target, read)
            dest = gmap.loc_province.get(order.dest, order.dest)
            moves_there = isinstance(target, Move) and gmap.loc_province[target.dest] == dest
            if known and not moves_there:
                found.append(_unmatched(order, target, dest))
        elif isinstance(order, SupportHold):
            known, target = _order_of(order.target, read)
            if known and isinstance(target, Move):
                words = (
                    f"{order}: {order.target} is ordered to move (to "
                    f"{target.dest.upper()}), so a support to hold will not count"
                )
                found.append(OrderWarning(str(order.unit), SUPPORTED_HOLD_MOVES, words))
        elif isinstance(order, Move) and order.unit.type == ARMY:
            warning = _convoy_missing(gmap, order, mine)
            if warning is not None:
                found.append(warning)
    found += [
        OrderWarning(str(u), NO_ORDER, f"{u} has no order: it will hold")
        for p, u in sorted(pos.units.items())
        if u.power == power and p not in mine.named
    ]
    return found


def _order_of(unit: Unit, read: Mapping[str, _Read]) -> tuple[bool, Order | None]:
    """Whether the reader knows what ``unit`` does, and its order (None: it has none, so
    it holds). A unit of someone else's, or whose order on file could not be checked, is
    not known."""
    theirs = read.get(unit.power)
    if theirs is None or (unit.province in theirs.named and unit.province not in theirs.orders):
        return False, None
    return True, theirs.orders.get(unit.province)


def _unmatched(order: SupportMove | Convoy, target: Order | None, dest: str) -> OrderWarning:
    """A support or convoy of the reader's own unit's move that the unit is not making."""
    head = f"{order}: {order.target} is not ordered to move to {dest.upper()} ({_doing(target)})"
    if isinstance(order, SupportMove):
        words = f"{head}, so the support will not count"
        return OrderWarning(str(order.unit), SUPPORT_NOT_MATCHED, words)
    return OrderWarning(
        str(order.unit), CONVOY_NOT_MATCHED, f"{head}, so the convoy carries nothing"
    )


def _doing(order: Order | None) -> str:
    """What a unit is ordered to do, in words with no order text in them: a line the
    judge refills in its mail then never breaks inside an order (a line opening "- PIC")."""
    if order is None:
        return "it has no order, so it holds"
    if isinstance(order, Move):
        return f"it is ordered to {order.dest.upper()}"
    if isinstance(order, SupportHold | SupportMove):
        return "it is ordered to support"
    if isinstance(order, Convoy):
        return "it is ordered to convoy"
    return "it is ordered to hold"


def _convoy_missing(gmap: GameMap, move: Move, mine: _Read) -> OrderWarning | None:
    """An army of the reader's ordered to a province it does not border goes only by
    convoy: warn unless the reader's own fleets ordered to convoy it make a chain of seas
    from its coast to the destination (other powers' fleets may yet; we cannot know)."""
    src, dest = move.unit.province, gmap.loc_province[move.dest]
    if dest in gmap.army_moves.get(src, ()):
        return None  # next door: it goes by land unless a convoy is meant (and given)
    fleets = {
        prov: str(order.unit) for prov, order in mine.orders.items()
        if isinstance(order, Convoy) and order.target == move.unit and order.dest == dest
    }  # fmt: skip
    if _chain(gmap, set(fleets), src, dest):
        return None
    if not fleets:
        words = (
            f"{move}: {dest.upper()} is across water from {src.upper()} and no fleet of yours is "
            "ordered to convoy it: it moves only if other powers' fleets convoy it"
        )
    else:
        listed = ", ".join(fleets[sea] for sea in sorted(fleets))
        words = (
            f"{move}: the fleets of yours ordered to convoy it ({listed}) do not reach from "
            f"{src.upper()} to {dest.upper()}: it moves only if other powers' fleets fill the gap"
        )
    return OrderWarning(str(move.unit), NO_CONVOY, words)


def _chain(gmap: GameMap, fleets: set[str], src: str, dest: str) -> bool:
    """Do the seas ``fleets`` make a chain from ``src``'s coast to ``dest``'s?"""
    frontier = [sea for sea in gmap.coastal_water.get(src, ()) if sea in fleets]
    seen = set(frontier)
    while frontier:
        near = gmap.fleet_reach[frontier.pop()]
        if dest in near:
            return True
        for sea in near & fleets - seen:
            seen.add(sea)
            frontier.append(sea)
    return False


def _adjustments(
    gmap: GameMap, pos: Position, power: str, mine: _Read, build_any: bool
) -> list[OrderWarning]:
    due = adjustment_due(pos, power)
    if due > 0:
        allowed = min(due, len(build_sites(gmap, pos, power, build_any)))
        given = sum(1 for o in mine.extra if isinstance(o, Build | Waive))
        left = allowed - given
        if left > 0:
            rest = _rest(left, given, "it" if left == 1 else "all of them")
            words = (
                f"{power} may build {allowed} and has ordered {given}: {rest} "
                f"{'is' if left == 1 else 'are'} waived unless you order "
                f"{'it' if left == 1 else 'them'}"
            )
            return [OrderWarning("", BUILDS_SHORT, words)]
    if due < 0:
        given = sum(1 for o in mine.extra if isinstance(o, Remove))
        left = -due - given
        if left > 0:
            words = (
                f"{power} must remove {-due} and has ordered {given}: the judge chooses "
                f"{_rest(left, given, 'which')} by the game's rule for removals nobody ordered"
            )
            return [OrderWarning("", REMOVALS_SHORT, words)]
    return []


def _rest(left: int, given: int, none_given: str) -> str:
    """The adjustments still to order, as words: "the other", "the other 2", or when
    none was ordered ``none_given``."""
    if given == 0:
        return none_given
    return "the other" if left == 1 else f"the other {left}"

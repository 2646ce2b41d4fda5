"""Synchronising the two players' orders for one power in Double Diplomacy (seed 004,
the Double variant). Pure: orders in, the orders that go to adjudication out.

Per unit, in a movement phase: identical orders stand; different orders make the unit
hold; a support from one player overrules the other's hold (a unit a player left without
an order counts as held by that player); a move does not overrule a hold. In a retreat
phase an out-of-sync unit disbands. In an adjustment phase the builds (and removals) both
players ordered stand; other builds are waived, and removals still due are left to the
civil-disorder rule. Under the Lytton adjustments a player with no order for a unit (no
orders at all, or an order the judge could not accept) is replaced by the partner's order,
and an OVERRIDE order stands against the partner's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mailjudge.engine.orders import Build, Disband, Hold, Order, Remove, SupportHold, SupportMove
from mailjudge.engine.state import Unit

NO_ORDER = "no order"


@dataclass(frozen=True)
class PartnerOrders:
    """One player's valid orders for the shared power, by unit (its province)."""

    player: str
    orders: dict[str, Order] = field(default_factory=dict)
    override: str | None = None  # the province whose order is this player's OVERRIDE
    adjustments: tuple[Order, ...] = ()  # builds, removals and waives, in the order sent


@dataclass(frozen=True)
class Mismatch:
    """A unit the two players ordered differently, reported to the two of them."""

    unit: str  # "F LON"
    ordered: tuple[tuple[str, str], ...]  # (player, what they ordered)
    result: str  # what went to adjudication, or what happened to the unit


@dataclass
class Synced:
    orders: list[Order] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)


def _text(order: Order | None) -> str:
    return NO_ORDER if order is None else str(order)


def _is_support(order: Order | None) -> bool:
    return isinstance(order, SupportHold | SupportMove)


def _is_hold(order: Order | None) -> bool:
    return order is None or isinstance(order, Hold)


def _is_default(order: Order | None, retreat: bool) -> bool:
    """No order, or the order the engine would give anyway (hold; disband in a retreat)."""
    return order is None or isinstance(order, Disband if retreat else Hold)


def _pick(
    a: PartnerOrders, b: PartnerOrders, prov: str, lytton: bool, retreat: bool
) -> tuple[Order | None, bool]:
    """(what goes to adjudication, whether the players were in sync). None: hold (in a
    movement phase) or disband (in a retreat phase)."""
    mine, theirs = a.orders.get(prov), b.orders.get(prov)
    if _text(mine) == _text(theirs):
        return mine, True
    if not lytton and _is_default(mine, retreat) and _is_default(theirs, retreat):
        return None, True  # a written hold and no order are the same thing
    if lytton:
        overriding = [p.orders.get(prov) for p in (a, b) if p.override == prov]
        if len(overriding) == 1:
            return overriding[0], False
        if mine is None or theirs is None:
            return mine or theirs, False
    if not retreat and _is_hold(mine) and _is_support(theirs):
        return theirs, False
    if not retreat and _is_hold(theirs) and _is_support(mine):
        return mine, False
    return None, False


def sync_units(
    a: PartnerOrders, b: PartnerOrders, units: list[Unit], lytton: bool, retreat: bool = False
) -> Synced:
    """``units``: the power's units (movement) or its dislodged units (retreat). A unit out
    of sync gets an explicit Hold (Disband in a retreat phase), so the results show it."""
    out = Synced()
    for unit in units:
        prov = unit.province
        chosen, in_sync = _pick(a, b, prov, lytton, retreat)
        if chosen is None and not in_sync:
            chosen = Disband(unit) if retreat else Hold(unit)
        if chosen is not None:
            out.orders.append(chosen)
        if not in_sync:
            ordered = ((a.player, _text(a.orders.get(prov))), (b.player, _text(b.orders.get(prov))))
            out.mismatches.append(Mismatch(str(unit), ordered, _text(chosen)))
    return out


def sync_adjustments(a: PartnerOrders, b: PartnerOrders, lytton: bool) -> Synced:
    """Builds and removals both players ordered stand; the rest are out of sync: builds
    waived, removals left to the civil-disorder rule. Under Lytton a player who sent no
    adjustment orders is replaced by the partner's."""
    out = Synced()
    if lytton and (not a.adjustments or not b.adjustments):
        out.orders = list(a.adjustments or b.adjustments)
        return out
    theirs = [str(o) for o in b.adjustments]
    for order in a.adjustments:
        if str(order) in theirs:
            theirs.remove(str(order))
            out.orders.append(order)
        elif isinstance(order, Build | Remove | Disband):
            out.mismatches.append(_adjustment_mismatch(a, b, order))
    for order in b.adjustments:
        if str(order) in theirs and isinstance(order, Build | Remove | Disband):
            out.mismatches.append(_adjustment_mismatch(a, b, order))
    return out


def _adjustment_mismatch(a: PartnerOrders, b: PartnerOrders, order: Order) -> Mismatch:
    def said(p: PartnerOrders) -> str:
        return "; ".join(str(o) for o in p.adjustments) or NO_ORDER

    what = "waived" if isinstance(order, Build) else "left to the civil-disorder rule"
    return Mismatch(str(order), ((a.player, said(a)), (b.player, said(b))), what)

"""Orders on file: submitting (an atomic replace per power), clearing, and STATUS."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mailjudge.db import database_proxy, execute_compiled
from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.checker import check_order, entry_check
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.orders import OrderError
from mailjudge.engine.reader import read_order
from mailjudge.engine.state import MOVEMENT, RETREAT, Position
from mailjudge.models import Game, OrderLine, Seat, utcnow
from mailjudge.service.errors import NotAllowed
from mailjudge.service.games import game_map, has_rule, passive_now, require_active


@dataclass
class Submission:
    """What a player is told after ORDERS: what stands, what failed and why, what is missing."""

    power: str
    accepted: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (line as written, reason)
    missing: list[str] = field(default_factory=list)


_POSITIONS: dict[int, tuple[Any, Position]] = {}


def current_position(game: Game) -> Position:
    """The game's board, read from its stored JSON once per change (every order mail and
    every readiness check asks for it)."""
    cached = _POSITIONS.get(game.id)
    if cached is not None and cached[0] == game.position:
        return cached[1]
    pos = position_from_dict(game.position, game_map(game))
    if len(_POSITIONS) > 1000:
        _POSITIONS.clear()
    _POSITIONS[game.id] = (game.position, pos)
    return pos


def may_order_for(seat: Seat, power: str) -> bool:
    """The master may order for any power; a player for the powers they hold, and a
    Diplonomic teammate for their contestant's powers while authorized."""
    if seat.role == "master":
        return True
    if seat.role == "teammate" and not (seat.authorized and seat.status == "active"):
        return False
    return seat.role in ("player", "teammate") and power.upper() in seat.powers.split()


def submit_orders(game: Game, seat: Seat, power: str, lines: list[str]) -> Submission:
    """Replace ``power``'s orders for this phase with the valid ones among ``lines``.

    Every line is checked now (under NO_CHECK only the Urk and name checks: the rest is
    decided at processing). Under IGNORE_ERRORS bad lines are dropped without a word.
    """
    require_active(game)
    power = power.upper()
    if not may_order_for(seat, power):
        raise NotAllowed(f"{seat.name} may not order for {power}")
    if power in passive_now(game):
        from mailjudge.variants import variant_of

        raise NotAllowed(f"{power} {variant_of(game).passive_note}")
    gmap = game_map(game)
    pos = current_position(game)
    no_check = has_rule(game, "NO_CHECK")
    build_any = has_rule(game, "BUILD_ANY")
    report = Submission(power)
    kept: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            syntax = read_order(line, gmap, pos.phase.type)
            text = (
                str(entry_check(syntax))
                if no_check
                else str(check_order(syntax, pos, power, gmap, build_any=build_any))
            )
        except OrderError as err:
            if not has_rule(game, "IGNORE_ERRORS"):
                report.errors.append((line.strip(), f"{err.kind}: {err}"))
            continue
        kept.append(text)
    report.accepted = kept
    refuse_late_change(game, seat, power, kept)
    with database_proxy.atomic():
        _delete_orders(game, power, _own_only(game, seat))
        now = utcnow()
        if kept:
            rows = [
                {"game": game.id, "phase": game.phase, "power": power, "line": n, "text": text,
                 "submitted_by": seat.id, "submitted_at": now}
                for n, text in enumerate(kept)
            ]  # fmt: skip
            stamp = OrderLine.submitted_at.db_value(now)
            params = [
                v for n, text in enumerate(kept)
                for v in (game.id, game.phase, power, n, text, seat.id, stamp)
            ]  # fmt: skip
            execute_compiled(
                f"insert-orders-{len(kept)}", lambda: OrderLine.insert_many(rows), params
            )
    report.missing = missing_orders(game, pos, power, kept)
    return report


def refuse_late_change(game: Game, seat: Seat, power: str, new_set: list[str]) -> None:
    """Seed 001: "unless the LATE_CHANGES rule is specified, the CIVIL_DISORDER rule also
    enforces the NO_LATE_CHANGES rule". Past the deadline the orders on file stand as
    they are: a late mail may add orders for units that have none (a power with no
    orders may send them all) until the grace period ends, but not change or drop one.
    The master, who may order for anyone, is not held to it."""
    if seat.role == "master" or not has_rule(game, "CIVIL_DISORDER"):
        return
    if has_rule(game, "LATE_CHANGES") or has_rule(game, "NO_DEADLINE"):
        return
    if game.deadline is None or utcnow() < game.deadline:
        return
    only = _own_only(game, seat)
    changed = [
        line.text for line in orders_on_file(game).get(power, [])
        if (only is None or line.submitted_by_id == only.id) and line.text not in new_set
    ]  # fmt: skip
    if changed:
        raise NotAllowed(
            f"the deadline has passed, and under CIVIL_DISORDER orders on file may not be "
            f"changed late (NO_LATE_CHANGES): {'; '.join(changed)} stands as sent. Orders "
            "for units that have none are still taken until the grace period ends"
        )


def _own_only(game: Game, seat: Seat) -> Seat | None:
    """In a game where partners share a power (Double) a player's orders replace only
    their own; the master's replace everyone's."""
    from mailjudge.variants import variant_of

    return seat if variant_of(game).orders_per_player and seat.role == "player" else None


def _delete_orders(game: Game, power: str, only: Seat | None = None) -> None:
    here = (
        (OrderLine.game == game.id) & (OrderLine.phase == game.phase) & (OrderLine.power == power)
    )
    if only is None:
        execute_compiled("delete-orders", lambda: OrderLine.delete().where(here),
                         [game.id, game.phase, power])  # fmt: skip
        return
    mine = here & (OrderLine.submitted_by == only.id)
    execute_compiled("delete-own-orders", lambda: OrderLine.delete().where(mine),
                     [game.id, game.phase, power, only.id])  # fmt: skip


def merged_with_file(game: Game, seat: Seat, power: str, texts: list[str]) -> list[str]:
    """``power``'s orders on file with ``texts`` laid over them: a new order for a unit
    replaces that unit's order on file, and the units the texts do not name keep theirs
    (how bare order lines in a mail are read; ORDERS ... END replaces the whole set)."""
    gmap = game_map(game)
    phase_type = current_position(game).phase.type

    def unit_of(text: str) -> str | None:
        try:
            syntax = read_order(text, gmap, phase_type)
        except OrderError:
            return None
        return syntax.loc[0] if syntax.loc is not None else None

    named = {unit_of(text) for text in texts} - {None}
    only = _own_only(game, seat)
    on_file = [
        line.text for line in orders_on_file(game).get(power.upper(), [])
        if (only is None or line.submitted_by_id == only.id) and unit_of(line.text) not in named
    ]  # fmt: skip
    return on_file + texts


def clear_orders(game: Game, seat: Seat, power: str) -> None:
    require_active(game)
    if not may_order_for(seat, power):
        raise NotAllowed(f"{seat.name} may not order for {power.upper()}")
    refuse_late_change(game, seat, power.upper(), [])
    _delete_orders(game, power.upper(), _own_only(game, seat))


def orders_on_file(game: Game) -> dict[str, list[OrderLine]]:
    lines = (
        OrderLine.select()
        .where((OrderLine.game == game) & (OrderLine.phase == game.phase))
        .order_by(OrderLine.power, OrderLine.line)
    )
    table: dict[str, list[OrderLine]] = {}
    for line in lines:
        table.setdefault(line.power, []).append(line)
    return table


def missing_orders(game: Game, pos: Position, power: str, texts: list[str]) -> list[str]:
    """Units (or adjustments) of ``power`` that the texts leave without an order."""
    gmap = game_map(game)
    ordered: set[str] = set()
    count = 0
    for text in texts:
        try:
            syntax = read_order(text, gmap, pos.phase.type)
        except OrderError:
            continue
        count += 1
        if syntax.loc is not None:
            ordered.add(syntax.loc[0])
    ptype = pos.phase.type
    if ptype == MOVEMENT:
        return [
            str(u) for p, u in sorted(pos.units.items()) if u.power == power and p not in ordered
        ]
    if ptype == RETREAT:
        return [
            str(d.unit) for p, d in sorted(pos.dislodged.items())
            if d.unit.power == power and p not in ordered
        ]  # fmt: skip
    due = adjustment_due(pos, power)
    if due > 0:
        due = min(due, len(build_sites(gmap, pos, power, has_rule(game, "BUILD_ANY"))))
    left = abs(due) - count
    if left <= 0:
        return []
    plural = "s" if left > 1 else ""
    if due > 0:
        sites = build_sites(gmap, pos, power, has_rule(game, "BUILD_ANY"))
        examples = [f"A {site.upper()} B" for site in sorted(sites)[:2]]
        choices = ", ".join(examples) + ("," if len(examples) > 1 else "") + " or WAIVE"
        return [f"{left} build{plural} ({choices})"]
    units = sorted(str(u) for u in pos.units.values() if u.power == power)
    return [f"{left} removal{plural} ({units[0]} D, for instance)"] if units else []


def powers_to_order(game: Game, pos: Position) -> list[str]:
    """The powers that have something to order in this phase (passive ones never do)."""
    gmap = game_map(game)
    ptype = pos.phase.type
    passive = passive_now(game)
    if ptype == MOVEMENT:
        return sorted({u.power for u in pos.units.values()} - passive)
    if ptype == RETREAT:
        return sorted({d.unit.power for d in pos.dislodged.values()} - passive)
    build_any = has_rule(game, "BUILD_ANY")
    out = []
    for power in sorted(set(gmap.power_names) - passive):
        due = adjustment_due(pos, power)
        if due < 0 or (due > 0 and build_sites(gmap, pos, power, build_any)):
            out.append(power)
    return out


def power_is_done(game: Game, pos: Position, power: str, lines: list[OrderLine]) -> bool:
    return not missing_orders(game, pos, power, [line.text for line in lines])

"""One phase, top to bottom: read the orders, default the rest, resolve, move to the next
phase (updating centre ownership after Fall, skipping empty phases) and check for victory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple, NotRequired, TypedDict

from mailjudge.engine.adjudicator import adjudicate_movement
from mailjudge.engine.adjustments import adjustments_needed, resolve_adjustments, resolve_retreats
from mailjudge.engine.checker import check_order
from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import Disband, Order, OrderError, Waive
from mailjudge.engine.passive import IGNORED, NOBODY, Passive
from mailjudge.engine.reader import read_order, read_order_memo
from mailjudge.engine.state import (
    ADJUSTMENT,
    MOVEMENT,
    RETREAT,
    Phase,
    Position,
    Unit,
)


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """The rules flags that change what the engine does (see data/rules.toml)."""

    build_any: bool = False
    dont_skip_phases: bool = False
    victory_centres: int | None = None  # None: the map's own count
    shared_victory: bool = False
    hold_win: bool = False  # the count must be held at two Falls in a row
    passive: Passive = NOBODY  # powers nobody orders (Survive's outcasts, ...)
    # The adjustment phase of every n-th year is played even when empty (0: never), so
    # that Survive's vote-out after each even year has a phase to happen in.
    keep_adjustments_every: int = 0
    # CIVIL_DISORDER (seed 001): removals nobody ordered are drawn at random, off-centre
    # units first, from this public seed (the game's name); empty: the DATC 6.J rule.
    civil_disorder_seed: str = ""
    # NO_CHECK (seed 001): a unit given two or more orders holds and all of them are void
    # ("multiple"); otherwise a later order replaces an earlier one.
    multiple_orders_hold: bool = False
    # How many each centre a power owns counts for toward victory, for the powers whose
    # centres do not count one each (a variant's rule: its phase protocol's centre_weights).
    centre_weights: tuple[tuple[str, int], ...] = ()


class OrderResult(NamedTuple):
    power: str
    order: Order | str  # the order; the text as written when it could not be read
    outcome: str  # succeeds bounces cut void dislodged disrupted invalid replaced ...
    reason: str = ""  # why an order is invalid
    default: bool = False  # the engine's order for a unit that had none

    @property
    def text(self) -> str:
        """The order in canonical text."""
        return self.order if isinstance(self.order, str) else str(self.order)


class PhaseOutcome(NamedTuple):
    results: list[OrderResult]
    after: Position  # the board when this phase is done (still labelled with this phase)
    next: Position  # the next phase to play, empty phases skipped
    destroyed: list[Unit]  # dislodged with no retreat
    winners: frozenset[str]
    at_count: frozenset[str] = frozenset()  # at or over the victory count after this Fall
    # Each power's centres as they count toward victory, when some count otherwise than
    # one each (EngineOptions.centre_weights); empty when every centre counts one.
    counted: Mapping[str, int] = MappingProxyType({})


def next_phase(phase: Phase) -> Phase:
    if phase.type == MOVEMENT:
        return Phase(phase.season, phase.year, RETREAT)
    if phase.season == "S":
        return Phase("F", phase.year, MOVEMENT)
    if phase.season == "F" and phase.type == RETREAT:
        return Phase("W", phase.year, ADJUSTMENT)
    return Phase("S", phase.year + 1, MOVEMENT)


def owners_after_fall(
    units: Mapping[str, Unit], owners: Mapping[str, str], gmap: GameMap
) -> dict[str, str]:
    """A centre belongs to whoever stands on it at the end of Fall; empty ones keep their owner."""
    new = dict(owners)
    for prov, unit in units.items():
        if prov in gmap.centres:
            new[prov] = unit.power
    return new


def counted_centres(owners: Mapping[str, str], weights: Mapping[str, int]) -> dict[str, int]:
    """Each owner's centres as they count toward victory: one each, or the owner's weight."""
    counts: dict[str, int] = {}
    for owner in owners.values():
        counts[owner] = counts.get(owner, 0) + weights.get(owner, 1)
    return counts


def winners(
    owners: Mapping[str, str],
    threshold: int,
    shared: bool = False,
    held_last_year: frozenset[str] | None = None,
    weights: Mapping[str, int] = MappingProxyType({}),
) -> tuple[frozenset[str], frozenset[str]]:
    """(powers at or over the count, winners). The power with most centres among those over
    wins, a tie at the top wins nobody; with SHARED_VICTORY all over the count win; with
    HOLD_WIN (``held_last_year`` given) only those who were over it last year too count.
    ``weights``: what a power's centres count for, where not one each."""
    counts = counted_centres(owners, weights)
    over = frozenset(p for p, n in counts.items() if n >= threshold)
    eligible = over if held_last_year is None else over & held_last_year
    if not eligible:
        return over, frozenset()
    if shared:
        return over, eligible
    best = max(counts[p] for p in eligible)
    top = [p for p in eligible if counts[p] == best]
    return over, frozenset(top) if len(top) == 1 else frozenset()


def read_orders(
    gmap: GameMap,
    pos: Position,
    orders: Mapping[str, Sequence[str | Order]],
    options: EngineOptions,
) -> tuple[dict[str, list[Order]], list[OrderResult]]:
    """Parse each power's lines; unreadable or illegal ones become 'invalid' results."""
    parsed: dict[str, list[Order]] = {}
    rejected: list[OrderResult] = []
    ptype = pos.phase.type
    build_any = options.build_any
    read = read_order_memo
    for power, lines in orders.items():
        if power not in gmap.powers:
            raise ValueError(
                f"{power!r} is not a power on this map ({', '.join(gmap.power_names)})"
            )
        mine = parsed.setdefault(power, [])
        for line in lines:
            if not isinstance(line, str):
                mine.append(line)
                continue
            try:
                mine.append(
                    check_order(read(line, gmap, ptype), pos, power, gmap, build_any=build_any)
                )
            except OrderError as err:
                rejected.append(
                    OrderResult(power, _as_written(line, gmap, pos), "invalid", str(err))
                )
    return parsed, rejected


def _as_written(text: str, gmap: GameMap, pos: Position) -> str:
    try:
        return str(read_order(text, gmap, pos.phase.type))
    except OrderError:
        return " ".join(text.split()).upper()


def _one_per_unit(
    gmap: GameMap,
    parsed: Mapping[str, list[Order]],
    results: list[OrderResult],
    multiple_hold: bool = False,
) -> dict[str, Order]:
    """A later order for the same unit replaces an earlier one, as players correct
    themselves; with ``multiple_hold`` (NO_CHECK) a unit with several orders holds."""
    by_prov: dict[str, Order] = {}
    multiple: set[str] = set()
    prov_of = gmap.loc_province
    for power, orders in parsed.items():
        for order in orders:
            if type(order) is Waive:
                results.append(OrderResult(power, order, "invalid", "WAIVE is for adjustments"))
                continue
            key = prov_of[order.unit.loc]  # type: ignore[union-attr]
            if key in multiple:
                results.append(OrderResult(power, order, "multiple"))
                continue
            old = by_prov.get(key)
            if old is not None and multiple_hold:
                results += [
                    OrderResult(power, old, "multiple"),
                    OrderResult(power, order, "multiple"),
                ]
                multiple.add(key)
                del by_prov[key]
                continue
            if old is not None:
                results.append(OrderResult(power, old, "replaced"))
            by_prov[key] = order
    return by_prov


def process_phase(
    gmap: GameMap,
    pos: Position,
    orders: Mapping[str, Sequence[str | Order]],
    options: EngineOptions | None = None,
    held_last_year: frozenset[str] = frozenset(),
) -> PhaseOutcome:
    """Play one phase. ``orders`` maps powers to order lines (text or parsed orders).
    ``held_last_year``: who was at the victory count after last year's Fall (HOLD_WIN)."""
    options = options or EngineOptions()
    parsed, results = read_orders(gmap, pos, orders, options)
    passive = options.passive
    for power in passive.powers & parsed.keys():
        results.extend(OrderResult(power, o, "invalid", IGNORED) for o in parsed.pop(power))
    ptype = pos.phase.type
    destroyed: list[Unit] = []
    if ptype == MOVEMENT:
        by_prov = _one_per_unit(gmap, parsed, results, options.multiple_orders_hold)
        res = adjudicate_movement(gmap, pos, by_prov)
        outcomes = res.outcomes
        results.extend(
            [
                OrderResult(order.unit.power, order, outcomes[prov], "", prov not in by_prov)  # type: ignore[union-attr]
                for prov, order in res.orders.items()
            ]
        )
        # A passive power's dislodged units disband at once: nobody would retreat them.
        dislodged = {p: d for p, d in res.dislodged.items() if d.unit.power not in passive}
        destroyed = res.destroyed + [
            d.unit for d in res.dislodged.values() if d.unit.power in passive
        ]
        owners = dict(pos.sc_owners)
        if pos.phase.season == "F":
            owners = owners_after_fall(res.units, owners, gmap)
        after = Position(pos.phase, res.units, owners, dislodged, res.contested)
        if dislodged or options.dont_skip_phases:
            nxt = Position(next_phase(pos.phase), res.units, owners, dislodged, res.contested)
        else:
            nxt = _after_retreats(
                gmap, Phase(pos.phase.season, pos.phase.year, RETREAT), res.units, owners, options
            )
    elif ptype == RETREAT:
        by_prov = _one_per_unit(gmap, parsed, results)
        units, outcomes = resolve_retreats(pos, by_prov)
        for prov, d in pos.dislodged.items():
            order = by_prov.get(prov)
            if order is None:
                results.append(OrderResult(d.unit.power, Disband(d.unit), "disbanded", "", True))
            else:
                results.append(OrderResult(d.unit.power, order, outcomes[prov]))
        for prov, order in by_prov.items():
            if prov not in pos.dislodged:
                results.append(OrderResult(order.unit.power, order, "invalid", "not dislodged"))  # type: ignore[union-attr]
        owners = dict(pos.sc_owners)
        if pos.phase.season == "F":
            owners = owners_after_fall(units, owners, gmap)
        after = Position(pos.phase, units, owners)
        nxt = _after_retreats(gmap, pos.phase, units, owners, options)
    else:
        units, adj = resolve_adjustments(
            gmap, pos, parsed, options.build_any, passive, options.civil_disorder_seed
        )
        for power, order, outcome, rule in adj:  # rule: who chose an unordered removal
            results.append(OrderResult(power, order, outcome, rule, outcome == "civil disorder"))
        after = Position(pos.phase, units, dict(pos.sc_owners))
        nxt = Position(next_phase(pos.phase), units, dict(pos.sc_owners))
    won = over = frozenset[str]()
    weights = dict(options.centre_weights)
    if pos.phase.season == "F" and nxt.phase.season != "F":
        threshold = options.victory_centres or gmap.victory_centres
        held = held_last_year if options.hold_win else None
        owned = dict(nxt.sc_owners)
        if any(p.dummy for p in gmap.powers.values()):  # nobody plays a dummy: it cannot win
            owned = {c: p for c, p in owned.items() if not gmap.powers[p].dummy}
        over, won = winners(owned, threshold, options.shared_victory, held, weights)
    counted = counted_centres(nxt.sc_owners, weights) if weights else {}
    return PhaseOutcome(results, after, nxt, destroyed, won, over, counted)


def _after_retreats(
    gmap: GameMap,
    phase: Phase,
    units: Mapping[str, Unit],
    owners: dict[str, str],
    options: EngineOptions,
) -> Position:
    """The phase that follows a retreat phase (played or skipped)."""
    nxt = next_phase(phase)
    if nxt.type == ADJUSTMENT:
        pos = Position(nxt, dict(units), owners)
        every = options.keep_adjustments_every
        kept = options.dont_skip_phases or (every > 0 and nxt.year % every == 0)
        if kept or adjustments_needed(gmap, pos, options.build_any, options.passive):
            return pos
        nxt = next_phase(nxt)
    return Position(nxt, dict(units), owners)


class ResultRow(TypedDict):
    """One order's result as stored with the phase (JSON) and shown in the results."""

    power: str
    order: str  # canonical text
    outcome: str  # succeeds, bounces, cut, void, dislodged, invalid, multiple, ...
    reason: str  # why an order is invalid
    default: bool  # the engine's order for a unit that had none
    standin: NotRequired[bool]  # the stand-in's order (STANDIN; service/standin.py)


def result_rows(outcome: PhaseOutcome) -> list[ResultRow]:
    """The results as stored and shown: grouped by power, in order text order."""
    rows = [
        ResultRow(power=r.power, order=r.text, outcome=r.outcome, reason=r.reason,
                  default=r.default)
        for r in outcome.results
    ]  # fmt: skip
    return sorted(rows, key=lambda r: (r["power"], r["order"]))

"""Orders on file: submitting (an atomic replace per power), clearing, and STATUS."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from mailjudge.engine.adjustments import adjustment_due, last_adjustments
from mailjudge.engine.checker import ambiguous_name, check_order, entry_check
from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import OrderError, Syntax
from mailjudge.engine.reader import read_order
from mailjudge.engine.readings import Readings
from mailjudge.engine.state import ADJUSTMENT, Phase, Position
from mailjudge.game import fog
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import (
    current_position,
    game_map,
    has_rule,
    missing_orders,
    order_senders,
    orders_on_file,
    powers_owing,
    require_active,
)
from mailjudge.permissions.policy import may_order_for
from mailjudge.service.games import passive_now
from mailjudge.store import games as store_games
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, OrderLine, Seat, utcnow
from mailjudge.variants import variant_of


@dataclass
class Submission:
    """What a player is told after ORDERS: what stands, what failed and why, what is missing."""

    power: str
    accepted: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (line as written, reason)
    missing: list[str] = field(default_factory=list)
    # A refused line for a unit whose order was on file leaves that order there (as
    # njudge does): the refused line as written -> the order kept.
    kept_from_file: dict[str, str] = field(default_factory=dict)
    # Under NO_CHECK: the provinces whose unit was given several orders (it will hold).
    several: list[str] = field(default_factory=list)
    # Builds or removals beyond those owed (or a second for one province): as on njudge,
    # the last given stand and these earlier ones are left out.
    replaced: list[str] = field(default_factory=list)


# A power's orders on file as (text, who sent it, when), in their order.
OnFile = list[tuple[str, int | None, datetime]]


def power_orders_on_file(game: Game, power: str) -> OnFile:
    """Read once for an order mail: laying its lines over the file and keeping each carried
    order's sender both use it (one query, where each read it before)."""
    return order_senders(game, power.upper())


def submit_orders(
    game: Game,
    seat: Seat,
    power: str,
    lines: list[str],
    carried: Sequence[str] = (),
    on_file: OnFile | None = None,
    read: Readings | None = None,
    now: datetime | None = None,
) -> Submission:
    """Replace ``power``'s orders for this phase with the valid ones among ``lines``.

    Every line is checked now (under NO_CHECK only the Urk and name checks: the rest is
    decided at processing). Under IGNORE_ERRORS bad lines are dropped without a word.
    A refused line never takes away a good order: a unit it names keeps the order on file
    it had (unless another line of the set orders it), and the report says so.
    ``carried``: the lines that are orders on file the mail did not name (bare order lines
    laid over the file); they, like the orders a refused line leaves, keep their sender.
    ``on_file``: the power's orders on file, when the caller has read them already;
    ``read``: the lines the caller has read already (each line is read once a mail);
    ``now``: the time the lines are stamped with (the mail's; the clock's when None).
    """
    require_active(game)
    power = power.upper()
    if not may_order_for(seat, power):
        raise NotAllowed(f"{seat.name} may not order for {power}")
    if power in passive_now(game):
        raise NotAllowed(f"{power} {variant_of(game).phase.passive_note}")
    gmap = game_map(game)
    pos = current_position(game)
    read = Readings.of(read, gmap, pos.phase.type)
    no_check = has_rule(game, "NO_CHECK")
    build_any = has_rule(game, "BUILD_ANY")
    report = Submission(power)
    seen = fog.board_for(game, pos, power)  # under fog of war, what the power sees
    kept: list[str] = []
    refused: dict[str, str] = {}  # unit's province -> the refused line naming it
    for line in lines:
        if not line.strip():
            continue
        syntax = None
        try:
            syntax = read.syntax(line)
            text = (
                str(_entry_check(line, syntax, gmap, pos))
                if no_check
                else str(check_order(syntax, seen, power, gmap, build_any=build_any))
            )
        except OrderError as err:
            if not has_rule(game, "IGNORE_ERRORS"):
                report.errors.append((line.strip(), f"{err.kind}: {err}"))
            if syntax is not None and syntax.loc is not None:
                refused.setdefault(syntax.loc[0], line.strip())
            continue
        read.checked(text, syntax)  # the order as filed says what the line said
        kept.append(text)
    filed = on_file if on_file is not None else power_orders_on_file(game, power)
    only = _own_only(game, seat)
    from_file = _kept_from_file(game, filed, only, refused, kept, report, read)
    kept += from_file
    if pos.phase.type == ADJUSTMENT and not no_check:
        kept, report.replaced = last_adjustments(kept, adjustment_due(pos, power))
    if no_check:
        units = [unit_of(text, gmap, pos.phase.type, read) for text in kept]
        report.several = sorted({u for u in units if u is not None and units.count(u) > 1})
    report.accepted = kept
    refuse_late_change(game, seat, power, kept)
    # Delete and insert stand or fall together; in a mail's transaction its savepoint undoes
    # both on a database error (nothing catches one short of it), so none of their own.
    with contextlib.nullcontext() if database_proxy.in_transaction() else database_proxy.atomic():
        senders = _senders_on_file(seat, filed, only, kept, [*carried, *from_file], now)
        _delete_orders(game, power, only)
        if kept:
            filed_now = [(text, by, at) for text, (by, at) in zip(kept, senders, strict=True)]
            store_games.insert_orders(game.id, game.phase, power, filed_now)
    report.missing = missing_orders(game, pos, power, kept, read)
    _note_blank_orders(game, seat, power, pos)
    return report


BLANK = "blank"  # the Ballot kind that records a power's blank orders in an empty phase


def _note_blank_orders(game: Game, seat: Seat, power: str, pos: Position) -> None:
    """Under DONT_SKIP_PHASES a power's order mail in an empty phase is its blank orders
    (seed 001: "phases where all players need to issue blank orders")."""
    if not has_rule(game, "DONT_SKIP_PHASES") or powers_to_order(game, pos):
        return
    Ballot.delete().where(
        (Ballot.game == game) & (Ballot.kind == BLANK) & (Ballot.subject == power)
        & (Ballot.phase == game.phase)
    ).execute()  # fmt: skip
    Ballot.create(game=game, phase=game.phase, kind=BLANK, subject=power, voter=seat,
                  content={})  # fmt: skip


def blank_orders_in(game: Game) -> set[str]:
    """The powers that sent their blank orders for this (empty) phase."""
    rows = Ballot.select(Ballot.subject).where(
        (Ballot.game == game) & (Ballot.kind == BLANK) & (Ballot.phase == game.phase)
    )
    return {str(row.subject) for row in rows}


def _senders_on_file(
    seat: Seat,
    filed: OnFile,
    only: Seat | None,
    kept: list[str],
    carried: list[str],
    now: datetime | None = None,
) -> list[tuple[int | None, datetime]]:
    """Who sent each of ``kept``, and when: an order on file that the mail did not name
    (``carried``) keeps its sender (seed 003, rule 7: the Gamemaster tells "which orders
    have been submitted for eir country, and by whom", so a teammate's order does not
    become France's because France sent another line); a line the mail gives is the
    sender's, now."""
    now = now or utcnow()
    on_file: dict[str, list[tuple[int | None, datetime]]] = {}
    for text, by, at in filed:
        if only is None or by == only.id:
            on_file.setdefault(text, []).append((by, at))
    left = list(carried)
    out: list[tuple[int | None, datetime]] = []
    for text in kept:
        earlier = on_file.get(text) if text in left else None
        if earlier:
            left.remove(text)
            out.append(earlier.pop(0))
        else:
            out.append((seat.id, now))
    return out


def _entry_check(line: str, syntax: Syntax, gmap: GameMap, pos: Position) -> Syntax:
    """NO_CHECK's checks at entry (seed 001): readable, not ambiguous, no coast in a
    support's destination; legality waits for processing."""
    ambiguous_name(line, gmap)
    return entry_check(syntax, gmap, pos)


def ahead_check(game: Game, line: str, syntax: Syntax) -> Syntax:
    """An order sent ahead is entered when it is sent: under NO_CHECK it gets NO_CHECK's
    checks then, as an order for the current phase does (seed 001: "The ONLY checks that
    are made at the time an order is entered": readable, no ambiguous name, no coast in a
    support); where the board will decide, it does when the phase comes."""
    if not has_rule(game, "NO_CHECK"):
        return syntax
    gmap = game_map(game)
    ambiguous_name(line, gmap)
    return entry_check(syntax, gmap, None)


def _kept_from_file(
    game: Game,
    filed: OnFile,
    only: Seat | None,
    refused: dict[str, str],
    new: list[str],
    report: Submission,
    read: Readings | None = None,
) -> list[str]:
    """The orders on file for the units of ``refused`` that ``new`` does not order."""
    if not refused:
        return []
    gmap, phase_type = game_map(game), current_position(game).phase.type
    ordered = {unit_of(text, gmap, phase_type, read) for text in new}
    kept: list[str] = []
    for text, by, _ in filed:
        unit = unit_of(text, gmap, phase_type, read)
        if unit in refused and unit not in ordered and (only is None or by == only.id):
            kept.append(text)
            report.kept_from_file[refused[unit]] = text
    return kept


def unit_of(text: str, gmap: GameMap, phase_type: str, read: Readings | None = None) -> str | None:
    """The province of the unit an order line is for; None when it cannot be read.
    ``read``: the lines read already."""
    try:
        syntax = Readings.of(read, gmap, phase_type).syntax(text)
    except OrderError:
        return None
    return syntax.loc[0] if syntax.loc is not None else None


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
    return seat if variant_of(game).people.orders_per_player and seat.role == "player" else None


def _delete_orders(game: Game, power: str, only: Seat | None = None) -> None:
    store_games.delete_orders(game.id, game.phase, power, only.id if only is not None else None)


def merged_with_file(
    game: Game, seat: Seat, power: str, texts: list[str], on_file: OnFile | None = None,
    read: Readings | None = None,
) -> tuple[list[str], list[str]]:  # fmt: skip
    """``power``'s orders on file with ``texts`` laid over them: a new order for a unit
    replaces that unit's order on file, and the units the texts do not name keep theirs
    (how bare order lines in a mail are read; ORDERS ... END replaces the whole set).
    Returns the whole set and, of it, the orders carried over from the file. ``read``:
    the lines read already."""
    gmap = game_map(game)
    phase_type = current_position(game).phase.type
    read = Readings.of(read, gmap, phase_type)
    named = {unit_of(text, gmap, phase_type, read) for text in texts} - {None}
    only = _own_only(game, seat)
    filed = on_file if on_file is not None else power_orders_on_file(game, power)
    kept = [
        text for text, by, _ in filed
        if (only is None or by == only.id) and unit_of(text, gmap, phase_type, read) not in named
    ]  # fmt: skip
    return kept + texts, kept


def clear_orders(game: Game, seat: Seat, power: str) -> None:
    require_active(game)
    if not may_order_for(seat, power):
        raise NotAllowed(f"{seat.name} may not order for {power.upper()}")
    refuse_late_change(game, seat, power.upper(), [])
    _delete_orders(game, power.upper(), _own_only(game, seat))


def powers_to_order(game: Game, pos: Position) -> list[str]:
    """The powers that have something to order in this phase (passive ones never do)."""
    return powers_owing(game, pos, passive_now(game))


@dataclass
class FutureOrders:
    """Orders sent ahead for a later phase (njudge's PHASE): read now, checked against the
    board when that phase comes, and replaced by any orders sent in it."""

    phase: str
    power: str
    accepted: list[str] = field(default_factory=list)  # what is now on file for that phase
    errors: list[tuple[str, str]] = field(default_factory=list)


def file_future_orders(game: Game, seat: Seat, phase_text: str, texts: list[str]) -> FutureOrders:
    """PHASE Fall 1901 Movement, then order lines: kept as the orders of that phase, laid
    over any sent ahead before, unit by unit. Each line must read as an order of that
    phase's kind; whether the unit will be there is only known when the phase comes,
    and the engine then treats an order for a unit that is not there as void."""
    require_active(game)
    try:
        target = Phase.from_words(phase_text)
    except ValueError as err:
        raise ServiceError(str(err)) from None
    now_phase = current_position(game).phase
    if target.order_key() <= now_phase.order_key():
        raise ServiceError(
            f"{target} is not a later phase than {now_phase} ({now_phase.long_name()}): "
            "orders for the current phase need no PHASE line"
        )
    powers = [p for p in seat.powers if may_order_for(seat, p)]
    if len(powers) != 1:
        raise NotAllowed("orders sent ahead are for a player with one power")
    power = powers[0]
    gmap = game_map(game)
    report = FutureOrders(str(target), power)
    fresh: dict[str | None, str] = {}
    for line in texts:
        try:
            syntax = ahead_check(game, line, read_order(line, gmap, target.type))
        except OrderError as err:
            report.errors.append((line.strip(), f"{err.kind}: {err}"))
            continue
        fresh[syntax.loc[0] if syntax.loc is not None else line] = str(syntax)
    here = (
        (OrderLine.game == game.id) & (OrderLine.phase == str(target)) & (OrderLine.power == power)
    )
    kept: list[str] = []
    for row in OrderLine.select().where(here).order_by(OrderLine.line):
        try:
            loc = read_order(row.text, gmap, target.type).loc
        except OrderError:
            loc = None
        if (loc[0] if loc else row.text) not in fresh:
            kept.append(row.text)
    kept += list(fresh.values())
    with database_proxy.atomic():
        OrderLine.delete().where(here).execute()
        now = utcnow()
        for n, text in enumerate(kept):
            OrderLine.create(game=game, phase=str(target), power=power, line=n, text=text,
                             submitted_by=seat, submitted_at=now)  # fmt: skip
    report.accepted = kept
    return report

"""Checking orders against a position: the unit, adjacency, reach, coasts and builds."""

from __future__ import annotations

import re
from collections.abc import Callable

from mailjudge.engine.adjustments import adjustment_due
from mailjudge.engine.maps import ARMY, FLEET, LAND, WATER, GameMap, normalize_name
from mailjudge.engine.orders import (
    AmbiguousOrder,
    Build,
    Convoy,
    Disband,
    Hold,
    IllegalOrder,
    Move,
    Order,
    Place,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Syntax,
    Waive,
)
from mailjudge.engine.reader import USAGE, read_order
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT, Position, Unit

_TYPE_WORD = {ARMY: "an army", FLEET: "a fleet"}


def _name(gmap: GameMap, prov: str) -> str:
    return f"{gmap.provinces[prov].name} ({prov.upper()})"


def _own_unit(s: Syntax, pos: Position, power: str | None, gmap: GameMap) -> Unit:
    assert s.loc is not None
    prov = s.loc[0]
    if pos.phase.type == RETREAT:
        d = pos.dislodged.get(prov)
        if d is None:
            raise IllegalOrder(
                f"no unit was dislodged from {_name(gmap, prov)}; only dislodged units retreat"
            )
        unit = d.unit
    else:
        found = pos.units.get(prov)
        if found is None:
            raise IllegalOrder(f"there is no unit in {_name(gmap, prov)}")
        unit = found
    if power is not None and unit.power != power:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} belongs to {unit.power}, not {power}")
    if s.utype is not None and s.utype != unit.type:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} is {_TYPE_WORD[unit.type]}")
    return unit


def _target_unit(s: Syntax, pos: Position, gmap: GameMap, verb: str) -> Unit:
    assert s.tloc is not None
    prov = s.tloc[0]
    unit = pos.units.get(prov)
    if unit is None:
        raise IllegalOrder(f"there is no unit in {_name(gmap, prov)} to {verb}")
    if s.ttype is not None and s.ttype != unit.type:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} is {_TYPE_WORD[unit.type]}")
    return unit


def _fleet_dest(gmap: GameMap, unit: Unit, dest: Place) -> str:
    """The location a fleet moves to, filling in the coast when only one is reachable."""
    prov, coast = dest
    coasts = gmap.provinces[prov].coasts
    if not coasts:
        return prov
    if coast:
        return f"{prov}/{coast}"
    reachable = [
        loc for loc in gmap.fleet_locations(prov) if loc in gmap.fleet_moves.get(unit.loc, ())
    ]
    if len(reachable) > 1:
        options = " or ".join(r.upper() for r in reachable)
        raise AmbiguousOrder(
            f"{unit} can reach both coasts of {_name(gmap, prov)}: write {options}"
        )
    if reachable:
        return reachable[0]
    return f"{prov}/{coasts[0]}"  # unreachable either way; the adjacency check says so


def entry_check(s: Syntax, gmap: GameMap | None = None, pos: Position | None = None) -> Syntax:
    """What NO_CHECK still checks when an order is entered, beyond reading it (seed 001):
    "A support for a fleet move may not specify the destination coast of the fleet", and,
    given the map, "Any placename abbreviation that is potentially ambiguous is declared
    erroneous and must be changed": a fleet moving to a split-coast province it reaches on
    both coasts (F MAO - SPA) must name the coast. NO_CHECK lifts the check of legality,
    not of readability."""
    if s.kind == "support" and s.dest is not None and s.dest[1] is not None:
        raise IllegalOrder(
            f"a support names the province it supports a move into, not its coast: write "
            f"{s._replace(dest=(s.dest[0], None))!s}"
        )
    if gmap is not None and s.kind in ("move", "retreat") and s.loc and s.dest and not s.route:
        fleet = _entered_type(s, gmap, pos) == FLEET
        if fleet and gmap.provinces[s.dest[0]].coasts and s.dest[1] is None:
            here = f"{s.loc[0]}/{s.loc[1]}" if s.loc[1] else s.loc[0]
            _fleet_dest(gmap, Unit("", FLEET, here), s.dest)  # raises when both coasts fit
    return s


def _entered_type(s: Syntax, gmap: GameMap, pos: Position | None) -> str | None:
    """The unit type an order means: as written, else the unit there, else what the
    province can hold (only a fleet is at sea)."""
    if s.utype is not None:
        return s.utype
    assert s.loc is not None
    there = pos.units.get(s.loc[0]) if pos is not None else None
    if there is not None:
        return there.type
    return FLEET if gmap.is_water(s.loc[0]) else None


_WORD = re.compile(r"[a-z]+")


def ambiguous_name(text: str, gmap: GameMap) -> None:
    """Seed 001, NO_CHECK: "Any placename abbreviation that is potentially ambiguous is
    declared erroneous and must be changed. For example, the order "TYR H" is rejected
    because it may be an order for an army in Tyrolia to hold, or for a fleet in the
    Tyrrhenian Sea to hold." A short name is ambiguous when it opens the full names of two
    provinces (TYR: Tyrolia and the Tyrrhenian Sea); the province's full name, or a code
    no other name begins with, is not."""
    full = {code: normalize_name(p.name) for code, p in gmap.provinces.items()}
    for word in _WORD.findall(text.lower()):
        code = gmap.names.get(word)
        if code is None or full.get(code) == word:
            continue
        meant = sorted(c for c, name in full.items() if name.startswith(word))
        if code not in meant:
            meant.append(code)
        if len(meant) > 1:
            options = " or ".join(gmap.provinces[c].name for c in meant)
            raise AmbiguousOrder(
                f"{word.upper()} could mean {options} (under NO_CHECK the judge does not "
                f"guess): write the place's full name"
            )


def check_order(
    s: Syntax, pos: Position, power: str | None, gmap: GameMap, *, build_any: bool = False
) -> Order:
    """Hold the words against the position: the unit, adjacency, reach and coasts."""
    ptype = pos.phase.type
    kind = s.kind
    if ptype == MOVEMENT:
        check = _MOVEMENT_CHECKS.get(kind)
        if check is not None:
            unit = pos.units.get(s.loc[0])  # type: ignore[index]
            if (
                unit is None
                or (power and unit.power != power)
                or (s.utype and s.utype != unit.type)
            ):
                unit = _own_unit(s, pos, power, gmap)  # raises, saying what is wrong
            return check(s, unit, pos, gmap)
    if kind == "waive":
        if ptype != ADJUSTMENT:
            raise IllegalOrder("WAIVE is an adjustment-phase order (it gives up one build)")
        return Waive(power or "")
    if kind == "adjust" and ptype == ADJUSTMENT:
        # njudge's bare "A LON" in a build phase: a build for a power owed builds, a
        # removal for one owing removals.
        prov = s.loc[0]  # type: ignore[index]
        here = pos.units.get(prov)
        due = adjustment_due(pos, power or (here.power if here else pos.sc_owners.get(prov, "")))
        if due == 0:
            raise IllegalOrder(
                f"{power or 'this power'} has as many units as centres: there is nothing to "
                "build or remove"
            )
        kind = "build" if due > 0 else "remove"
        s = s._replace(kind=kind)
    if kind == "build":
        return _check_build(s, pos, power, gmap, build_any)
    if kind in ("hold", "move", "support", "convoy") and ptype != MOVEMENT:
        article = "an" if ptype[:1] in "aeiou" else "a"  # "an adjustment phase"
        raise IllegalOrder(f"this is {article} {ptype} phase; orders look like {USAGE[ptype]}")
    if kind == "retreat" and ptype != RETREAT:
        raise IllegalOrder("R (retreat) is only for dislodged units in a retreat phase")
    unit = _own_unit(s, pos, power, gmap)
    if kind == "retreat":
        assert s.dest is not None
        dest = s.dest[0] if unit.type == ARMY else _fleet_dest(gmap, unit, s.dest)
        options = pos.dislodged[s.loc[0]].options  # type: ignore[index]
        if dest not in options:
            where = ", ".join(o.upper() for o in options) or "nowhere: it can only disband"
            raise IllegalOrder(
                f"{unit} cannot retreat to {dest.upper()}; it may retreat to {where}"
            )
        return Retreat(unit, dest)
    if kind == "disband":
        if ptype != RETREAT:
            raise IllegalOrder("D (disband) is for retreat and adjustment phases")
        return Disband(unit)
    if ptype != ADJUSTMENT:
        raise IllegalOrder("D (remove) is for adjustment phases")
    due = adjustment_due(pos, unit.power)
    if due >= 0:
        owed = f"is owed {due} build(s)" if due else "has as many units as centres"
        raise IllegalOrder(
            f"{unit.power} {owed}: there is nothing to remove; build (BUILD A PAR) or WAIVE"
        )
    return Remove(unit)


def _check_hold(s: Syntax, unit: Unit, pos: Position, gmap: GameMap) -> Hold:
    return Hold(unit)


def _check_move(s: Syntax, unit: Unit, pos: Position, gmap: GameMap) -> Move:
    assert s.dest is not None
    src = s.loc[0]  # type: ignore[index]
    dprov = s.dest[0]
    if dprov == src:
        raise IllegalOrder(f"{unit} cannot move to the province it is in")
    if unit.type == FLEET:
        if s.via:
            raise IllegalOrder("only armies can be convoyed; a fleet moves by itself")
        dest = _fleet_dest(gmap, unit, s.dest)
        if dest not in gmap.fleet_moves.get(unit.loc, ()):
            raise IllegalOrder(
                f"{unit} cannot move to {dest.upper()}: not adjacent by sea or coast"
            )
        return Move(unit, dest)
    if gmap.provinces[dprov].kind == WATER:
        raise IllegalOrder(f"an army cannot move into {_name(gmap, dprov)}, which is water")
    if s.route:
        if not gmap.route_is_valid(src, s.route, dprov):
            raise IllegalOrder(
                f"{' - '.join(s.route).upper()} is not a chain of seas "
                f"from {src.upper()} to {dprov.upper()}"
            )
        return Move(unit, dprov, True, s.route)
    if dprov in gmap.army_moves.get(src, ()):
        return Move(unit, dprov, s.via)
    if gmap.convoy_possible(src, dprov):
        return Move(unit, dprov, s.via)
    raise IllegalOrder(f"{unit} cannot reach {_name(gmap, dprov)}: not adjacent and no sea route")


def _check_support(
    s: Syntax, unit: Unit, pos: Position, gmap: GameMap
) -> SupportHold | SupportMove:
    target = _target_unit(s, pos, gmap, "support")
    tprov = s.tloc[0]  # type: ignore[index]
    here = s.loc[0]  # type: ignore[index]
    if tprov == here:
        raise IllegalOrder(f"{unit} cannot support itself")
    if s.dest is None:
        if not gmap.can_reach_province(unit.type, unit.loc, tprov):
            raise IllegalOrder(
                f"{unit} cannot support {target}: it could not move to {tprov.upper()}"
            )
        return SupportHold(unit, target)
    dprov = s.dest[0]
    if dprov == here:
        raise IllegalOrder(f"{unit} cannot support a move into its own province")
    if not gmap.can_reach_province(unit.type, unit.loc, dprov):
        raise IllegalOrder(
            f"{unit} cannot support a move to {dprov.upper()}: it could not move there itself"
        )
    if dprov == tprov or not _could_move(gmap, target, tprov, dprov):
        raise IllegalOrder(
            f"{target} cannot move to {dprov.upper()}, so there is no move to support"
        )
    coast = s.dest[1]
    return SupportMove(
        unit, target, f"{dprov}/{coast}" if coast and target.type == FLEET else dprov
    )


def _could_move(gmap: GameMap, unit: Unit, here: str, dprov: str) -> bool:
    if unit.type == FLEET:
        return gmap.can_reach_province(FLEET, unit.loc, dprov)
    if gmap.provinces[dprov].kind == WATER:
        return False
    return dprov in gmap.army_moves.get(here, ()) or gmap.convoy_possible(here, dprov)


def _check_convoy(s: Syntax, unit: Unit, pos: Position, gmap: GameMap) -> Convoy:
    assert s.dest is not None
    here = s.loc[0]  # type: ignore[index]
    if unit.type != FLEET or gmap.provinces[here].kind != WATER:
        raise IllegalOrder(f"{unit} cannot convoy: only fleets at sea convoy")
    target = _target_unit(s, pos, gmap, "convoy")
    if target.type != ARMY:
        raise IllegalOrder("only armies can be convoyed")
    dprov = s.dest[0]
    if not gmap.convoy_possible(s.tloc[0], dprov, through=here):  # type: ignore[index]
        raise IllegalOrder(
            f"{unit} cannot convoy {target} to {dprov.upper()}: "
            "it is not on a sea route between them"
        )
    return Convoy(unit, target, dprov)


def _check_build(
    s: Syntax, pos: Position, power: str | None, gmap: GameMap, build_any: bool
) -> Build:
    assert s.loc is not None
    if pos.phase.type != ADJUSTMENT:
        raise IllegalOrder("builds are only made in the winter adjustment phase")
    prov, coast = s.loc
    p = gmap.provinces[prov]
    owner = pos.sc_owners.get(prov)
    builder = power or owner
    if not p.centre:
        raise IllegalOrder(f"{_name(gmap, prov)} is not a supply centre")
    if builder is None or owner != builder:
        raise IllegalOrder(f"{_name(gmap, prov)} is not owned by {builder or 'the builder'}")
    if not (build_any or gmap.build_any) and prov not in gmap.home_centres.get(builder, ()):
        raise IllegalOrder(f"{_name(gmap, prov)} is not a home centre of {builder}")
    if prov in pos.units:
        raise IllegalOrder(f"{_name(gmap, prov)} is occupied; builds need an empty centre")
    due = adjustment_due(pos, builder)
    if due <= 0:
        owes = f"must remove {-due} unit(s)" if due else "has as many units as centres"
        raise IllegalOrder(f"{builder} {owes}: there is nothing to build")
    utype = s.utype
    if utype is None:
        if p.kind == LAND:
            utype = ARMY
        else:
            raise AmbiguousOrder(
                f"say which unit to build: A {prov.upper()} B or F {prov.upper()} B"
            )
    if utype == ARMY:
        return Build(Unit(builder, ARMY, prov))
    if p.kind == LAND:
        raise IllegalOrder(f"a fleet cannot be built in {_name(gmap, prov)}, which has no coast")
    if p.coasts and not coast:
        options = " or ".join(f"F {prov.upper()}/{c.upper()} B" for c in p.coasts)
        raise AmbiguousOrder(f"say which coast the fleet is built on: {options}")
    return Build(Unit(builder, FLEET, f"{prov}/{coast}" if coast else prov))


def parse_order(
    text: str, pos: Position, power: str | None, gmap: GameMap, *, build_any: bool = False
) -> Order:
    """Read and check one order for ``power`` (None: any power, as the master may)."""
    syntax = read_order(text, gmap, pos.phase.type)
    return check_order(syntax, pos, power, gmap, build_any=build_any)


_MOVEMENT_CHECKS: dict[str, Callable[[Syntax, Unit, Position, GameMap], Order]] = {
    "hold": _check_hold,
    "move": _check_move,
    "support": _check_support,
    "convoy": _check_convoy,
}

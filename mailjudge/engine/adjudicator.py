"""Movement adjudication: Kruijswijk's guess-and-check resolver with a backup rule.

Every move, support and convoy is one yes/no decision (move succeeds; support is given;
convoying fleet stays). A decision is resolved by assuming "no" for itself while its
dependencies are resolved; if the answer depends on that guess, the other guess is tried.
One consistent answer wins; two answers or none mean a cycle, settled by the backup rule:
a cycle through a convoy is a convoy paradox (the Szykman rule: the convoyed armies in it
do not move), any other is circular movement (all its moves succeed).

DATC options: multi-route convoys succeed while any route holds (4.A.1); Szykman (4.A.2);
an army to an adjacent province goes by convoy when its order says VIA or a fleet of its own
power convoys it, and some fleet does (4.A.3, "2000 rule with intent").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from mailjudge.engine.maps import ARMY, GameMap, province_of
from mailjudge.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from mailjudge.engine.state import Dislodged, Position, Unit, retreat_options

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


class MovementResolution(NamedTuple):
    orders: dict[str, Order]  # province -> the order the unit there carried out
    outcomes: dict[str, str]  # province -> succeeds, bounces, cut, void, dislodged, ...
    units: dict[str, Unit]  # the board after the phase (dislodged units not on it)
    dislodged: dict[str, Dislodged]  # province -> dislodged unit, with its retreat options
    destroyed: list[Unit]  # dislodged with nowhere to go
    contested: frozenset[str]


class _Resolver:
    __slots__ = (
        "broken",
        "convoyers",
        "deps",
        "dest",
        "gmap",
        "h2h",
        "hold_supports",
        "move_supports",
        "moves_into",
        "orders",
        "res",
        "state",
        "units",
        "via",
    )

    def __init__(self, gmap: GameMap, units: Mapping[str, Unit], orders: dict[str, Order]) -> None:
        self.gmap = gmap
        self.units = units
        self.orders = orders
        self.dest: dict[str, str] = {}  # move source province -> destination province
        self.moves_into: dict[str, list[str]] = {}
        self.via: dict[str, bool] = {}
        self.convoyers: dict[str, set[str]] = {}
        self.hold_supports: dict[str, list[str]] = {}
        self.move_supports: dict[str, list[str]] = {}
        self.h2h: dict[str, str] = {}
        self.state: dict[str, int] = {}
        self.res: dict[str, bool] = {}
        self.deps: list[str] = []
        self.broken: set[str] = set()

        dest = self.dest
        convoys = []
        supports = []
        for prov, order in orders.items():
            kind = type(order)
            if kind is Move:
                d = province_of(order.dest)  # type: ignore[union-attr]
                dest[prov] = d
                self.moves_into.setdefault(d, []).append(prov)
            elif kind is Convoy:
                convoys.append((prov, order))
            elif kind is SupportHold or kind is SupportMove:
                supports.append((prov, order))
        for fleet, order in convoys:
            army = order.target.province  # type: ignore[union-attr]
            if dest.get(army) == order.dest and units[army].type == ARMY:  # type: ignore[union-attr]
                self.convoyers.setdefault(army, set()).add(fleet)
        army_moves = gmap.army_moves
        for src, d in dest.items():
            unit = units[src]
            if unit.type != ARMY:
                self.via[src] = False
                continue
            fleets = self.convoyers.get(src)
            if d not in army_moves[src] or (
                fleets
                and (
                    orders[src].via  # type: ignore[union-attr]
                    or any(units[f].power == unit.power for f in fleets)
                )
            ):
                self.via[src] = True
            else:
                self.via[src] = False
        for src, d in dest.items():
            if dest.get(d) == src and not self.via[src] and not self.via[d]:
                self.h2h[src] = d
        for prov, order in supports:
            target = order.target.province  # type: ignore[union-attr]
            if type(order) is SupportHold:
                if target not in dest:
                    self.hold_supports.setdefault(target, []).append(prov)
            elif dest.get(target) == province_of(order.dest) and (  # type: ignore[union-attr]
                # A support that names a coast must name the coast the fleet moves to.
                "/" not in order.dest or orders[target].dest == order.dest  # type: ignore[union-attr]
            ):
                self.move_supports.setdefault(target, []).append(prov)

    # --- the guess-and-check core ---------------------------------------------------------

    def resolve(self, p: str) -> bool:
        state = self.state.get(p, _UNRESOLVED)
        if state == _RESOLVED:
            return self.res[p]
        if state == _GUESSING:
            if p not in self.deps:
                self.deps.append(p)
            return self.res[p]
        deps = self.deps
        old = len(deps)
        self.res[p] = False
        self.state[p] = _GUESSING
        first = self._decide(p)
        if len(deps) == old:
            if self.state[p] != _RESOLVED:
                self.res[p] = first
                self.state[p] = _RESOLVED
            return first
        if deps[old] != p:
            # Depends on a guess made further up; that caller will settle it.
            deps.append(p)
            self.res[p] = first
            return first
        self._forget(old)
        self.res[p] = True
        self.state[p] = _GUESSING
        second = self._decide(p)
        if first == second:
            self._forget(old)
            self.res[p] = first
            self.state[p] = _RESOLVED
            return first
        self._backup_rule(old)
        return self.resolve(p)

    def _forget(self, old: int) -> None:
        for q in self.deps[old:]:
            self.state[q] = _UNRESOLVED
        del self.deps[old:]

    def _backup_rule(self, old: int) -> None:
        cycle = self.deps[old:]
        del self.deps[old:]
        fleets = [q for q in cycle if type(self.orders[q]) is Convoy]
        if fleets:
            # Szykman: the armies convoyed through the paradox do not move.
            for q in fleets:
                self.broken.add(self.orders[q].target.province)  # type: ignore[union-attr]
            for q in cycle:
                self.state[q] = _UNRESOLVED
            return
        for q in cycle:  # circular movement: every move in the ring succeeds
            if q in self.dest:
                self.res[q] = True
                self.state[q] = _RESOLVED
            else:
                self.state[q] = _UNRESOLVED

    def _decide(self, p: str) -> bool:
        if p in self.dest:
            return self._move_succeeds(p)
        if type(self.orders[p]) is Convoy:
            return self._stays(p)
        return self._support_given(p)

    # --- the decisions --------------------------------------------------------------------

    def path_ok(self, src: str) -> bool:
        """A move's route exists: by land, or through convoying fleets that stay."""
        if not self.via[src]:
            return True
        if src in self.broken:
            return False
        fleets = self.convoyers.get(src)
        if not fleets:
            return False
        gmap = self.gmap
        dest = self.dest[src]
        reach = gmap.fleet_reach
        frontier = [f for f in fleets if f in gmap.coastal_water[src]]
        seen = set(frontier)
        while frontier:
            f = frontier.pop()
            if not self.resolve(f):
                continue
            near = reach[f]
            if dest in near:
                return True
            for g in fleets:
                if g not in seen and g in near:
                    seen.add(g)
                    frontier.append(g)
        return False

    def _stays(self, prov: str) -> bool:
        return not any(self.resolve(m) for m in self.moves_into.get(prov, ()))

    def _support_given(self, prov: str) -> bool:
        order = self.orders[prov]
        power = self.units[prov].power
        into = self.moves_into.get(prov)
        if not into:
            return True
        toward = province_of(order.dest) if type(order) is SupportMove else None  # type: ignore[union-attr]
        units = self.units
        for m in into:
            if m != toward and units[m].power != power and self.path_ok(m):
                return False  # cut
        return not any(self.resolve(m) for m in into)

    def _supports(self, supporters: list[str] | None, against: str | None = None) -> int:
        if not supporters:
            return 0
        units = self.units
        n = 0
        for s in supporters:
            if (against is None or units[s].power != against) and self.resolve(s):
                n += 1
        return n

    def _hold_strength(self, prov: str) -> int:
        if prov not in self.units:
            return 0
        if prov in self.dest:
            return 0 if self.resolve(prov) else 1
        return 1 + self._supports(self.hold_supports.get(prov))

    def _attack_strength(self, src: str) -> int:
        d = self.dest[src]
        occupant = self.units.get(d)
        if occupant is None or (d in self.dest and self.h2h.get(src) != d and self.resolve(d)):
            return 1 + self._supports(self.move_supports.get(src))
        if occupant.power == self.units[src].power:
            return 0  # never dislodge your own unit
        return 1 + self._supports(self.move_supports.get(src), occupant.power)

    def _prevent_strength(self, src: str) -> int:
        if not self.path_ok(src):
            return 0
        opp = self.h2h.get(src)
        if opp is not None and self.resolve(opp):
            return 0  # lost its head-to-head battle
        return 1 + self._supports(self.move_supports.get(src))

    def _move_succeeds(self, src: str) -> bool:
        if not self.path_ok(src):
            return False
        d = self.dest[src]
        attack = self._attack_strength(src)
        opp = self.h2h.get(src)
        if opp is not None:
            if attack <= 1 + self._supports(self.move_supports.get(opp)):
                return False
        elif attack <= self._hold_strength(d):
            return False
        for other in self.moves_into[d]:
            if other != src and attack <= self._prevent_strength(other):
                return False
        return True


def adjudicate_movement(
    gmap: GameMap, pos: Position, orders: Mapping[str, Order]
) -> MovementResolution:
    """Resolve one movement phase. ``orders`` maps provinces to checked orders; a unit
    without one holds."""
    units = pos.units
    full: dict[str, Order] = {}
    for prov, unit in units.items():
        order = orders.get(prov)
        full[prov] = order if order is not None else Hold(unit)
    unconvoyed = _impossible_moves(gmap, units, full)
    for prov in unconvoyed:
        # DATC 6.D.32: no fleets that could convoy it, so the order is void and the army holds.
        full[prov] = Hold(units[prov])
    r = _Resolver(gmap, units, full)
    for src in r.dest:
        r.resolve(src)

    outcomes: dict[str, str] = {}
    after: dict[str, Unit] = {}
    dislodged_by: dict[str, str] = {}
    dest = r.dest
    res = r.res
    for src, d in dest.items():
        if res[src]:
            dislodged_by[d] = src
            move = full[src]
            after[d] = units[src]._replace(loc=move.dest)  # type: ignore[union-attr]
    for prov, unit in units.items():
        if prov in dest and res[prov]:
            continue
        if prov not in dislodged_by:
            after[prov] = unit

    contested_count: dict[str, int] = {}
    for src, d in dest.items():
        if not res[src] and r.path_ok(src):
            contested_count[d] = contested_count.get(d, 0) + 1
    contested = frozenset(d for d, n in contested_count.items() if n >= 2 and d not in after)

    dislodged: dict[str, Dislodged] = {}
    destroyed: list[Unit] = []
    for prov, attacker in dislodged_by.items():
        unit = units.get(prov)
        if unit is None or (prov in dest and res[prov]):
            continue
        via = r.via[attacker]
        options = retreat_options(gmap, unit, attacker, via, after, contested)
        if options:
            dislodged[prov] = Dislodged(unit, attacker, via, options)
        else:
            destroyed.append(unit)

    for prov, order in full.items():
        kind = type(order)
        if prov in dislodged_by and not (prov in dest and res[prov]):
            outcomes[prov] = "dislodged"
        elif prov in unconvoyed:
            outcomes[prov] = "no convoy"
        elif kind is Move:
            if res[prov]:
                outcomes[prov] = "succeeds"
            elif r.via[prov] and not r.path_ok(prov):
                outcomes[prov] = "disrupted" if prov in r.convoyers else "no convoy"
            else:
                outcomes[prov] = "bounces"
        elif kind is SupportHold or kind is SupportMove:
            target = order.target.province  # type: ignore[union-attr]
            if prov not in r.hold_supports.get(target, ()) and prov not in r.move_supports.get(
                target, ()
            ):
                outcomes[prov] = "void"
            else:
                outcomes[prov] = "succeeds" if r.resolve(prov) else "cut"
        elif kind is Convoy:
            army = order.target.province  # type: ignore[union-attr]
            used = prov in r.convoyers.get(army, ()) and r.via.get(army, False)
            outcomes[prov] = "succeeds" if used else "void"
        else:
            outcomes[prov] = "succeeds"
    for prov, order in unconvoyed.items():
        full[prov] = order
    return MovementResolution(full, outcomes, after, dislodged, destroyed, contested)


def _impossible_moves(
    gmap: GameMap, units: Mapping[str, Unit], orders: Mapping[str, Order]
) -> dict[str, Order]:
    """Army moves to a non-adjacent province with no chain of fleets on the board between
    them: DATC 4.E.1 treats them as illegal, so the army holds (and may be supported)."""
    impossible: dict[str, Order] = {}
    for prov, order in orders.items():
        if (
            type(order) is Move
            and order.unit.type == ARMY
            and province_of(order.dest) not in gmap.army_moves[prov]
            and not _fleet_chain(gmap, units, prov, province_of(order.dest))
        ):
            impossible[prov] = order
    return impossible


def _fleet_chain(gmap: GameMap, units: Mapping[str, Unit], src: str, dest: str) -> bool:
    water = gmap.coastal_water
    frontier = [w for w in water.get(src, ()) if w in units]
    seen = set(frontier)
    while frontier:
        here = frontier.pop()
        near = gmap.fleet_reach[here]
        if dest in near:
            return True
        for nxt in near:
            if nxt not in seen and nxt in units and gmap.is_water(nxt):
                seen.add(nxt)
                frontier.append(nxt)
    return False

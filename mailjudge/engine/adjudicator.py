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
        "convoys",
        "deps",
        "dest",
        "gmap",
        "h2h",
        "hold_supports",
        "impossible",
        "move_supports",
        "moves_into",
        "orders",
        "res",
        "state",
        "supports",
        "units",
        "via",
    )

    def __init__(
        self, gmap: GameMap, units: Mapping[str, Unit], given: Mapping[str, Order]
    ) -> None:
        self.gmap = gmap
        self.units = units
        self.dest: dict[str, str] = {}  # move source province -> destination province
        self.moves_into: dict[str, list[str]] = {}
        self.convoyers: dict[str, set[str]] = {}
        self.hold_supports: dict[str, list[str]] = {}
        self.move_supports: dict[str, list[str]] = {}
        self.h2h: dict[str, str] = {}
        self.state: dict[str, int] = {}
        self.res: dict[str, bool] = {}
        self.deps: list[str] = []
        self.broken: set[str] = set()
        self.impossible: dict[str, Order] = {}

        far = self._read_orders(given)
        self._void_unreachable(far)
        self._link_convoys()
        self._decide_via(far)
        self._link_supports()

    def _read_orders(self, given: Mapping[str, Order]) -> list[str]:
        """One pass over the units: default holds, and the moves, supports and convoys.
        Returns the armies ordered to a province they do not border."""
        dest, into, units = self.dest, self.moves_into, self.units
        prov_of = self.gmap.loc_province
        army_moves = self.gmap.army_moves
        orders: dict[str, Order] = {}
        convoys: list[tuple[str, Convoy]] = []
        supports: list[tuple[str, SupportHold | SupportMove]] = []
        far: list[str] = []  # armies ordered to a province they do not border
        for prov, unit in units.items():
            order = given.get(prov)
            if order is None:
                orders[prov] = Hold(unit)
                continue
            orders[prov] = order
            kind = type(order)
            if kind is Move:
                d = prov_of[order.dest]  # type: ignore[union-attr]
                dest[prov] = d
                if d in into:
                    into[d].append(prov)
                else:
                    into[d] = [prov]
                if unit.type == ARMY and d not in army_moves[prov]:
                    far.append(prov)
            elif kind is SupportHold or kind is SupportMove:
                supports.append((prov, order))  # type: ignore[arg-type]
            elif kind is Convoy:
                convoys.append((prov, order))  # type: ignore[arg-type]
        self.orders = orders
        self.convoys = convoys
        self.supports = supports
        return far

    def _void_unreachable(self, far: list[str]) -> None:
        units, orders, dest, into = self.units, self.orders, self.dest, self.moves_into
        for src in far:
            if not _fleet_chain(self.gmap, units, src, dest[src]):
                # DATC 6.D.32: no fleets that could convoy it, so the order is void: it holds.
                self.impossible[src] = orders[src]
                orders[src] = Hold(units[src])
                d = dest.pop(src)
                into[d].remove(src)
                if not into[d]:
                    del into[d]

    def _link_convoys(self) -> None:
        units, dest, into = self.units, self.dest, self.moves_into
        res, state, prov_of = self.res, self.state, self.gmap.loc_province
        for fleet, convoy in self.convoys:
            army = prov_of[convoy.target.loc]
            if dest.get(army) == convoy.dest and units[army].type == ARMY:
                self.convoyers.setdefault(army, set()).add(fleet)
            if fleet not in into:
                res[fleet] = True  # nobody attacks it: it stays
                state[fleet] = _RESOLVED

    def _decide_via(self, far: list[str]) -> None:
        units, orders, dest, into = self.units, self.orders, self.dest, self.moves_into
        res, state = self.res, self.state
        # 4.A.3 with intent: by convoy when it must, or when it says VIA or an own fleet
        # convoys it (and some fleet does).
        via = self.via = dict.fromkeys(dest, False)
        for src in far:
            if src in dest:
                via[src] = True
        for army, fleets in self.convoyers.items():
            if not via[army]:
                power = units[army].power
                if orders[army].via or any(units[f].power == power for f in fleets):  # type: ignore[union-attr]
                    via[army] = True

        for src, d in dest.items():
            if via[src]:
                continue
            if d not in units:
                if len(into[d]) == 1:
                    res[src] = True  # by land into an empty province nobody else enters
                    state[src] = _RESOLVED
            elif dest.get(d) == src and not via[d]:
                self.h2h[src] = d

    def _link_supports(self) -> None:
        orders, dest, into = self.orders, self.dest, self.moves_into
        res, state, prov_of = self.res, self.state, self.gmap.loc_province
        for prov, support in self.supports:
            target = prov_of[support.target.loc]
            if type(support) is SupportHold:
                if target not in dest:
                    self.hold_supports.setdefault(target, []).append(prov)
            elif dest.get(target) == prov_of[support.dest] and (  # type: ignore[union-attr]
                # A support that names a coast must name the coast the fleet moves to.
                "/" not in support.dest or orders[target].dest == support.dest  # type: ignore[union-attr]
            ):
                self.move_supports.setdefault(target, []).append(prov)
            if prov not in into:
                res[prov] = True  # nobody attacks it: it is given if it matches
                state[prov] = _RESOLVED

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
                self.broken.add(province_of(self.orders[q].target.loc))  # type: ignore[union-attr]
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
        toward = self.gmap.loc_province[order.dest] if type(order) is SupportMove else None
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
    r = _Resolver(gmap, units, orders)
    full = r.orders
    impossible = r.impossible
    dest = r.dest
    resolve = r.resolve
    for src in dest:
        resolve(src)
    res = r.res

    moved = [src for src in dest if res[src]]
    after = dict(units)
    for src in moved:
        del after[src]
    losers: dict[str, tuple[Unit, str]] = {}  # province -> (dislodged unit, attacker's origin)
    for src in moved:
        d = dest[src]
        loser = after.get(d)
        if loser is not None:
            losers[d] = (loser, src)
        u = units[src]
        after[d] = Unit(u.power, u.type, full[src].dest)  # type: ignore[union-attr]
    failed_into: dict[str, int] = {}
    for src, d in dest.items():
        if not res[src] and r.path_ok(src):
            failed_into[d] = failed_into.get(d, 0) + 1
    contested = frozenset(d for d, n in failed_into.items() if n >= 2 and d not in after)

    dislodged: dict[str, Dislodged] = {}
    destroyed: list[Unit] = []
    for prov, (loser, attacker) in losers.items():
        via = r.via[attacker]
        options = retreat_options(gmap, loser, attacker, via, after, contested)
        if options:
            dislodged[prov] = Dislodged(loser, attacker, via, options)
        else:
            destroyed.append(loser)

    outcomes = dict.fromkeys(full, "succeeds")
    for src in dest:
        if not res[src]:
            if r.via[src] and not r.path_ok(src):
                outcomes[src] = "disrupted" if src in r.convoyers else "no convoy"
            else:
                outcomes[src] = "bounces"
    for prov in impossible:
        outcomes[prov] = "no convoy"
    used = {f for army, fleets in r.convoyers.items() if r.via[army] for f in fleets}
    for prov, _ in r.convoys:
        if prov not in used:
            outcomes[prov] = "void"
    hold_supports, move_supports = r.hold_supports, r.move_supports
    prov_of = gmap.loc_province
    for prov, support in r.supports:
        target = prov_of[support.target.loc]
        if prov in hold_supports.get(target, ()) or prov in move_supports.get(target, ()):
            if not resolve(prov):
                outcomes[prov] = "cut"
        else:
            outcomes[prov] = "void"
    for prov in losers:
        outcomes[prov] = "dislodged"
    full.update(impossible)
    return MovementResolution(full, outcomes, after, dislodged, destroyed, contested)


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

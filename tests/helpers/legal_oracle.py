"""The legal-order generator (engine/legal.py) held against an independent engine: MILA's
`diplomacy` package (PyPI, 1.1.2), whose Game.get_all_possible_orders() lists every order
each location may be given.

Positions come from seeded random games (engine/randomplay.py). A movement or adjustment
position is set on a MILA game directly (units, centres, phase). A retreat position is not:
its retreat options depend on where each attack came from and which provinces stood off,
which MILA only knows by adjudicating. So the movement phase before it is set on MILA with
the same orders and MILA adjudicates it; its dislodged units must be ours, and its retreat
options are then MILA's own.

The two engines write some orders differently. Each difference is normalised here, with the
rule that makes the two forms one order:

1. MILA keys the orders of a unit on a split coast twice (``SPA/NC`` and ``SPA``); both
   engines' lists are compared per province, under the key without a coast.
2. MILA lists a support of a fleet's move into a split-coast province once per coast and
   once without one (``S F MAO - SPA/NC``, ``S F MAO - SPA``). A support is given to a move
   into a province, whatever coast the fleet goes to (2000 rulebook, "Supporting a unit to
   a coastal province"; DATC 6.B.4 to 6.B.6), and the judge writes the province alone:
   the coast is dropped from MILA's support destinations.
3. MILA writes every move by convoy with VIA. The judge writes VIA only where the army could
   also go by land, since a move to a province it cannot walk to can only be by convoy
   (DATC 4.A.3): MILA's ``A LON - NWY VIA`` is ``A LON - NWY`` when MILA lists no
   ``A LON - NWY`` by land.
4. MILA lists WAIVE under each build site of a power owed builds; so does the judge.

One kind of movement phase MILA adjudicates differently, so the retreat phase after it is
not compared: MILA voids a support of a move against the supporter's own unit, where the
judge, with the DATC, only keeps it from dislodging that unit (6.E.3) and counts it
otherwise (6.E.12): in a head-to-head battle it adds to the defend strength of the move it
supports (DATC section 5). Such a phase is counted apart, and only when MILA did void such
a support in it; any other difference of adjudication is a disagreement.

What both engines share by design rather than by normalising: a convoy or a move by convoy
needs fleets at sea now (the routes MILA precomputes are kept only when every fleet of them
stands at sea), and a fleet is offered a convoy only on a route none of whose fleets could
be left out (MILA keeps the smallest routes only).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from diplomacy import Game

from mailjudge.engine.checker import parse_order
from mailjudge.engine.legal import legal_order_texts
from mailjudge.engine.maps import GameMap
from mailjudge.engine.randomplay import Orders, play
from mailjudge.engine.state import MOVEMENT, RETREAT, Position

Lists = dict[str, set[str]]


def canonical_orders(gmap: GameMap, pos: Position, orders: Orders) -> dict[str, list[str]]:
    """A random game's order texts (many spellings) in the judge's canonical form."""
    return {
        power: [str(parse_order(text, pos, power, gmap)) for text in texts]
        for power, texts in orders.items()
    }


def mila_game(gmap: GameMap, pos: Position, map_name: str = "standard") -> Game:
    """A MILA game on its map ``map_name`` standing at ``pos`` (movement or adjustment)."""
    game = Game(map_name=map_name)
    game.clear_units()
    game.clear_centers()
    game.set_current_phase(str(pos.phase))
    for power in gmap.power_names:
        units = [str(u) for u in pos.units_of(power)]
        if units:
            game.set_units(power, units, reset=True)
        centres = [c.upper() for c in pos.centres_of(power)]
        if centres:
            game.set_centers(power, centres, reset=True)
    return game


def mila_after(gmap: GameMap, before: Position, orders: Orders) -> Game:
    """MILA's game after adjudicating ``before`` with the same orders."""
    game = mila_game(gmap, before)
    for power, texts in canonical_orders(gmap, before, orders).items():
        game.set_orders(power, texts)
    game.process()
    return game


def mila_dislodged(game: Game) -> set[str]:
    """The units MILA has dislodged, as ``A PAR``."""
    return {unit for power in game.powers.values() for unit in power.retreats}


def voids_support_against_own_unit(
    gmap: GameMap, before: Position, orders: Orders, mila: Game
) -> bool:
    """Did MILA void a support, given to a move into a province held by a unit of the
    supporter's own power? (The judge counts it; see the notes above.)"""
    results = mila.result_history.last_value()
    for texts in canonical_orders(gmap, before, orders).values():
        for text in texts:
            words = text.split()
            if len(words) != 7 or words[2] != "S":
                continue
            supporter = before.units[words[1].lower().split("/")[0]]
            held = before.units.get(words[6].lower().split("/")[0])
            voided = "void" in {str(r) for r in results.get(" ".join(words[:2]), ())}
            if held is not None and held.power == supporter.power and voided:
                return True
    return False


def mila_lists(game: Game) -> Lists:
    """MILA's possible orders per province, normalised to the judge's forms (see above)."""
    raw = game.get_all_possible_orders()
    lists: Lists = {}
    for loc, orders in raw.items():
        if "/" in loc or not orders:
            continue  # the same orders are under the key without the coast (1)
        found = set(orders)
        lists[loc.lower()] = {_normalise(order, found) for order in found}
    return lists


def _normalise(order: str, same_unit: set[str]) -> str:
    words = order.split()
    if len(words) == 7 and words[2] == "S" and "/" in words[6]:
        return " ".join([*words[:6], words[6][:3]])  # (2)
    if words[-1] == "VIA" and " ".join(words[:-1]) not in same_unit:
        return " ".join(words[:-1])  # (3)
    return order


def our_lists(gmap: GameMap, pos: Position) -> Lists:
    return {prov: set(texts) for prov, texts in legal_order_texts(gmap, pos).items() if texts}


@dataclass
class Disagreement:
    seed: int
    phase: str
    province: str
    only_ours: list[str]
    only_mila: list[str]

    def __str__(self) -> str:
        return (
            f"seed {self.seed} {self.phase} {self.province.upper()}: only ours "
            f"{self.only_ours}, only MILA's {self.only_mila}"
        )


@dataclass
class Tally:
    positions: int = 0
    movement: int = 0  # of which movement phases
    retreat: int = 0
    adjustment: int = 0
    units: int = 0  # units (and build sites) whose lists were compared
    orders: int = 0  # orders on the compared lists
    adjudications_differ: int = 0  # MILA voided a support against own unit (see above)


def compare(seed: int, gmap: GameMap, pos: Position, mila: Game) -> list[Disagreement]:
    ours, theirs = our_lists(gmap, pos), mila_lists(mila)
    return [
        Disagreement(
            seed,
            str(pos.phase),
            prov,
            sorted(ours.get(prov, set()) - theirs.get(prov, set())),
            sorted(theirs.get(prov, set()) - ours.get(prov, set())),
        )
        for prov in sorted(set(ours) | set(theirs))
        if ours.get(prov) != theirs.get(prov)
    ]


def game_positions(
    gmap: GameMap, seed: int, phases: int
) -> Iterator[tuple[Position, Position | None, Orders | None]]:
    """A random game's positions, each with the movement phase and orders before it when
    it is a retreat phase."""
    before: tuple[Position, Orders] | None = None
    for pos, orders, _ in play(gmap, seed, phases):
        if pos.phase.type == RETREAT:
            assert before is not None
            yield pos, before[0], before[1]
        else:
            yield pos, None, None
        before = (pos, orders) if pos.phase.type == MOVEMENT else None


def run(gmap: GameMap, seeds: range, phases: int, tally: Tally) -> list[Disagreement]:
    """Compare every position of the seeded games; count what was compared in ``tally``."""
    found: list[Disagreement] = []
    for seed in seeds:
        for pos, before, orders in game_positions(gmap, seed, phases):
            if before is None:
                mila = mila_game(gmap, pos)
            else:
                assert orders is not None
                mila = mila_after(gmap, before, orders)
                ours = {str(d.unit) for d in pos.dislodged.values()}
                if mila.get_current_phase() != str(pos.phase) or mila_dislodged(mila) != ours:
                    if not voids_support_against_own_unit(gmap, before, orders, mila):
                        found.append(Disagreement(seed, str(pos.phase), "*", sorted(ours), []))
                    tally.adjudications_differ += 1
                    continue
            found += compare(seed, gmap, pos, mila)
            lists = our_lists(gmap, pos)
            tally.positions += 1
            setattr(tally, pos.phase.type, getattr(tally, pos.phase.type) + 1)
            tally.units += len(lists)
            tally.orders += sum(len(v) for v in lists.values())
    return found

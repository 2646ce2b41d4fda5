"""What each place on the board is worth to one power, after DumbBot's published design
(David Norman's description of how DumbBot chooses its orders, DAIDE, 2003).

1. Each power has a size that grows faster than its centre count: a*n*n + b*n + c.
2. A province's first value: a centre of the power's own is worth the size of the largest
   power with a unit next to it (how badly it needs defending); anybody else's centre, the
   size of the power owning it (how much taking it hurts a leader); a centre nobody owns,
   a fixed size; any other province, nothing. Attack and defence carry their own weights.
3. The values spread: in each of several rounds a place takes the sum of its own and its
   neighbours' values of the round before, divided by five, so a unit far from anything
   still sees which way the centres lie and units drift toward the front.
4. A place's value to a unit is the weighted sum of its rounds, plus the strength the power
   has on the province (its own units next to it) and less the competition (the most units
   any one other power has next to it), each weighted.

Armies and fleets read separate tables (a fleet's places are its coasts, its neighbours the
places it can sail to). Everything here is arithmetic on the public board: no draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy

from mailjudge.engine.maps import ARMY, FLEET, GameMap, province_of
from mailjudge.engine.state import Position, Unit


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each part counts, for one kind of decision."""

    attack: float  # a centre another power owns (or nobody)
    defence: float  # a centre of the power's own
    rounds: tuple[float, ...]  # the weight of each spreading round, the first unspread
    strength: float
    competition: float
    neutral_size: float = 16.0  # what a centre nobody owns counts as


# The three sizes of a power: a*n*n + b*n + c with n its centres.
SIZE = (1.0, 4.0, 16.0)
# Spring looks further ahead (the spread rounds count most), Fall looks at what is taken
# now (the first round, the place itself, counts most); adjustments value defence.
SPRING = Weights(700, 300, (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
FALL = Weights(600, 400, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
ADJUST = Weights(300, 700, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 0, 0)


def power_size(centres: int) -> float:
    a, b, c = SIZE
    return a * centres * centres + b * centres + c


@cache
def _kernel(gmap: GameMap, utype: str, rounds: tuple[float, ...]) -> tuple[list[str], Any]:
    """The places a unit of this type can stand, and the matrix that turns the centres'
    first values into the places' weighted spread: step 3 is linear, so its rounds are
    summed once per map (sum of w[n] * S**n @ C, S = (I + adjacency) / 5, C the places
    each centre is) and each power's values are one product."""
    moves = gmap.army_moves if utype == ARMY else gmap.fleet_moves
    nodes = sorted(moves)
    index = {node: i for i, node in enumerate(nodes)}
    step = numpy.identity(len(nodes))
    for node, near in moves.items():
        for other in near:
            step[index[node], index[other]] += 1.0
    step /= 5.0
    centres = sorted(gmap.centres)
    at_centre = numpy.zeros((len(nodes), len(centres)))
    for i, node in enumerate(nodes):
        prov = province_of(node)
        if prov in gmap.centres:
            at_centre[i, centres.index(prov)] = 1.0
    total = numpy.zeros_like(at_centre)
    spread = at_centre
    for weight in rounds:
        total += weight * spread
        spread = step @ spread
    return nodes, total / sum(rounds)


def reach_of(gmap: GameMap, unit: Unit) -> frozenset[str]:
    """The provinces a unit could move into by itself (convoys are not counted)."""
    if unit.type == ARMY:
        return gmap.army_moves[unit.province]
    return gmap.fleet_reach[unit.loc]


def adjacent_counts(gmap: GameMap, pos: Position) -> dict[str, dict[str, int]]:
    """Province -> power -> how many of that power's units could move into it."""
    table: dict[str, dict[str, int]] = {}
    for unit in pos.units.values():
        for prov in reach_of(gmap, unit):
            counts = table.setdefault(prov, {})
            counts[unit.power] = counts.get(unit.power, 0) + 1
    return table


def _first_values(
    gmap: GameMap,
    pos: Position,
    power: str,
    weights: Weights,
    around: Mapping[str, Mapping[str, int]],
) -> dict[str, float]:
    """Step 2: each centre's value before spreading (other provinces are worth 0)."""
    counts = pos.centre_counts()
    sizes = {p: power_size(n) for p, n in counts.items()}
    values: dict[str, float] = {}
    for centre in gmap.centres:
        owner = pos.sc_owners.get(centre)
        if owner == power:
            near = [sizes.get(p, power_size(0)) for p in around.get(centre, {}) if p != power]
            values[centre] = weights.defence * max(near, default=0.0)
        elif owner is None:
            values[centre] = weights.attack * weights.neutral_size
        else:
            values[centre] = weights.attack * sizes[owner]
    return values


@dataclass(frozen=True, slots=True)
class Values:
    """A power's values of every place, for armies and fleets, and its neighbours' counts."""

    power: str
    places: Mapping[str, Mapping[str, float]]  # unit type -> place -> value
    around: Mapping[str, Mapping[str, int]]  # province -> power -> units that could enter

    def of(self, utype: str, loc: str) -> float:
        return self.places[utype].get(loc, 0.0)

    def strength(self, prov: str) -> int:
        return self.around.get(prov, {}).get(self.power, 0)

    def competition(self, prov: str) -> int:
        return max((n for p, n in self.around.get(prov, {}).items() if p != self.power), default=0)


def values_for(
    gmap: GameMap,
    pos: Position,
    power: str,
    weights: Weights,
    around: Mapping[str, Mapping[str, int]] | None = None,
) -> Values:
    """Steps 1 to 4 for one power."""
    around = adjacent_counts(gmap, pos) if around is None else around
    first = _first_values(gmap, pos, power, weights, around)
    places: dict[str, dict[str, float]] = {}
    unit = power_size(0) * 100  # one unit's strength is worth about a small centre
    centres = numpy.array([first[c] for c in sorted(gmap.centres)])
    for utype in (ARMY, FLEET):
        nodes, kernel = _kernel(gmap, utype, weights.rounds)
        # Rounded, so that another machine's last bits of arithmetic rank places the same.
        spreads = [round(v, 3) for v in (kernel @ centres).tolist()]
        table: dict[str, float] = {}
        for node, spread in zip(nodes, spreads, strict=True):
            prov = province_of(node)
            counts = around.get(prov, {})
            mine = counts.get(power, 0)
            rival = max((n for p, n in counts.items() if p != power), default=0)
            # Rivals next to a centre of the power's own make defending it more urgent;
            # next to anything else they make taking it harder.
            rivalry = 1 if pos.sc_owners.get(prov) == power else -1
            weighed = weights.strength * mine + rivalry * weights.competition * rival
            table[node] = spread + weighed * unit / 1000 * (1 if first.get(prov) else 0.1)
        places[utype] = table
    return Values(power, places, around)

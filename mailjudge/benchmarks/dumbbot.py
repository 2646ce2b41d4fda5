"""Our DumbBot, the benchmark's reference opponent, written from David Norman's published
description of how DumbBot chooses its orders (DAIDE, 2003): the place values of
engine/valuation.py, then for each unit in a random order the best place it could stand,
with a random chance of the second best, third best ... the closer in value the likelier;
a place another of its units already takes is passed over; a unit that stays supports a
neighbouring unit of its own moving into a contested province (or one that stays where it
could be attacked), else holds. Retreats and builds take the most valuable places; the
units removed are those standing where they are worth least.

It shares the value arithmetic and the unit-by-unit choice with the playing stand-in
(engine/standin_play.py), and none of the stand-in's own care: no Fall duties (staying on
a centre to take it, covering an empty centre under threat) and no guard of an owned
centre when removing.
"""

from __future__ import annotations

import random

from mailjudge.engine.adjustments import adjustment_due
from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import Order, Remove
from mailjudge.engine.standin_play import Plan, play_adjustments, play_retreats
from mailjudge.engine.state import MOVEMENT, RETREAT, Position
from mailjudge.engine.valuation import ADJUST, FALL, SPRING, values_for

# DumbBot's chance of passing to the next best place when the two are worth the same.
PLAY_ALTERNATIVE = 0.3


def dumbbot_orders(gmap: GameMap, pos: Position, power: str, rng: random.Random) -> list[Order]:
    if pos.phase.type == MOVEMENT:
        values = values_for(gmap, pos, power, SPRING if pos.phase.season == "S" else FALL)
        plan = Plan(gmap, pos, power)
        units = list(plan.units)
        rng.shuffle(units)
        for unit in units:
            plan.choose(unit, values, rng, PLAY_ALTERNATIVE)
        plan.settle()
        return plan.orders(values)
    if pos.phase.type == RETREAT:
        return play_retreats(gmap, pos, power)
    due = adjustment_due(pos, power)
    if due >= 0:
        return play_adjustments(gmap, pos, power, False)
    values = values_for(gmap, pos, power, ADJUST)
    units = sorted(pos.units_of(power), key=lambda u: (values.of(u.type, u.loc), u.loc))
    return [Remove(u) for u in units[:-due]]

"""Passive powers: powers whose units nobody orders any more.

Survive's outcasts and Diplonomic's powers in civil disorder play this way: their units
hold (others may support them), a dislodged unit disbands instead of retreating, they never
build, and when they must remove units a fixed rule picks which. Only that rule differs
between the variants, so it is the one thing a variant chooses here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from mailjudge.engine.maps import GameMap
from mailjudge.engine.state import Unit

IGNORED = "a passive power's units hold: its orders are not used"


class Removal(Enum):
    """Which units a passive power loses when it has more units than centres."""

    # Survive rule 4b: the first unit listed that is not on a supply centre, else the
    # first listed. "Listed" is the order of the results: armies, then fleets, each by
    # province code (A BUD, A VIE, F TRI).
    LISTED_OFF_CENTRE = "listed off centre"
    # DATC 6.J (and Diplonomic rule 24): farthest from home, fleets before armies, by name.
    FARTHEST = "farthest"


@dataclass(frozen=True, slots=True)
class Passive:
    powers: frozenset[str] = frozenset()
    removal: Removal = Removal.FARTHEST

    def __contains__(self, power: object) -> bool:
        return power in self.powers


NOBODY = Passive()  # the standard game: every power orders its own units


def listed(units: Sequence[Unit]) -> list[Unit]:
    """A power's units in the order the results list them."""
    return sorted(units, key=lambda u: (u.type, u.loc))


def listed_off_centre(gmap: GameMap, units: Sequence[Unit], count: int) -> list[Unit]:
    """Survive 4b, applied once per removal: off-centre units first, in listed order."""
    ordered = listed(units)
    off = [u for u in ordered if u.province not in gmap.centres]
    on = [u for u in ordered if u.province in gmap.centres]
    return (off + on)[:count]

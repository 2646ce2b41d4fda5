"""Positions: which units stand where, in which phase, and who owns which centre."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from mailjudge.engine.maps import ARMY, GameMap, province_of

MOVEMENT, RETREAT, ADJUSTMENT = "movement", "retreat", "adjustment"
PHASE_TYPES = {"M": MOVEMENT, "R": RETREAT, "A": ADJUSTMENT}
SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
_PHASE_RE = re.compile(r"([SFW])(\d{4})([MRA])")
# njudge's manual also writes a phase short: Phase S 1903 M, Phase W 1903 B.
_SEASON_WORDS = {"SPR": "S", "FAL": "F", "AUT": "F", "WIN": "W", "S": "S", "F": "F", "W": "W"}
_TYPE_WORDS = {
    "MOV": MOVEMENT, "RET": RETREAT, "ADJ": ADJUSTMENT, "BUI": ADJUSTMENT,
    "M": MOVEMENT, "R": RETREAT, "A": ADJUSTMENT, "B": ADJUSTMENT,
}  # fmt: skip


class Unit(NamedTuple):
    power: str
    type: str  # "A" or "F"
    loc: str  # province code, or code/coast for a fleet on a split coast

    @property
    def province(self) -> str:
        return province_of(self.loc)

    def __str__(self) -> str:
        return f"{self.type} {self.loc.upper()}"


class Dislodged(NamedTuple):
    unit: Unit
    attacker_from: str
    via_convoy: bool
    options: tuple[str, ...]  # where it may retreat; empty means it is destroyed


class Phase(NamedTuple):
    season: str  # S, F or W
    year: int
    type: str  # MOVEMENT, RETREAT or ADJUSTMENT

    @classmethod
    def parse(cls, text: str) -> Phase:
        m = _PHASE_RE.fullmatch(text.strip().upper())
        if not m:
            raise ValueError(
                f"{text!r} is not a phase; write season, year and type, "
                "like S1901M, F1902R or W1903A"
            )
        return cls(m.group(1), int(m.group(2)), PHASE_TYPES[m.group(3)])

    @classmethod
    def from_words(cls, text: str) -> Phase:
        """A phase as players write it: S1901M, or njudge's ``Fall 1901 Movement``
        (season, year, type: Spring/Fall/Autumn/Winter, Movement/Retreat/Adjustment or
        Builds; the type may be left out of a Spring or Fall phase: movement)."""
        words = text.replace(",", " ").upper().split()
        if len(words) == 1:
            return cls.parse(words[0])
        season = _SEASON_WORDS.get(words[0][:3]) if words else None
        kind = _TYPE_WORDS.get(words[2][:3]) if len(words) == 3 else None
        if len(words) == 2 and season in ("S", "F"):
            kind = MOVEMENT
        year = words[1] if len(words) > 1 else ""
        # A year of a few ASCII digits ("²" is a digit to isdigit, not to int()).
        plain_year = year.isascii() and year.isdigit() and len(year) <= 6
        if season is None or kind is None or not plain_year:
            raise ValueError(f"{text!r} is not a phase; write it like Fall 1901 Movement or F1901M")
        if (season == "W" and kind != ADJUSTMENT) or (season != "W" and kind == ADJUSTMENT):
            raise ValueError(f"{text!r}: adjustments are in Winter, and only adjustments")
        return cls(season, int(words[1]), kind)

    def order_key(self) -> tuple[int, int, int]:
        """Sorts phases in the order they are played."""
        return (
            self.year,
            "SFW".index(self.season),
            (MOVEMENT, RETREAT, ADJUSTMENT).index(self.type),
        )

    def __str__(self) -> str:
        return f"{self.season}{self.year:04d}{self.type[0].upper()}"  # year 1: S0001M, as MILA

    def long_name(self) -> str:
        return f"{SEASONS[self.season]} {self.year} {self.type}"


@dataclass(frozen=True, slots=True)
class Position:
    """One phase's board. Mappings are keyed by province and never mutated once built."""

    phase: Phase
    units: Mapping[str, Unit]
    sc_owners: Mapping[str, str]
    dislodged: Mapping[str, Dislodged] = field(default_factory=dict)
    contested: frozenset[str] = frozenset()

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centres_of(self, power: str) -> list[str]:
        return sorted(c for c, p in self.sc_owners.items() if p == power)

    def centre_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for owner in self.sc_owners.values():
            counts[owner] = counts.get(owner, 0) + 1
        return counts


def build_units(units: Iterable[Unit]) -> dict[str, Unit]:
    """Key units by province, refusing two units in one province."""
    table: dict[str, Unit] = {}
    for unit in units:
        prov = province_of(unit.loc)
        if prov in table:
            raise ValueError(f"two units in {prov.upper()}: {table[prov]} and {unit}")
        table[prov] = unit
    return table


def retreat_options(
    gmap: GameMap,
    unit: Unit,
    attacker_from: str,
    via_convoy: bool,
    occupied: Mapping[str, object],
    contested: frozenset[str],
) -> tuple[str, ...]:
    """Where a dislodged unit may go: not occupied, not a standoff, not where the attack came
    from (unless the attacker came by convoy)."""
    if unit.type == ARMY:
        targets: Iterable[str] = gmap.army_moves.get(province_of(unit.loc), ())
    else:
        targets = gmap.fleet_moves.get(unit.loc, ())
    options = []
    prov_of = gmap.loc_province
    for loc in targets:
        prov = prov_of[loc]
        if prov in occupied or prov in contested:
            continue
        if prov == attacker_from and not via_convoy:
            continue
        options.append(loc)
    return tuple(sorted(options))


def initial_position(gmap: GameMap) -> Position:
    """The map's starting position: home units, home centres owned."""
    units = [Unit(p.name, t, loc) for p in gmap.powers.values() for t, loc in p.units]
    owners = {h: p.name for p in gmap.powers.values() for h in p.homes}
    return Position(Phase.parse(gmap.first_phase), build_units(units), owners)

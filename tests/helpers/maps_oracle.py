"""Every map's random games adjudicated by the judge and by MILA's `diplomacy` package (PyPI
1.1.2), phase by phase: the units, the dislodged units with their retreat options, the
centres and the phase itself must be the same.

A game is played by the judge (engine/randomplay.py). At each movement or adjustment phase a
MILA game is set to the judge's position (units, centres, phase: tests/helpers/legal_oracle.py's
``mila_game``) and given the same orders, in the judge's canonical text; a retreat phase is
MILA's own, left by its adjudication of the movement phase before it (retreat options
depend on where attacks came from, which only the adjudication knows). Before each phase's
orders both positions are compared.

Chaos and the starts of engine/starts.py (England-Turkey, Frankland-Juggernaut, ...) are no
MILA maps. The oracle writes one for MILA from MILA's own standard.map: its provinces and
adjacencies as they are, and our map's powers with their home centres and starting units
(Chaos: 34 powers, each with one home centre and no unit, the game beginning with the
builds of Winter 1900 under MILA's BUILD_ANY rule).

Where MILA breaks a DATC rule the judge follows the DATC, and the phase is counted apart
(``Tally.datc``) only when MILA did break that rule in it:

- DATC 6.E.3 / 6.E.12 (support against the supporter's own unit): MILA voids the support,
  the judge only keeps it from dislodging that unit (legal_oracle's
  ``voids_support_against_own_unit``). The phase after it is then not compared.
- The civil-disorder removal (DATC 6.J and the 2000 rulebook's civil disorder rule, README
  "Adjudication rules"): among units equally far from home, fleets first, then in the
  alphabetical order of the province's *name*. MILA takes the alphabetical order of the
  province's code, which on the standard map is the same order and on others is not
  (Known World: Sea of Tangiers, STA, before Straits of Jebel Tarik, SJT). A phase where
  the two removed different units of the same kind at the same distance is counted apart
  (``Tally.tie_by_code``); any other difference is a disagreement.
- Not a DATC rule but a rule of the map data: a dummy power (``dummy = true``, MILA's
  DUMMY, the Known World's neutral states) is played by nobody and never wins; MILA ends
  the game when it holds the victory count. The judge plays on; the game is counted apart
  (``Tally.dummy_at_count``) and left there.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from diplomacy import Game

from helpers.legal_oracle import canonical_orders, mila_game, voids_support_against_own_unit
from helpers.mila_convoys import prime
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.randomplay import play
from mailjudge.engine.starts import STARTS
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT, Phase, Position


@cache
def mila_map_name(name: str) -> str:
    """What MILA's Game(map_name=...) is given for our map ``name``, its convoy paths
    ready (tests/helpers/mila_convoys.py). A map made by rule from our standard map (Chaos,
    the starts of engine/starts.py) is no MILA map: MILA is given one written from its own
    standard.map, its provinces and adjacencies as they are, with our map's powers, homes,
    starting units, neutral centres, first phase and BUILD_ANY."""
    if name != "chaos" and name not in STARTS:
        prime(name)
        return name
    import diplomacy

    standard = (Path(diplomacy.__file__).parent / "maps" / "standard.map").read_text()
    lines = standard.splitlines()
    first = next(i for i, line in enumerate(lines) if " = " in line)
    folder = Path(tempfile.mkdtemp(prefix=f"mila-{name}-"))
    path = folder / f"{name}.map"
    path.write_text("\n".join([*_mila_head(load_map(name)), "", *lines[first:]]) + "\n")
    prime(str(path))
    return str(path)


def _mila_head(gmap: GameMap) -> list[str]:
    """A MILA map file's rules, first phase, powers (homes, units) and neutral centres."""
    first = Phase.parse(gmap.first_phase)
    season = {"S": "SPRING", "F": "FALL", "W": "WINTER"}[first.season]
    kind = {MOVEMENT: "MOVEMENT", ADJUSTMENT: "ADJUSTMENTS"}[first.type]
    head = ["RULE BUILD_ANY"] if gmap.build_any else []
    head += [f"BEGIN {season} {first.year} {kind}", ""]
    for power in gmap.power_names:
        homes = " ".join(sorted(h.upper() for h in gmap.home_centres[power]))
        head.append(f"{power} ({power}) {homes}")
        head += [f"{kind_} {loc.upper()}" for kind_, loc in gmap.powers[power].units]
        head.append("")
    homes = {h for p in gmap.power_names for h in gmap.home_centres[p]}
    neutral = " ".join(sorted(c.upper() for c in gmap.centres - homes))
    return [*head, f"UNOWNED {neutral}"] if neutral else head


Board = dict[str, object]


def our_board(pos: Position) -> Board:
    return {
        "phase": str(pos.phase),
        "units": sorted(str(u) for u in pos.units.values()),
        "dislodged": {
            str(d.unit): sorted(o.upper() for o in d.options) for d in pos.dislodged.values()
        },
        "centres": sorted(f"{c.upper()} {p}" for c, p in pos.sc_owners.items()),
    }


def mila_board(game: Game) -> Board:
    powers = game.powers.values()
    return {
        "phase": game.get_current_phase(),
        "units": sorted(u for p in powers for u in p.units if not u.startswith("*")),
        "dislodged": {u: sorted(o) for p in powers for u, o in p.retreats.items()},
        "centres": sorted(f"{c} {p.name}" for p in powers for c in p.centers),
    }


@dataclass
class Tally:
    phases: int = 0
    movement: int = 0
    retreat: int = 0
    adjustment: int = 0
    datc: int = 0  # movement phases MILA adjudicated against the DATC (see above)
    tie_by_code: int = 0  # civil-disorder ties MILA broke by province code (see above)
    dummy_at_count: int = 0  # games MILA ended for a dummy power's count (see above)
    disagreements: list[str] = field(default_factory=list)


def _dummy_at_count(gmap: GameMap, pos: Position) -> bool:
    counts: dict[str, int] = {}
    for owner in pos.sc_owners.values():
        counts[owner] = counts.get(owner, 0) + 1
    return any(gmap.powers[p].dummy and n >= gmap.victory_centres for p, n in counts.items())


def _tie_broken_by_code(gmap: GameMap, pos: Position, ours: Board, theirs: Board) -> bool:
    """Do the two boards differ only in civil-disorder removals of units of the same kind
    and distance from home, for the same powers?"""
    if {k: v for k, v in ours.items() if k != "units"} != {
        k: v for k, v in theirs.items() if k != "units"
    }:
        return False
    ours_units, mila_units = set(ours["units"]), set(theirs["units"])  # type: ignore[call-overload]
    before = {str(u): u for u in pos.units.values()}
    if not (ours_units ^ mila_units) <= set(before):
        return False  # a build differs, not a removal

    def removed(after: set[str]) -> list[tuple[str, str, int]]:
        gone = [before[text] for text in set(before) - after]
        return sorted(
            (u.power, u.type, gmap.civil_disorder_distance(u.power, u.type, u.loc)) for u in gone
        )

    return removed(ours_units) == removed(mila_units)


def run(name: str, seeds: range, phases: int, tally: Tally) -> Tally:
    """Play each seed's game for ``phases`` phases; after each phase, MILA's board must be
    the judge's next position."""
    gmap = load_map(name)
    for seed in seeds:
        carried: Game | None = None
        for pos, orders, outcome in play(gmap, seed, phases):
            game = (
                carried
                if pos.phase.type == RETREAT and carried
                else mila_game(gmap, pos, mila_map_name(gmap.name))
            )
            for power, texts in canonical_orders(gmap, pos, orders).items():
                game.set_orders(power, texts)
            game.process()
            tally.phases += 1
            setattr(tally, pos.phase.type, getattr(tally, pos.phase.type) + 1)
            ours, theirs = our_board(outcome.next), mila_board(game)
            if outcome.winners:
                ours.pop("phase"), theirs.pop("phase")  # MILA's game is COMPLETED
            if outcome.next.phase.type == RETREAT:
                # The judge owns Fall's centres before the retreats, MILA after them; they
                # are compared when the retreat phase is done.
                ours.pop("centres"), theirs.pop("centres")
            if ours == theirs:
                carried = game
                continue
            if pos.phase.type == MOVEMENT and voids_support_against_own_unit(
                gmap, pos, orders, game
            ):
                tally.datc += 1
                if outcome.next.phase.type == RETREAT:
                    break  # the retreat phase would be MILA's adjudication, not the DATC's
                carried = None
                continue
            if theirs.get("phase") == "COMPLETED" and _dummy_at_count(gmap, outcome.next):
                tally.dummy_at_count += 1
                break
            if pos.phase.type == ADJUSTMENT and _tie_broken_by_code(gmap, pos, ours, theirs):
                tally.tie_by_code += 1
                continue
            diff = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
            tally.disagreements.append(f"{name} seed {seed} {pos.phase}: {diff}")
            break
    return tally

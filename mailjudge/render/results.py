"""The results of a phase, for the results mail, PREVIEW and HISTORY."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.phases import PhaseOutcome, ResultRow
from mailjudge.engine.state import ADJUSTMENT, Phase, Position
from mailjudge.outbound.message import board_cid
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import BoardPicture, Game, PhaseRecord

# How each outcome shows after an order, in the judges' customary way.
MARKS = {
    "succeeds": "",
    "bounces": " (*bounce*)",
    "cut": " (*cut*)",
    "dislodged": " (*dislodged*)",
    "void": " (*void*)",
    "invalid": " (*invalid*)",
    "disrupted": " (*disrupted*)",
    "no convoy": " (*no convoy*)",
    "replaced": " (*replaced*)",
    "multiple": " (*multiple*)",
    "disbanded": " (*disbanded*)",
    "civil disorder": " (*civil disorder*)",
}


def order_line(result: ResultRow) -> str:
    mark = MARKS.get(result["outcome"], f" (*{result['outcome']}*)")
    default = " [default]" if result.get("default") else ""
    standin = " (stand-in)" if result.get("standin") else ""
    return f"{result['order']}{mark}{default}{standin}"


@dataclass
class PhaseFacts:
    """What a report of one phase needs, from a fresh outcome or from a stored record."""

    results: list[ResultRow]
    after: Position  # the board when the phase is done
    next: Position  # the phase to play next
    destroyed: list[str]
    winners: list[str]
    before_owners: Mapping[str, str] | None = None  # centre owners when the phase began
    map_name: str = "standard"  # the game's map (its powers and build sites)
    # Each power's centres as they count toward victory, where a variant's rule makes
    # them count otherwise than one each (PhaseOutcome.counted); empty otherwise.
    counted: Mapping[str, int] = field(default_factory=dict)


def facts_of(
    results: list[ResultRow],
    outcome: PhaseOutcome,
    before_owners: Mapping[str, str] | None = None,
    map_name: str = "standard",
) -> PhaseFacts:
    return PhaseFacts(
        results,
        outcome.after,
        outcome.next,
        [f"{u.power} {u}" for u in outcome.destroyed],
        sorted(outcome.winners),
        before_owners,
        map_name,
        outcome.counted,
    )


def record_facts(
    record: PhaseRecord, next_position: Mapping[str, Any], gmap: GameMap
) -> PhaseFacts:
    """A stored phase's facts; ``next_position`` is the one it led to (the next record's,
    or the game's own for the last)."""
    stored = record.results
    return PhaseFacts(
        list(stored["results"]),
        position_from_dict(stored["after"], gmap),
        position_from_dict(next_position, gmap),
        list(stored.get("destroyed", [])),
        list(stored.get("winners", [])),
        dict(record.position.get("sc_owners") or {}),
        gmap.name,
        dict(stored.get("counted") or {}),
    )


def _unused_adjustments(gmap: GameMap, facts: PhaseFacts) -> dict[str, str]:
    """After an adjustment phase, a line for each power the results would leave out: its
    builds not used (waived by default) or that it had nothing to adjust. The count due
    is worked back from the board after the phase and the builds and removals made."""
    lines: dict[str, str] = {}
    for power in gmap.power_names:
        mine = [r for r in facts.results if r["power"] == power]
        done = [r["order"] for r in mine if r["outcome"] in ("succeeds", "civil disorder")]
        built = sum(1 for order in done if order.endswith(" B"))
        removed = sum(1 for order in done if order.endswith(" D"))
        waived = sum(1 for order in done if order == "WAIVE")
        centres = sum(1 for owner in facts.after.sc_owners.values() if owner == power)
        units = sum(1 for unit in facts.after.units.values() if unit.power == power)
        due = centres - (units - built + removed)
        unused = due - built - waived
        if unused > 0:
            lines[power] = f"{unused} build{'s' if unused > 1 else ''} not used (waived)"
        elif not mine and (centres or units):
            lines[power] = "no builds or removals due"
    return lines


# The rule that chose each removal nobody ordered, by the name the engine keeps with it
# (engine/adjustments.py): the results say which one, in its own words.
REMOVAL_RULES = {
    "random": (
        "CIVIL_DISORDER (seed 001): drawn at random, units off supply centres first; the"
        " draw is the order of sha256 of game:phase:POWER:place, lowest first"
    ),
    "farthest": (
        "Diplonomic rule 24 and DATC 6.J: the units farthest from home first, then fleets"
        " before armies, then by province name"
    ),
    "listed off centre": (
        "Survive rule 4b: the first unit listed that is not on a supply centre, else the"
        " first unit listed"
    ),
}
UNNAMED_REMOVALS = "the civil-disorder rule"  # a phase stored before the rule was kept


def report(facts: PhaseFacts, build_any: bool = False, seeded: bool = False) -> dict[str, Any]:
    """The words of a phase's results. ``seeded`` is no longer read: each removal nobody
    ordered names the rule that chose it."""
    gmap = load_map(facts.map_name)
    by_power: dict[str, list[str]] = {}
    reasons: list[str] = []
    removed_by_rule: dict[str, list[str]] = {}
    for r in facts.results:
        by_power.setdefault(r["power"], []).append(order_line(r))
        if r["outcome"] == "invalid" and r.get("reason"):
            reasons.append(f"{r['power']}: {r['order']}: {r['reason']}")
        if r["outcome"] == "civil disorder" and facts.after.phase.type == ADJUSTMENT:
            rule = REMOVAL_RULES.get(r.get("reason", ""), UNNAMED_REMOVALS)
            removed_by_rule.setdefault(rule, []).append(
                f"{r['power']} {r['order'].removesuffix(' D')}"
            )
    if facts.after.phase.type == ADJUSTMENT:
        for power, line in _unused_adjustments(gmap, facts).items():
            by_power.setdefault(power, []).append(line)
    nxt: Position = facts.next
    counts = nxt.centre_counts()
    owners_by_power: dict[str, list[str]] = {}
    for centre, owner in sorted(nxt.sc_owners.items()):
        owners_by_power.setdefault(owner, []).append(centre.upper())
    adjustments = []
    if nxt.phase.type == ADJUSTMENT:
        for power in gmap.power_names:
            due = adjustment_due(nxt, power)
            if due > 0:
                sites = len(build_sites(gmap, nxt, power, build_any))
                adjustments.append(
                    f"{_heading(gmap, power)} builds {min(due, sites)}"
                    + (f" (of {due} due; {sites} free home centres)" if sites < due else "")
                )
            elif due < 0:
                adjustments.append(f"{_heading(gmap, power)} removes {-due}")
    return {
        "by_power": {_heading(gmap, power): lines for power, lines in by_power.items()},
        "reasons": reasons,
        "dislodged": [
            f"{_heading(gmap, d.unit.power)} {d.unit} (from {d.attacker_from.upper()}): "
            "may retreat to " + (", ".join(o.upper() for o in d.options) or "nowhere")
            for d in facts.after.dislodged.values()
        ],
        "destroyed": facts.destroyed,
        "changes": _changes(facts.before_owners, nxt.sc_owners, gmap),
        "centres": [
            (
                _heading(gmap, p),
                counts.get(p, 0),
                " ".join(cs),
                _counted_note(p, counts.get(p, 0), facts),
            )
            for p, cs in sorted(owners_by_power.items())
        ],
        "adjustments": adjustments,
        "removed_by_rule": removed_by_rule,  # {the rule's words: ["FRANCE A GAS", ...]}
        "next_phase": nxt.phase.long_name(),
        "winners": facts.winners,
        "ending": None,  # how the game ended, when a variant's rule and not the count decided
        "pending": None,  # what stands between the game and its end (Double's joint vote)
        "fog": False,  # fog of war cut these words down to one seat's sight (game/fog.py)
    }


def _heading(gmap: GameMap, power: str) -> str:
    """A power as the results head its lines: its code, spaced as the map's title spaces it
    where the code runs words together (FROZENANTARCTICA: FROZEN ANTARCTICA)."""
    spaced = gmap.power_title(power).upper()
    return spaced if spaced.replace(" ", "") == power else power


def _counted_note(power: str, owned: int, facts: PhaseFacts) -> str:
    """Why a power's count toward victory is not its number of centres (a variant's rule:
    Russia's count double), or ""."""
    counted = facts.counted.get(power, owned)
    if counted == owned or not owned:
        return ""
    each = counted / owned
    weight = str(int(each)) if each == int(each) else f"{each:g}"
    return f"(each counts {weight}: {counted} toward victory)"


def _changes(
    before: Mapping[str, str] | None, after: Mapping[str, str], gmap: GameMap
) -> list[str]:
    """Centres that changed hands: ``BEL  FRANCE -> ENGLAND``."""
    if before is None:
        return []

    def owner(power: str | None) -> str:
        return _heading(gmap, power) if power else "neutral"

    return [
        f"{c.upper()}  {owner(before.get(c))} -> {owner(after.get(c))}"
        for c in sorted(set(before) | set(after))
        if before.get(c) != after.get(c)
    ]


def results_lines(
    results: list[ResultRow],
    outcome: PhaseOutcome,
    before_owners: Mapping[str, str] | None = None,
    map_name: str = "standard",
) -> list[str]:
    return report_lines(facts_of(results, outcome, before_owners, map_name))


def report_lines(facts: PhaseFacts) -> list[str]:
    text = render("results_body.txt.j2", r=report(facts))
    return text.rstrip("\n").split("\n")


def map_mail(to: str, game: Game, picture: BoardPicture) -> Outgoing:
    """The answer to MAP: the picture shown in an HTML part, the SVG attached (the
    results mails leave it out: MAP is how a player asks for it)."""
    name = Phase.parse(picture.phase).long_name()
    text = render("map.txt.j2", game=game, phase_name=name, png=picture.png is not None)
    html = render(
        "map.html.j2", game=game, phase_name=name, cid=board_cid(picture.id),
        png=picture.png is not None,
    )  # fmt: skip
    return Outgoing(
        to=[to], subject=f"[{game.name}] map {picture.phase}", body=text, kind="map",
        game=game.name, phase=picture.phase, html=html, board=picture.id, board_svg=True,
    )  # fmt: skip

"""The results of a phase, for the results mail, PREVIEW and HISTORY."""

from __future__ import annotations

from typing import Any

from mailjudge.engine.adjustments import adjustment_due, build_sites
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import PhaseOutcome
from mailjudge.engine.state import ADJUSTMENT, Position
from mailjudge.models import Game, Seat
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat

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
    "disbanded": " (*disbanded*)",
    "civil disorder": " (*civil disorder*)",
}


def order_line(result: dict[str, Any]) -> str:
    mark = MARKS.get(result["outcome"], f" (*{result['outcome']}*)")
    default = " [default]" if result.get("default") else ""
    return f"{result['order']}{mark}{default}"


def _report(
    results: list[dict[str, Any]], outcome: PhaseOutcome, build_any: bool = False
) -> dict[str, Any]:
    gmap = load_map("standard")
    by_power: dict[str, list[str]] = {}
    reasons: list[str] = []
    for r in results:
        by_power.setdefault(r["power"], []).append(order_line(r))
        if r["outcome"] == "invalid" and r.get("reason"):
            reasons.append(f"{r['power']}: {r['order']}: {r['reason']}")
    nxt: Position = outcome.next
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
                    f"{power} builds {min(due, sites)}"
                    + (f" (of {due} due; {sites} free home centres)" if sites < due else "")
                )
            elif due < 0:
                adjustments.append(f"{power} removes {-due}")
    return {
        "by_power": by_power,
        "reasons": reasons,
        "dislodged": [
            f"{d.unit.power} {d.unit} (from {d.attacker_from.upper()}): may retreat to "
            + ", ".join(o.upper() for o in d.options)
            for d in outcome.after.dislodged.values()
        ],
        "destroyed": [f"{u.power} {u}" for u in outcome.destroyed],
        "centres": [
            (p, counts.get(p, 0), " ".join(cs)) for p, cs in sorted(owners_by_power.items())
        ],
        "adjustments": adjustments,
        "next_phase": nxt.phase.long_name(),
        "winners": sorted(outcome.winners),
    }


def results_lines(results: list[dict[str, Any]], outcome: PhaseOutcome) -> list[str]:
    text = render("results_body.txt.j2", r=_report(results, outcome))
    return text.rstrip("\n").split("\n")


def deadline_lines(game: Game, seat: Seat) -> list[str]:
    """The next deadline in the game's zone, and in the reader's own when they set one."""
    from mailjudge.service.deadlines import timing_of
    from mailjudge.timing import show

    if game.deadline is None or game.state != "active":
        return []
    zone = timing_of(game).zone
    lines = [f"Deadline: {show(game.deadline, zone)}"]
    own = seat.person.timezone if seat.person is not None else None
    if own and own != zone:
        lines.append(f"In your zone: {show(game.deadline, own)}")
    return lines


def results_mails(game: Game, done: Any) -> list[Outgoing]:
    """The results of a processed phase, to every player, the master and every observer.
    A phase kept open for another round (``done.waiting``) has none."""
    if getattr(done, "waiting", ""):
        return []
    report = _report(done.results, done.outcome, "BUILD_ANY" in game.rules.split())
    mails = []
    for seat in Seat.select().where(Seat.game == game):
        if seat.person is None:
            continue
        body = render(
            "results.txt.j2",
            game=game,
            phase=done.phase,
            r=report,
            seat=seat,
            deadline=deadline_lines(game, seat),
        )
        mails.append(mail_to_seat(seat, f"results {done.phase}", body, "results", done.phase))
    return mails

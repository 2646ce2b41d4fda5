"""A game's archive: every phase (position, orders, results), the public press, as JSON
that the engine can play again; and a static HTML page with every phase's picture.

Each phase carries the interchange documents (docs/interchange.md) it was played from, so
:func:`replay` can adjudicate it anew through the engine's public contract and compare.
"""

from __future__ import annotations

import html
from typing import Any

from mailjudge.engine.interchange import adjudicate, position_from_dict
from mailjudge.engine.phases import ResultRow
from mailjudge.engine.state import Phase
from mailjudge.game.state import game_map, rules_of
from mailjudge.render.results import record_facts, report_lines
from mailjudge.render.undrawn import picture_of
from mailjudge.service.processing import history
from mailjudge.store.models import Game, GameState, Press

FORMAT = "mailjudge-archive/1"


def export_game(game: Game) -> dict[str, Any]:
    records = history(game)
    held: list[str] = []
    phases = []
    for record in records:
        phases.append(
            {
                "phase": record.phase,
                "position": record.position,
                "orders": {p: [e["text"] for e in lines] for p, lines in record.orders.items()},
                "options": {**_options(game), "held_last_year": held},
                "result": record.results,
                "processed_at": record.processed_at.isoformat(),
            }
        )
        if record.phase.startswith("F"):
            held = list(record.results.get("at_count", []))
    return {
        "format": FORMAT,
        "game": {
            "name": game.name,
            "variant": game.variant,
            "map": game.map_name,
            "rules": sorted(game.rules),
            "state": game.state,
            "outcome": game.outcome,
            "victory_count": game.victory_count,
        },
        "phases": phases,
        "current": game.position,
        "press": _public_press(game),
    }


def _options(game: Game) -> dict[str, Any]:
    """The engine options a phase was played with, as the interchange format names them."""
    rules = rules_of(game)
    return {
        "build_any": rules.has("BUILD_ANY"),
        "dont_skip_phases": rules.has("DONT_SKIP_PHASES"),
        "victory_centres": game.victory_count,
        "shared_victory": rules.has("SHARED_VICTORY"),
        "hold_win": rules.has("HOLD_WIN"),
    }


def _public_press(game: Game) -> list[dict[str, Any]]:
    """Broadcasts only: press to some powers stays theirs. A grey sender stays hidden."""
    rows = Press.select().where((Press.game == game) & Press.broadcast).order_by(Press.sent_at)
    return [
        {
            "phase": p.phase,
            "from": None if p.grey or p.sender is None else p.sender.name,
            "sent_at": p.sent_at.isoformat(),
            "body": p.body,
        }
        for p in rows
    ]


def replay(doc: dict[str, Any]) -> list[str]:
    """Play every phase of an archive again through the engine; what differs, if anything."""
    problems: list[str] = []
    phases = doc.get("phases", [])
    for i, entry in enumerate(phases):
        name = entry["phase"]
        got = adjudicate(entry["position"], entry["orders"], entry["options"], doc["game"]["map"])
        want = entry["result"]
        if _results(got["results"]) != _results(want["results"]):
            problems.append(f"{name}: the orders' outcomes differ")
        if _units(got) != _units(want["after"]):
            problems.append(f"{name}: the board after the phase differs")
        if got["sc_owners"] != want["after"]["sc_owners"]:
            problems.append(f"{name}: the centre owners differ")
        if got["next_phase"] != want["next_phase"]:
            problems.append(f"{name}: next phase {got['next_phase']}, stored {want['next_phase']}")
        following = phases[i + 1]["position"] if i + 1 < len(phases) else doc.get("current")
        if following and following["phase"] != got["next_phase"]:
            problems.append(f"{name}: the archive's next phase is {following['phase']}")
    return problems


def _results(rows: list[ResultRow]) -> list[tuple[str, str, str]]:
    return sorted((r["power"], r["order"], r["outcome"]) for r in rows)


def _units(doc: dict[str, Any]) -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    def key(u: dict[str, Any]) -> tuple[str, str, str]:
        return (u["power"], u["type"], u["loc"])

    return {key(u) for u in doc["units"]}, {key(u) for u in doc["dislodged"]}


def export_html(game: Game) -> str:
    """One page: each phase's picture (SVG, inline) and its results as text."""
    gmap = game_map(game)
    records = history(game)
    followers = [r.position for r in records[1:]] + [game.position]
    title = f"{game.name}: {game.variant} Diplomacy, {game.state}"
    parts = [
        "<!DOCTYPE html>",
        f'<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>',
        '<body style="font-family: Verdana, Arial, sans-serif; max-width: 1000px; '
        'margin: 0 auto; padding: 8px; color: #222;">',
        f"<h1>{html.escape(title)}</h1>",
    ]
    if game.outcome:
        parts.append(f"<p>Result: {html.escape(game.outcome)}</p>")
    parts.append("<p>" + " ".join(f'<a href="#{r.phase}">{r.phase}</a>' for r in records) + "</p>")
    for record, following in zip(records, followers, strict=True):
        position = position_from_dict(record.position, gmap)
        name = Phase.parse(record.phase).long_name()
        picture = picture_of(gmap, position, record.results["results"], name, png=False)
        text = "\n".join(report_lines(record_facts(record, following, gmap)))
        parts += [
            f'<h2 id="{record.phase}">{html.escape(name)}</h2>',
            picture.svg.replace("<svg ", '<svg style="max-width: 100%; height: auto;" ', 1),
            f'<pre style="font-size: 13px;">{html.escape(text)}</pre>',
        ]
    if game.position and game.state != GameState.FINISHED:
        now = position_from_dict(game.position, gmap)
        picture = picture_of(gmap, now, (), f"Now: {now.phase.long_name()}", png=False)
        parts += ['<h2 id="now">Now</h2>', picture.svg]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"

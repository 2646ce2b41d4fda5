"""The missed-turn figures as text (`mailjudge stats`), from the document
service/stats.Stats.as_json gives (the same one /stats.json serves)."""

from __future__ import annotations

from typing import Any

LEVER_WORDS = {
    "token": "by Reply token", "ready": "by ready block", "reminder": "after a reminder",
    "extension": "after an extension", "grace": "in the grace",
}  # fmt: skip


def percent(figures: dict[str, Any]) -> str:
    value = figures["nmr_percent"]
    return "-" if value is None else f"{value:.1f} %"


def _row(label: str, f: dict[str, Any]) -> str:
    levers = " ".join(str(f["levers"].get(k, 0)).rjust(6) for k in LEVER_WORDS)
    return (f"{label:<20} {f['seat_phases']:>7} {f['nmr']:>6} {percent(f):>8} "
            f"{f['standin']:>8} {f['replacement']:>8} {levers}")  # fmt: skip


def _table(title: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    head = (f"{title:<20} {'owed':>7} {'NMR':>6} {'NMR %':>8} {'stand-in':>8} {'replaced':>8} "
            + " ".join(k.rjust(6) for k in LEVER_WORDS))  # fmt: skip
    return [head, *(_row(label, f) for label, f in rows.items())]


def stats_text(doc: dict[str, Any]) -> str:
    total = doc["total"]
    lines = [
        f"seat-phases owed: {total['seat_phases']}; NMR: {total['nmr']} ({percent(total)}); "
        f"covered by the stand-in: {total['standin']}, by a replacement: {total['replacement']}",
        f"games: {doc['games']}, abandoned: {doc['abandoned']}; players: {doc['players']}, "
        f"reliable: {doc['reliable']}",
        "levers: " + ", ".join(f"{LEVER_WORDS[k]} {n}" for k, n in total["levers"].items()),
        "",
        *_table("phase kind", doc["by_kind"]), "",
        *_table("month", doc["by_month"]), "",
        *_table("game", {f"{n}{' (abandoned)' if g['abandoned'] else ''}": g
                         for n, g in doc["by_game"].items()}),
        "", "Definitions:",
        *(f"  {name}: {text}" for name, text in doc["definitions"].items()),
    ]  # fmt: skip
    return "\n".join(lines) + "\n"

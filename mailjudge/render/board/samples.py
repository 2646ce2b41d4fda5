"""Two boards to look at: the start, and a mid-game phase with every kind of order.

`python -m mailjudge.render.board.samples docs` writes them (SVG and PNG) for the README;
the tests draw the same boards.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import EngineOptions, ResultRow, process_phase, result_rows
from mailjudge.engine.state import Position, initial_position
from mailjudge.render.board import Picture, draw_picture

MIDGAME: dict[str, Any] = {
    "phase": "F1902M",
    "units": [
        {"power": "ENGLAND", "type": "F", "loc": "nth"},
        {"power": "ENGLAND", "type": "A", "loc": "yor"},
        {"power": "ENGLAND", "type": "F", "loc": "eng"},
        {"power": "FRANCE", "type": "A", "loc": "bel"},
        {"power": "FRANCE", "type": "A", "loc": "bur"},
        {"power": "FRANCE", "type": "F", "loc": "mao"},
        {"power": "FRANCE", "type": "A", "loc": "mar"},
        {"power": "GERMANY", "type": "A", "loc": "ruh"},
        {"power": "GERMANY", "type": "A", "loc": "mun"},
        {"power": "GERMANY", "type": "F", "loc": "kie"},
        {"power": "GERMANY", "type": "F", "loc": "den"},
        {"power": "RUSSIA", "type": "F", "loc": "stp/sc"},
        {"power": "RUSSIA", "type": "A", "loc": "war"},
        {"power": "RUSSIA", "type": "A", "loc": "mos"},
        {"power": "RUSSIA", "type": "F", "loc": "sev"},
        {"power": "AUSTRIA", "type": "A", "loc": "vie"},
        {"power": "AUSTRIA", "type": "A", "loc": "bud"},
        {"power": "AUSTRIA", "type": "F", "loc": "tri"},
        {"power": "AUSTRIA", "type": "A", "loc": "ser"},
        {"power": "ITALY", "type": "A", "loc": "ven"},
        {"power": "ITALY", "type": "F", "loc": "nap"},
        {"power": "ITALY", "type": "A", "loc": "rom"},
        {"power": "TURKEY", "type": "F", "loc": "ank"},
        {"power": "TURKEY", "type": "A", "loc": "bul"},
        {"power": "TURKEY", "type": "A", "loc": "smy"},
    ],
    "sc_owners": {
        "lon": "ENGLAND",
        "edi": "ENGLAND",
        "lvp": "ENGLAND",
        "nwy": "ENGLAND",
        "par": "FRANCE",
        "bre": "FRANCE",
        "mar": "FRANCE",
        "bel": "FRANCE",
        "spa": "FRANCE",
        "ber": "GERMANY",
        "kie": "GERMANY",
        "mun": "GERMANY",
        "den": "GERMANY",
        "hol": "GERMANY",
        "mos": "RUSSIA",
        "war": "RUSSIA",
        "stp": "RUSSIA",
        "sev": "RUSSIA",
        "swe": "RUSSIA",
        "vie": "AUSTRIA",
        "bud": "AUSTRIA",
        "tri": "AUSTRIA",
        "ser": "AUSTRIA",
        "rom": "ITALY",
        "nap": "ITALY",
        "ven": "ITALY",
        "tun": "ITALY",
        "ank": "TURKEY",
        "con": "TURKEY",
        "smy": "TURKEY",
        "bul": "TURKEY",
    },
}
MIDGAME_ORDERS = {
    "ENGLAND": ["A YOR - BEL VIA", "F NTH C A YOR - BEL", "F ENG S A YOR - BEL"],
    "FRANCE": ["A BEL H", "A BUR S A BEL", "F MAO - SPA/NC", "A MAR - PIE"],
    "GERMANY": ["A RUH - BUR", "A MUN S A RUH - BUR", "F KIE - HOL", "F DEN H"],
    "RUSSIA": ["F STP/SC - BOT", "A WAR - GAL", "A MOS - UKR", "F SEV - RUM"],
    "AUSTRIA": ["A VIE - GAL", "A BUD S A SER - RUM", "F TRI - ADR", "A SER - RUM"],
    "ITALY": ["A VEN - TYR", "F NAP - ION", "A ROM - APU"],
    "TURKEY": ["F ANK - BLA", "A BUL S A SER - RUM", "A SMY - ARM"],
}


def midgame() -> tuple[Position, list[ResultRow]]:
    """The mid-game position and its orders adjudicated, as the results mail stores them."""
    gmap = load_map("standard")
    position = position_from_dict(MIDGAME, gmap)
    outcome = process_phase(gmap, position, MIDGAME_ORDERS, EngineOptions())
    return position, result_rows(outcome)


def start_picture() -> Picture:
    gmap = load_map("standard")
    return draw_picture(gmap, initial_position(gmap), title="Standard board, Spring 1901")


def midgame_picture() -> Picture:
    position, results = midgame()
    return draw_picture(load_map("standard"), position, results, title="Fall 1902 movement")


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "docs")
    folder.mkdir(parents=True, exist_ok=True)
    for name, picture in (("board-start", start_picture()), ("board-midgame", midgame_picture())):
        (folder / f"{name}.svg").write_text(picture.svg, encoding="utf-8")
        if picture.png is not None:
            (folder / f"{name}.png").write_bytes(picture.png)
        print(f"{folder / name}.svg and .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

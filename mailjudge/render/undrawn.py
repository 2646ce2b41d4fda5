"""A board picture for any map: drawn where the map has board positions, else a note.

A map converted before anyone drew it (no ``[board]`` positions) still plays: its
pictures say so plainly instead of failing the mail or the page that carries them.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from mailjudge.engine.maps import GameMap
from mailjudge.engine.state import Position
from mailjudge.render.board import Picture, draw_picture

NOTE_SIZE = (600, 80)  # the note drawn in place of a board


def no_drawing_note(gmap: GameMap) -> str:
    return (
        f"The map {gmap.name} ({gmap.title}) has no drawing yet: "
        "the units and centres are listed in the text."
    )


def picture_of(
    gmap: GameMap,
    position: Position,
    results: Sequence[Mapping[str, Any]] = (),
    title: str = "",
    png: bool = True,
    palette: str | None = None,
) -> Picture:
    """The board drawn (render.board), or where the map has nothing to draw from, a small
    SVG that says so and no PNG."""
    if gmap.positions:
        return draw_picture(gmap, position, results, title, png=png, palette=palette)
    text = html.escape(no_drawing_note(gmap))
    width, height = NOTE_SIZE
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">'
        f"<title>{html.escape(title)}</title>"
        f'<rect width="{width}" height="{height}" fill="#f4f4f0"/>'
        f'<text x="12" y="30" font-size="14" font-family="sans-serif">{html.escape(title)}</text>'
        f'<text x="12" y="58" font-size="12" font-family="sans-serif">{text}</text></svg>'
    )
    return Picture(f"board-{position.phase}", svg, None)

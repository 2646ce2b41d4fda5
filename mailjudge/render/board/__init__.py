"""The board picture: one scene (layout.py), drawn as SVG text (svg.py) and, where
Pillow is installed, as a PNG (png.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mailjudge.engine.maps import GameMap
from mailjudge.engine.state import Position
from mailjudge.render.board import png as png_backend
from mailjudge.render.board.layout import draw_board
from mailjudge.render.board.svg import to_svg


@dataclass(frozen=True)
class Picture:
    name: str  # file name without extension, e.g. board-S1901M
    svg: str
    png: bytes | None  # None where no PNG renderer is installed


def draw_picture(
    gmap: GameMap,
    position: Position,
    results: Sequence[Mapping[str, Any]] = (),
    title: str = "",
    png: bool = True,
    view: str = "map",
    palette: str | None = None,
) -> Picture:
    """The board as a map of province outlines (``view="map"``, where the map has them)
    or as a graph of neighbours (``view="graph"``), in the palette named (style.PALETTES;
    None: the judge's web.palette setting, so the mailed pictures follow it)."""
    if palette is None:
        from mailjudge.config.settings import current_settings

        palette = current_settings().web.palette
    scene = draw_board(gmap, position, results, title, view, palette)
    image = png_backend.to_png(scene) if png and png_backend.available() else None
    return Picture(f"board-{position.phase}", to_svg(scene), image)

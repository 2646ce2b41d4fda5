"""The board's legend on every map with a drawing: no text runs past the picture's right
edge (the pure map's key was cut off at "disc: supp", issue 54), and counts say "1 unit",
not "1 units"."""

from __future__ import annotations

import pytest

from mailjudge.engine.catalogue import map_names
from mailjudge.engine.maps import load_map
from mailjudge.engine.state import initial_position
from mailjudge.render.board import draw_board
from mailjudge.render.board.layout import KEY_LETTER
from mailjudge.render.board.shapes import Text
from mailjudge.render.board.style import legend_height

DRAWN = [name for name in map_names() if load_map(name).positions]


@pytest.mark.parametrize("map_name", DRAWN)
def test_the_legend_fits_the_board(map_name: str) -> None:
    gmap = load_map(map_name)
    scene = draw_board(gmap, initial_position(gmap), (), "a title", "map", "standard")
    top = scene.height - legend_height(len(gmap.power_names))
    legend = [s for s in scene.shapes if isinstance(s, Text) and s.y > top]
    assert any(t.text.startswith("A army") for t in legend)
    for text in legend:
        assert text.anchor == "start"
        right = text.x + KEY_LETTER / 12 * text.size * len(text.text)
        assert right <= scene.width, f"{text.text!r} ends at {right:.0f} of {scene.width}"
        assert " 1 units" not in text.text and not text.text.startswith("1 units")

"""The bend finder (render/board/bends.py): on the standard board without its hand-made
bends, the border lines cross, and the bends (and moves) it proposes leave none crossing,
with a drawing the outline tool can make; on the board as it is, it proposes nothing."""

from __future__ import annotations

from dataclasses import replace

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document
from mailjudge.render.board import bends
from mailjudge.render.board import outlines as drawing

BOARD = drawing.drawing_of(map_document("standard", MAPS_DIR))


def test_nothing_to_fix_on_a_board_without_crossings() -> None:
    assert bends.find_fixes(BOARD) == ({}, {})


def test_the_bends_found_leave_no_two_borders_crossing() -> None:
    bare = replace(BOARD, bends={})
    assert drawing.crossings(bare), "without its bends the standard board has crossings"
    moved, added = bends.find_fixes(bare)
    assert added
    fixed = replace(bare, points={**bare.points, **moved}, bends=added)
    assert drawing.crossings(fixed) == []
    for (a, b), point in added.items():
        assert bends.crossed_by(fixed, (a, b)) == set()
        assert 0 < point[0] < fixed.width and 0 < point[1] < fixed.height
    drawing.faces_of(fixed)  # a planar drawing: its faces can be walked

"""Neighbours drawn as a passage: where a map makes neighbours of provinces that cannot
share a border on a flat board (four provinces that all border each other, as round
Sicily or Sinai on the ancient Mediterranean map), the map's board lists the pair under
``[board.passages]``; the outline tool leaves that border out, and the board picture joins
the two provinces with a bridge where they come nearest. A passage is found from the
outlines themselves: neighbours whose outlines share no border.

A map that goes round (the world: the Pacific is cut at the board's sides) makes
neighbours of provinces at the left and right sides; a bridge across the whole board
would say nothing, so where both reach the sides the bridge leaves one side and comes
back at the other (its two ends then lie more than half the board apart)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from mailjudge.engine.maps import GameMap, province_of

Point = tuple[float, float]


@cache
def passages(gmap: GameMap) -> tuple[tuple[str, str, Point, Point], ...]:
    """Each pair of neighbours whose outlines share no border (a corner at most), with the
    ends of the link drawn between them: from where their outlines come nearest, a little
    way into each."""
    if not gmap.outlines:
        return ()
    corners = {
        code: {(round(x, 1), round(y, 1)) for x, y in o.points} for code, o in gmap.outlines.items()
    }
    pairs: set[tuple[str, str]] = set()
    for moves in (gmap.army_moves, gmap.fleet_moves):
        for here, theirs in moves.items():
            for there in theirs:
                a, b = sorted((province_of(here), province_of(there)))
                if a != b and len(corners[a] & corners[b]) < 2:  # a corner at most
                    pairs.add((a, b))
    width = float(gmap.board_size[0])
    found = []
    for a, b in sorted(pairs):
        one, two = _ends(gmap.outlines[a].points, gmap.outlines[b].points, width)
        reach = ROUND_REACH if abs(one[0] - two[0]) > width / 2 else 14.0
        units = gmap.outlines[a].unit, gmap.outlines[b].unit
        found.append((a, b, _inwards(one, units[0], reach), _inwards(two, units[1], reach)))
    return tuple(found)


ROUND_REACH = 30.0  # how far into each province a bridge round the sides reaches


def _ends(mine: Sequence[Point], theirs: Sequence[Point], width: float) -> tuple[Point, Point]:
    """Where two outlines come nearest: across the board, or round its sides where both
    reach them (points at the two sides, as near in height as can be) when that is
    nearer and the way across is more than a quarter of the board."""
    direct = min(((p, q) for p in mine for q in theirs), key=lambda pq: math.dist(*pq))
    sides = [
        (p, q) for p in mine for q in theirs
        if {_side(p[0], width), _side(q[0], width)} == {"left", "right"}
    ]  # fmt: skip
    if not sides or math.dist(*direct) <= width / 4:
        return direct
    round_ = min(sides, key=lambda pq: abs(pq[0][1] - pq[1][1]))
    return round_ if abs(round_[0][1] - round_[1][1]) < math.dist(*direct) else direct


def _side(x: float, width: float) -> str:
    return "left" if x <= 0.5 else "right" if x >= width - 0.5 else ""


def _inwards(point: Point, towards: Point, reach: float = 14.0) -> Point:
    """The point moved ``reach`` towards the province's unit (or onto it, if nearer): the
    link starts inside each province, and shows when the two only meet at a corner."""
    far = math.dist(point, towards)
    if far <= reach:
        return towards
    k = reach / far
    return point[0] + (towards[0] - point[0]) * k, point[1] + (towards[1] - point[1]) * k

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
        if abs(one[0] - two[0]) > width / 2:  # round the sides: straight in from each
            found.append((a, b, _in_from_side(one, width), _in_from_side(two, width)))
            continue
        units = gmap.outlines[a].unit, gmap.outlines[b].unit
        found.append((a, b, _inwards(one, units[0]), _inwards(two, units[1])))
    return tuple(found)


def _in_from_side(point: Point, width: float, reach: float = 30.0) -> Point:
    return (reach if point[0] < width / 2 else width - reach), point[1]


def _ends(mine: Sequence[Point], theirs: Sequence[Point], width: float) -> tuple[Point, Point]:
    """Where two outlines come nearest: across the board, or round its sides where one
    reaches the left side and the other the right, when that is nearer and the way
    across is more than a quarter of the board: at the height both reach (the middle of
    the stretch they share at the two sides)."""
    direct = min(((p, q) for p in mine for q in theirs), key=lambda pq: math.dist(*pq))
    if math.dist(*direct) <= width / 4:
        return direct
    for left, right, swapped in ((mine, theirs, False), (theirs, mine, True)):
        at_left = [y for x, y in left if x <= 0.5]
        at_right = [y for x, y in right if x >= width - 0.5]
        if not at_left or not at_right:
            continue
        low, high = max(min(at_left), min(at_right)), min(max(at_left), max(at_right))
        if low - high < math.dist(*direct):  # they share a stretch, or nearly
            y = (low + high) / 2
            ends = ((0.0, y), (width, y))
            return (ends[1], ends[0]) if swapped else ends
    return direct


def _inwards(point: Point, towards: Point, reach: float = 14.0) -> Point:
    """The point moved ``reach`` towards the province's unit (or onto it, if nearer): the
    link starts inside each province, and shows when the two only meet at a corner."""
    far = math.dist(point, towards)
    if far <= reach:
        return towards
    k = reach / far
    return point[0] + (towards[0] - point[0]) * k, point[1] + (towards[1] - point[1]) * k

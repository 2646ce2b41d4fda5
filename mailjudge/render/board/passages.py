"""Neighbours drawn as a passage: where a map makes neighbours of provinces that cannot
share a border on a flat board (four provinces that all border each other, as round
Sicily or Sinai on the ancient Mediterranean map), the map's board lists the pair under
``[board.passages]``; the outline tool leaves that border out, and the board picture joins
the two provinces with a bridge where they come nearest. A passage is found from the
outlines themselves: neighbours whose outlines share no border."""

from __future__ import annotations

import math
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
    found = []
    for a, b in sorted(pairs):
        one, two = min(
            ((p, q) for p in gmap.outlines[a].points for q in gmap.outlines[b].points),
            key=lambda pq: math.dist(*pq),
        )
        found.append(
            (a, b, _inwards(one, gmap.outlines[a].unit), _inwards(two, gmap.outlines[b].unit))
        )
    return tuple(found)


def _inwards(point: Point, towards: Point, reach: float = 14.0) -> Point:
    """The point moved ``reach`` towards the province's unit (or onto it, if nearer): the
    link starts inside each province, and shows when the two only meet at a corner."""
    far = math.dist(point, towards)
    if far <= reach:
        return towards
    k = reach / far
    return point[0] + (towards[0] - point[0]) * k, point[1] + (towards[1] - point[1]) * k

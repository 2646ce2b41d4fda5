"""Neighbours drawn as a passage: where a map makes neighbours of provinces that cannot
share a border on a flat board (four provinces that all border each other, as round
Sicily or Sinai on the ancient Mediterranean map), the map's board lists the pair under
``[board.passages]``; the outline tool leaves that border out, and the board picture joins
the two provinces with a dashed line where they come nearest. A passage is found from the
outlines themselves: neighbours whose outlines share no point."""

from __future__ import annotations

import math
from functools import cache

from mailjudge.engine.maps import GameMap, province_of

Point = tuple[float, float]


@cache
def passages(gmap: GameMap) -> tuple[tuple[str, str, Point, Point], ...]:
    """Each pair of neighbours whose outlines share no point, with the nearest two points
    of their outlines (the line drawn between them)."""
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
                if a != b and not corners[a] & corners[b]:
                    pairs.add((a, b))
    found = []
    for a, b in sorted(pairs):
        one, two = min(
            ((p, q) for p in gmap.outlines[a].points for q in gmap.outlines[b].points),
            key=lambda pq: math.dist(*pq),
        )
        found.append((a, b, one, two))
    return tuple(found)

"""Finding the bends a map's drawing needs: the outline tool (outlines.py) wants a drawing
of the map's borders in which no two lines cross, and a border line may bend through one
waypoint (``[board.bends]``) to get round another. Given the map's province points, this
finds each pair of crossing borders and bends one of them: through the nearest point to
its middle (searched outwards, on both sides) where it crosses nothing and no other border
crosses it. What it proposes is printed as the ``[board.bends]`` lines to add.

    python -m mailjudge.render.board.bends ancmed
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document
from mailjudge.render.board.outlines import (
    Drawing,
    Point,
    border_key,
    border_middle,
    crossings,
    segments_cross,
)

Edge = tuple[str, str]


def _pieces(d: Drawing, edge: Edge) -> list[tuple[Point, Point]]:
    a, b = edge
    m = border_middle(d, a, b)
    return [(d.points[a], m), (m, d.points[b])]


def crossed_by(d: Drawing, edge: Edge) -> set[Edge]:
    """The borders that cross this one."""
    mine = _pieces(d, edge)
    return {other for other, p3, p4 in _others(d, edge) if _crosses(mine, p3, p4)}


def _others(d: Drawing, edge: Edge) -> list[tuple[Edge, Point, Point]]:
    """The pieces of every other border (they stay put while this one is bent)."""
    return [(other, p3, p4) for other in d.edges if other != edge for p3, p4 in _pieces(d, other)]


def _crosses(mine: list[tuple[Point, Point]], p3: Point, p4: Point) -> bool:
    west, east = min(p3[0], p4[0]), max(p3[0], p4[0])
    return any(
        max(p1[0], p2[0]) >= west and min(p1[0], p2[0]) <= east  # side by side at all
        and not {p1, p2} & {p3, p4} and segments_cross(p1, p2, p3, p4)
        for p1, p2 in mine
    )  # fmt: skip


def _clear_of_points(d: Drawing, edge: Edge, bend: Point, room: float) -> bool:
    """The bent line keeps ``room`` away from every other province's point."""
    a, b = edge
    for code, p in d.points.items():
        if code in edge:
            continue
        for q1, q2 in ((d.points[a], bend), (bend, d.points[b])):
            if _distance_to_segment(p, q1, q2) < room:
                return False
    return True


def _distance_to_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = (
        0.0
        if not length
        else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length))
    )
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def bend_for(d: Drawing, edge: Edge, room: float = 12.0) -> Point | None:
    """The waypoint nearest the border's middle through which it crosses nothing, if any."""
    a, b = edge
    (ax, ay), (bx, by) = d.points[a], d.points[b]
    mx, my = (ax + bx) / 2, (ay + by) / 2
    length = math.dist((ax, ay), (bx, by)) or 1.0
    nx, ny = -(by - ay) / length, (bx - ax) / length
    others = _others(d, edge)
    for step in range(1, 80):
        for along in (0.0, -0.15, 0.15, -0.3, 0.3):
            for side in (1, -1):
                reach = side * step * 4.0
                bend = (mx + nx * reach + (bx - ax) * along, my + ny * reach + (by - ay) * along)
                if not (10 <= bend[0] <= d.width - 10 and 10 <= bend[1] <= d.height - 10):
                    continue
                trial = replace(d, bends={**d.bends, edge: bend})
                mine = _pieces(trial, edge)
                crossed = any(_crosses(mine, p3, p4) for _, p3, p4 in others)
                if not crossed and _clear_of_points(trial, edge, bend, room):
                    return bend
    return None


def move_for(d: Drawing, codes: set[str]) -> tuple[str, Point] | None:
    """A new place for one of ``codes``, as near its old one as can be, with fewer
    crossings in all; None when no place within reach helps."""
    # Moving a point changes only the crossings of its own borders.
    before = {code: len(crossings(d, only=code)) for code in codes}
    for radius in range(6, 120, 6):
        for turn in range(16):
            angle = turn * math.pi / 8
            for code in sorted(codes):
                x, y = d.points[code]
                here = (round(x + radius * math.cos(angle)), round(y + radius * math.sin(angle)))
                if not (10 <= here[0] <= d.width - 10 and 10 <= here[1] <= d.height - 10):
                    continue
                if any(math.dist(here, p) < 24 for c, p in d.points.items() if c != code):
                    continue
                trial = replace(d, points={**d.points, code: (float(here[0]), float(here[1]))})
                if len(crossings(trial, only=code)) < before[code]:
                    return code, (float(here[0]), float(here[1]))
    return None


def find_fixes(d: Drawing) -> tuple[dict[str, Point], dict[Edge, Point]]:
    """Points to move and bends to add so that no two borders cross: a bend where one
    clears the crossing, else the nearest move of a point of the crossing borders (four
    provinces that all border each other need one inside the other three's triangle)."""
    moved: dict[str, Point] = {}
    added: dict[Edge, Point] = {}
    for _ in range(4 * len(d.edges)):
        found = crossings(d)
        if not found:
            return moved, added
        # Bend the border that crosses most others, the longer one when tied.
        count: dict[Edge, int] = {}
        for e1, e2 in found:
            count[e1] = count.get(e1, 0) + 1
            count[e2] = count.get(e2, 0) + 1

        points = d.points
        order = sorted(count, key=lambda e: (count[e], math.dist(points[e[0]], points[e[1]])))
        for edge in reversed(order):
            bend = None if edge in d.bends else bend_for(d, edge)
            if bend is not None:
                added[edge] = bend
                d = replace(d, bends={**d.bends, edge: bend})
                break
        else:
            e1, e2 = found[0]
            move = move_for(d, {*e1, *e2})
            if move is None:
                raise ValueError(f"nothing clears {'-'.join(e1)} x {'-'.join(e2)}: move a point")
            moved[move[0]] = move[1]
            d = replace(d, points={**d.points, move[0]: move[1]})
    raise ValueError("the bends do not settle: move some points")


def main(argv: list[str]) -> int:
    from mailjudge.render.board.outlines import drawing_of

    name = argv[0] if argv else "standard"
    d = drawing_of(map_document(name, MAPS_DIR))
    moved, added = find_fixes(d)
    print("[board.positions]  # to change")
    for code, (x, y) in sorted(moved.items()):
        print(f"{code} = [{round(x)}, {round(y)}]")
    print("[board.bends]  # to add")
    for (a, b), (x, y) in sorted(added.items()):
        print(f"{border_key(a, b)[0]}-{border_key(a, b)[1]} = [{round(x)}, {round(y)}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

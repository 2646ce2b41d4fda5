"""Drawing a map's province outlines from its own data: run once when a map is added or its
board positions change, and the result is kept beside the map as data
(``data/maps/NAME.outlines.toml``), which the map loader reads.

    python -m mailjudge.render.board.outlines standard

How the outlines come about. Each province is a point on the board (``[board.positions]``)
and each border of the map data a line between two points: together a drawing of the
map's neighbour graph, which must have no two lines crossing (a line may bend through one
waypoint, ``[board.bends]``, to get round another). Every face of that drawing (the space
enclosed by a ring of borders) gets one inner point. A province's outline then runs round
its point: from the middle of each of its borders to the inner point of the next face, and
on to the middle of the next border. Two provinces therefore share an outline exactly
along the border between their points, and provinces that are not neighbours meet at most
at a face's inner point. Provinces on the edge of the drawing reach out to the edge of the
board. Each shared stretch is then given a little deterministic unevenness, the same for
the provinces on both sides, so that it reads as a coast or a frontier rather than as a
ruled line; coasts get more than land frontiers. Impassable areas
(``[board.impassable]``: Switzerland) take part in the drawing only. Neighbours that no
flat drawing can give a shared border (``[board.passages]``) are left out of it and joined
by a line on the picture (passages.py). Finding the bends (and the points to move) is
bends.py's work.

shapely (a dependency of the tests) checks the result: one valid polygon per province, no
overlaps, and shared outlines exactly where the map data has borders.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document

Point = tuple[float, float]
FAR = 1600.0  # how far outside the board the edge provinces reach before being clipped
CLEAR_OF_UNIT = 24.0  # a label keeps this far from the unit drawn on its province


@dataclass(frozen=True)
class Drawing:
    """The neighbour graph laid out on the board."""

    width: float
    height: float
    points: Mapping[str, Point]
    kinds: Mapping[str, str]  # land, coast, water or impassable
    edges: frozenset[tuple[str, str]]
    bends: Mapping[tuple[str, str], Point]
    # Where the outlines of a face's provinces meet, when its own middle will not do
    # (a face named by its provinces, sorted: "mao por spa").
    face_points: Mapping[str, Point]


def drawing_of(doc: Mapping[str, Any]) -> Drawing:
    board = doc["board"]
    points = {k: (float(v[0]), float(v[1])) for k, v in board["positions"].items() if "/" not in k}
    kinds = {code: str(p["kind"]) for code, p in doc["provinces"].items()}
    edges: set[tuple[str, str]] = set()
    for kind in ("army", "fleet"):
        for text in doc["adjacency"][kind]:
            a, b = (part.strip().split("/")[0] for part in text.split("-"))
            if a != b:
                edges.add(border_key(a, b))
    # Neighbours that cannot share a border on a flat board: joined by a line instead
    # (render/board/passages.py).
    edges -= {border_key(*text.split("-")) for text in board.get("passages", [])}
    for code, area in board.get("impassable", {}).items():
        points[code] = (float(area["position"][0]), float(area["position"][1]))
        kinds[code] = "impassable"
        edges.update(border_key(code, other) for other in area["borders"])
    bends = {
        border_key(*k.split("-")): (float(v[0]), float(v[1]))
        for k, v in board.get("bends", {}).items()
    }
    face_points = {
        " ".join(sorted(k.split())): (float(v[0]), float(v[1]))
        for k, v in board.get("face_points", {}).items()
    }
    return Drawing(float(board["width"]), float(board["height"]), points, kinds,
                   frozenset(edges), bends, face_points)  # fmt: skip


def border_key(a: str, b: str) -> tuple[str, str]:
    """The border between two provinces, the same whichever is named first."""
    return (a, b) if a < b else (b, a)


def border_middle(d: Drawing, a: str, b: str) -> Point:
    """Where the border between ``a`` and ``b`` is drawn through: its bend, else halfway."""
    bend = d.bends.get(border_key(a, b))
    if bend is not None:
        return bend
    (ax, ay), (bx, by) = d.points[a], d.points[b]
    return (ax + bx) / 2, (ay + by) / 2


def crossings(d: Drawing, only: str | None = None) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Pairs of borders whose lines cross: the drawing must have none. With ``only``, just
    the crossings of that province's borders (all there can be after moving its point)."""
    pieces = []
    for a, b in sorted(d.edges):
        m = border_middle(d, a, b)
        pieces += [((a, b), d.points[a], m), ((a, b), m, d.points[b])]
    # Only pieces side by side from west to east can cross: each is tried against those
    # that start (westmost end) before it ends (a sweep; a big map has thousands).
    pieces.sort(key=lambda piece: min(piece[1][0], piece[2][0]))
    pairs: Iterable[tuple[Piece, Piece]]
    if only is None:
        pairs = (
            (one, other) for i, one in enumerate(pieces)
            for other in itertools.takewhile(partial(_starts_before, one), pieces[i + 1 :])
        )  # fmt: skip
    else:
        pairs = (
            (one, other) for one in pieces if only in one[0]
            for other in pieces if _side_by_side(one, other)
        )  # fmt: skip
    found = set()
    for (e1, p1, p2), (e2, p3, p4) in pairs:
        # Pieces that meet at a point of the board (two borders of one province) do not
        # cross there; any other meeting is a crossing.
        if e1 != e2 and not {p1, p2} & {p3, p4} and segments_cross(p1, p2, p3, p4):
            found.add((min(e1, e2), max(e1, e2)))
    return sorted(found)


Piece = tuple[tuple[str, str], Point, Point]  # a border's line from a point to its middle


def _starts_before(one: Piece, other: Piece) -> bool:
    """The other piece (west end no farther west) starts before this one ends."""
    return min(other[1][0], other[2][0]) <= max(one[1][0], one[2][0])


def _side_by_side(one: Piece, other: Piece) -> bool:
    """The two pieces share some stretch from west to east (else they cannot cross)."""
    return _starts_before(one, other) and _starts_before(other, one)


def segments_cross(p1: Point, p2: Point, p3: Point, p4: Point) -> bool:
    """Whether the line from p1 to p2 crosses the line from p3 to p4 (touching is not)."""
    return (_side(p3, p4, p1) * _side(p3, p4, p2) < 0) and (
        _side(p1, p2, p3) * _side(p1, p2, p4) < 0
    )


def _side(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


@dataclass
class Faces:
    """The faces of the drawing, as half-edges (a, b) -> face number; one is the outside."""

    rotation: dict[str, list[str]]  # each point's neighbours, by angle
    face_of: dict[tuple[str, str], int]
    rings: list[list[str]]
    outer: int


def faces_of(d: Drawing) -> Faces:
    neighbours: dict[str, list[str]] = {p: [] for p in d.points}
    for a, b in d.edges:
        neighbours[a].append(b)
        neighbours[b].append(a)

    def angle(u: str, v: str) -> float:
        mx, my = border_middle(d, u, v)
        return math.atan2(my - d.points[u][1], mx - d.points[u][0])

    rotation = {u: sorted(vs, key=partial(angle, u)) for u, vs in neighbours.items()}
    face_of: dict[tuple[str, str], int] = {}
    rings: list[list[str]] = []
    for u in sorted(d.points):
        for v in rotation[u]:
            if (u, v) in face_of:
                continue
            ring: list[str] = []
            a, b = u, v
            while (a, b) not in face_of:
                face_of[(a, b)] = len(rings)
                ring.append(a)
                around = rotation[b]
                a, b = b, around[(around.index(a) - 1) % len(around)]
            rings.append(ring)
    if len(d.points) - len(d.edges) + len(rings) != 2:
        raise ValueError("the drawing is not planar: some borders cross (see crossings())")

    def area(ring: list[str]) -> float:
        pts = _face_outline(d, ring)
        pairs = zip(pts, pts[1:] + pts[:1], strict=True)
        return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairs))

    outer = max(range(len(rings)), key=lambda i: area(rings[i]))
    return Faces(rotation, face_of, rings, outer)


def _face_outline(d: Drawing, ring: list[str]) -> list[Point]:
    """A face as a polygon: its points, with each border's middle (or bend) between them."""
    return [
        q for i, a in enumerate(ring)
        for q in (d.points[a], border_middle(d, a, ring[(i + 1) % len(ring)]))
    ]  # fmt: skip


def _inner_point(d: Drawing, ring: list[str]) -> Point:
    """A point inside the face: the one the map gives, else its centroid, or where the
    face is not convex enough, the point farthest inside it."""
    from shapely.geometry import Polygon
    from shapely.ops import polylabel

    given = d.face_points.get(" ".join(sorted(ring)))
    if given is not None:
        return given
    shape = Polygon(_face_outline(d, ring))
    if not shape.is_valid:
        shape = shape.buffer(0)
    centre = shape.centroid
    if not shape.contains(centre) or shape.exterior.distance(centre) < 6:
        centre = polylabel(shape, 0.5)
    return centre.x, centre.y


def _far(d: Drawing, p: Point) -> Point:
    cx, cy = d.width / 2, d.height / 2
    dx, dy = p[0] - cx, p[1] - cy
    n = math.hypot(dx, dy) or 1.0
    return cx + dx / n * FAR, cy + dy / n * FAR


def _uneven(points: list[Point], key: str, amount: float) -> list[Point]:
    """The polyline with a deterministic wobble (midpoint displacement), the same for a
    given key; the ends stay where they are."""
    digest = hashlib.sha256(key.encode()).digest()
    draws = iter(digest * 8)
    out: list[Point] = [points[0]]
    for p, q in itertools.pairwise(points):
        seg = [p, q]
        for depth in range(3):
            finer = [seg[0]]
            for a, b in itertools.pairwise(seg):
                length = math.hypot(b[0] - a[0], b[1] - a[1])
                shift = (next(draws) / 255 - 0.5) * amount * length / (1.6**depth)
                nx, ny = (-(b[1] - a[1]) / length, (b[0] - a[0]) / length) if length else (0, 0)
                finer += [((a[0] + b[0]) / 2 + nx * shift, (a[1] + b[1]) / 2 + ny * shift), b]
            seg = finer
        out += seg[1:]
    return out


def outline_rings(
    d: Drawing, amount: float = 0.22, calmer: Mapping[tuple[str, str], float] | None = None
) -> dict[str, list[Point]]:
    """Each province's outline (before clipping to the board), built from shared borders;
    ``calmer`` scales down the unevenness of some borders."""
    faces = faces_of(d)
    inner = {i: _inner_point(d, ring) for i, ring in enumerate(faces.rings) if i != faces.outer}
    borders: dict[tuple[str, str], list[Point]] = {}
    for a, b in sorted(d.edges):
        left, right = faces.face_of[(a, b)], faces.face_of[(b, a)]
        mid = border_middle(d, a, b)
        start = inner[left] if left != faces.outer else _far(d, mid)
        end = inner[right] if right != faces.outer else _far(d, mid)
        coast = "water" in (d.kinds[a], d.kinds[b]) and d.kinds[a] != d.kinds[b]
        wobble = amount * (1.0 if coast else 0.55) * (calmer or {}).get((a, b), 1.0)
        inside = [p for p in (start, mid, end) if p not in (_far(d, mid),)]
        line = _uneven(inside, f"{a}-{b}", wobble)
        if left == faces.outer:
            line = [start, *line]
        if right == faces.outer:
            line = [*line, end]
        borders[(a, b)] = line
    rings: dict[str, list[Point]] = {}
    for u, around in faces.rotation.items():
        ring: list[Point] = []
        for k, v in enumerate(around):
            # A border is kept from the face on the left of a->b to the face on its right;
            # round u it is needed from the face before v to the face after v.
            line = borders[(u, v)][::-1] if (u, v) in borders else borders[(v, u)]
            nxt = around[(k + 1) % len(around)]
            if faces.face_of[(nxt, u)] == faces.outer:
                ring += [*line, _far(d, d.points[u])]
            else:
                ring += line[:-1]
        rings[u] = ring
    return rings


def relaxed(d: Drawing, rounds: int = 3, step: float = 0.35) -> Drawing:
    """The drawing with each inland point (one not on the edge of the drawing) moved part
    of the way towards the middle of its outline, a few times, as long as no borders
    cross: thin wedges and spikes fill out, and the map keeps its shape."""
    from shapely.geometry import Polygon, box

    board = box(0, 0, d.width, d.height)
    for _ in range(rounds):
        faces = faces_of(d)
        # Points on the edge of the drawing, those with two borders only, and those round
        # a face the map gives a point for, stay where the map puts them.
        fixed = set(faces.rings[faces.outer])
        fixed |= {u for u, vs in faces.rotation.items() if len(vs) < 3}
        fixed |= {u for face in d.face_points for u in face.split()}
        points = dict(d.points)
        for code, ring in sorted(outline_rings(d, 0.0).items()):
            if code in fixed:
                continue
            shape = Polygon(ring)
            if not shape.is_valid:
                continue
            middle = shape.intersection(board).centroid
            x, y = points[code]
            moved = (x + (middle.x - x) * step, y + (middle.y - y) * step)
            if not crossings(replace(d, points={**points, code: moved}), only=code):
                points[code] = moved
        d = replace(d, points=points)
    return d


def outlines(d: Drawing, amount: float = 0.22) -> dict[str, Any]:
    """The outlines clipped to the board, each with the points its unit (and the unit on
    each of its coasts) and its name are drawn at."""
    from shapely.geometry import Polygon, box

    board = box(0, 0, d.width, d.height)
    d = relaxed(d)
    calmer: dict[tuple[str, str], float] = {}
    for _ in range(6):
        shapes = {code: Polygon(ring) for code, ring in outline_rings(d, amount, calmer).items()}
        broken = sorted(code for code, shape in shapes.items() if not shape.is_valid)
        if not broken:
            break
        for a, b in d.edges:  # a border of a broken outline is made half as uneven
            if a in broken or b in broken:
                calmer[(a, b)] = calmer.get((a, b), 1.0) / 2
    else:
        raise ValueError(f"the outlines of {', '.join(broken)} cross themselves: move a point")
    found: dict[str, Any] = {}
    for code, shape in shapes.items():
        inside = shape.intersection(board)
        unit = _inside_near(inside, d.points[code])
        label = _label_point(inside, unit)
        # The supply-centre mark and a dislodged unit sit beside the unit, as far from
        # the name (and from each other) as the province allows: nothing covers the name.
        centre = _beside(inside, unit, [label], 19.0, 7.0)
        dislodged = _beside(inside, unit, [label, centre], 23.0, 9.0)
        found[code] = {
            "points": list(inside.exterior.coords)[:-1], "unit": unit, "label": label,
            "centre": centre, "dislodged": dislodged,
        }  # fmt: skip
    return found


def _beside(shape: Any, unit: Point, avoid: list[Point], distance: float, margin: float) -> Point:
    """A point ``distance`` from the unit, inside the shape by ``margin`` where it can be,
    else inside the shape at all (a small province: Portugal), nearer the unit if need be;
    the farthest such point from those to ``avoid``. Never outside when any point inside
    is found: a dislodged unit drawn in the next province reads as that province's."""
    from shapely.geometry import Point as ShapelyPoint

    core = shape.buffer(-margin)
    best: tuple[float, Point] | None = None
    for reaches in ((1.0, 0.85, 1.2), (0.7, 0.55, 0.4)):
        for step in range(24):
            turn = step * math.pi / 12
            for reach in reaches:
                here = (unit[0] + distance * reach * math.cos(turn),
                        unit[1] + distance * reach * math.sin(turn))  # fmt: skip
                point = ShapelyPoint(here)
                inside = 2000 if core.contains(point) else 1000 if shape.contains(point) else 0
                score = min(math.dist(here, a) for a in avoid) + inside
                if best is None or score > best[0]:
                    best = (score, here)
        assert best is not None
        if best[0] >= 2000:  # well inside at the usual distance: done
            break
    assert best is not None
    return best[1]


def _inside_near(shape: Any, point: Point, margin: float = 14.0) -> Point:
    """``point`` if it lies well inside ``shape``, else the nearest point that does."""
    from shapely.geometry import Point as ShapelyPoint
    from shapely.ops import nearest_points

    here = ShapelyPoint(point)
    core = shape.buffer(-margin)
    if core.is_empty:
        core = shape.buffer(-margin / 3)
    if core.contains(here):
        return point
    near = nearest_points(core, here)[0]
    return near.x, near.y


def _label_point(shape: Any, unit: Point) -> Point:
    from shapely.geometry import Point as ShapelyPoint
    from shapely.ops import polylabel

    room = shape.difference(ShapelyPoint(unit).buffer(CLEAR_OF_UNIT))
    room = max(getattr(room, "geoms", [room]), key=lambda g: g.area)
    label = polylabel(room, 0.5)
    return label.x, label.y


def coast_points(doc: Mapping[str, Any], d: Drawing, found: Mapping[str, Any]) -> None:
    """Where a fleet on each split coast is drawn: inside the province, towards the
    neighbours only that coast reaches (Spain's north coast towards Gascony)."""
    from shapely.geometry import Polygon

    reach: dict[str, set[str]] = {}
    for text in doc["adjacency"]["fleet"]:
        a, b = (part.strip() for part in text.split("-"))
        for here, there in ((a, b), (b, a)):
            if "/" in here:
                reach.setdefault(here, set()).add(there.split("/")[0])
    for code, entry in found.items():
        coasts = {loc: seen for loc, seen in reach.items() if loc.split("/")[0] == code}
        if not coasts:
            continue
        shape = Polygon(entry["points"])
        entry["coasts"] = {}
        for loc, seen in sorted(coasts.items()):
            others = set().union(*(v for k, v in coasts.items() if k != loc))
            towards = sorted(seen - others) or sorted(seen)
            mids = [border_middle(d, code, n) for n in towards]
            target = (sum(x for x, _ in mids) / len(mids), sum(y for _, y in mids) / len(mids))
            entry["coasts"][loc.split("/")[1]] = _inside_near(shape, target, 12.0)


def to_toml(name: str, found: Mapping[str, Any], d: Drawing) -> str:
    lines = [
        f"# The outlines of the provinces of map {name!r} on its board, drawn by",
        f"# `python -m mailjudge.render.board.outlines {name}` from the map's board positions and",
        "# borders (see that module). Do not edit by hand: change the map and draw them again.",
        "",
    ]
    for code in sorted(found):
        entry = found[code]
        lines += [f"[{code}]", f'kind = "{d.kinds[code]}"', f"unit = {_xy(entry['unit'])}",
                  f"label = {_xy(entry['label'])}", f"centre = {_xy(entry['centre'])}",
                  f"dislodged = {_xy(entry['dislodged'])}"]  # fmt: skip
        for coast, point in sorted(entry.get("coasts", {}).items()):
            lines.append(f"coast_{coast} = {_xy(point)}")
        lines += [f"points = [{', '.join(_xy(p) for p in entry['points'])}]", ""]
    return "\n".join(lines)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _xy(point: Point) -> str:
    return f"[{point[0]:.1f}, {point[1]:.1f}]"


def main(argv: list[str]) -> int:
    name = argv[0] if argv else "standard"
    base = tomllib.loads(_text(MAPS_DIR / f"{name}.board.toml")).get("drawn_as")
    if base is not None:
        print(f"map {name} is drawn as map {base}: draw that one")
        return 1
    doc = map_document(name, MAPS_DIR)  # its board from NAME.board.toml where it has one
    d = drawing_of(doc)
    crossing = crossings(d)
    if crossing:
        for e1, e2 in crossing:
            print(f"borders {'-'.join(e1)} and {'-'.join(e2)} cross: move a point or bend one")
        return 1
    found = outlines(d)
    coast_points(doc, d, found)
    target = Path(MAPS_DIR / f"{name}.outlines.toml")
    target.write_text(to_toml(name, found, d), encoding="utf-8")
    print(f"{len(found)} outlines written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

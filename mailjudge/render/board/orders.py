"""The phase's orders drawn over the board: arrows for moves and retreats, dashed lines
for supports, dotted lines for convoys, marks for holds, builds and removals. An order
that failed is grey and crossed."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import OrderError, Place, Syntax
from mailjudge.engine.reader import read_order
from mailjudge.engine.state import Position, Unit
from mailjudge.render.board import style
from mailjudge.render.board.glyphs import dislodged_mark, unit_glyph
from mailjudge.render.board.places import Places
from mailjudge.render.board.shapes import Circle, Line, Point, Polygon, Scene

SUCCESS = {"succeeds", ""}
HEAD = 12.0  # arrowhead length


@dataclass(frozen=True)
class _Board:
    """What drawing one order needs to know."""

    scene: Scene
    gmap: GameMap
    position: Position
    points: Mapping[str, Point]
    colours: Mapping[str, str]
    places: Places


def draw_orders(
    scene: Scene,
    gmap: GameMap,
    position: Position,
    results: Sequence[Mapping[str, Any]],
    points: Mapping[str, Point],
    colours: Mapping[str, str],
    places: Places,
) -> None:
    """Supports and convoys first, then moves over them, crosses last."""
    board = _Board(scene, gmap, position, points, colours, places)
    read = [(r, s) for r in results if (s := _read(r, gmap, position)) is not None]
    for result, syntax in read:
        if syntax.kind in ("support", "convoy"):
            _support_or_convoy(board, result, syntax)
    for result, syntax in read:
        if syntax.kind not in ("support", "convoy"):
            _own_order(board, result, syntax)


def _read(result: Mapping[str, Any], gmap: GameMap, position: Position) -> Syntax | None:
    try:
        return read_order(str(result["order"]), gmap, position.phase.type)
    except OrderError:
        return None  # text that never was an order: nothing to draw


def _unit_point(prov: str, position: Position, points: Mapping[str, Point]) -> Point | None:
    if position.dislodged and f"dislodged {prov}" in points:
        return points[f"dislodged {prov}"]
    return points.get(prov)


def _place_point(places: Places, place: Place) -> Point:
    prov, coast = place
    return places.unit(f"{prov}/{coast}" if coast else prov)


def _failed(result: Mapping[str, Any]) -> bool:
    return str(result.get("outcome", "")) not in SUCCESS


def _colour(result: Mapping[str, Any], colours: Mapping[str, str]) -> str:
    if _failed(result):
        return style.FAILED
    return colours.get(str(result.get("power", "")), "#444444")


def _shorten(a: Point, b: Point, start: float, end: float) -> tuple[Point, Point]:
    length = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + ux * start, a[1] + uy * start), (b[0] - ux * end, b[1] - uy * end)


def arrow(scene: Scene, a: Point, b: Point, colour: str, dash: tuple[float, ...] = ()) -> None:
    """A line from a to b with its head at b."""
    a, b = _shorten(a, b, style.UNIT_RADIUS + 2, style.UNIT_RADIUS + 4)
    theta = math.atan2(b[1] - a[1], b[0] - a[0])
    base = (b[0] - HEAD * math.cos(theta), b[1] - HEAD * math.sin(theta))
    side = (-math.sin(theta) * HEAD * 0.5, math.cos(theta) * HEAD * 0.5)
    head = (b, (base[0] + side[0], base[1] + side[1]), (base[0] - side[0], base[1] - side[1]))
    scene.add(Line((a, base), "#ffffff", 5.5))
    scene.add(Line((a, base), colour, 3.0, dash))
    scene.add(Polygon(head, colour, "#ffffff", 1.0))


def cross(scene: Scene, at: Point, size: float = 7.0) -> None:
    """The red cross of a failed order or a removed unit."""
    x, y = at
    for dx in (size, -size):
        scene.add(Line(((x - dx, y - size), (x + dx, y + size)), "#ffffff", 5.0))
    for dx in (size, -size):
        scene.add(Line(((x - dx, y - size), (x + dx, y + size)), style.FAILED_MARK, 2.6))


def _midpoint(a: Point, b: Point) -> Point:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def _support_or_convoy(board: _Board, result: Mapping[str, Any], syntax: Syntax) -> None:
    if syntax.loc is None or syntax.tloc is None:
        return
    scene = board.scene
    start = _unit_point(syntax.loc[0], board.position, board.points)
    target = _unit_point(syntax.tloc[0], board.position, board.points)
    if start is None or target is None:
        return
    colour = _colour(result, board.colours)
    dash = (2.0, 4.0) if syntax.kind == "convoy" else (7.0, 5.0)
    if syntax.dest is not None:
        # Towards the middle of the supported or convoyed move.
        end = _midpoint(target, _place_point(board.places, syntax.dest))
        a, b = _shorten(start, end, style.UNIT_RADIUS + 2, 0)
        scene.add(Line((a, b), colour, 2.2, dash))
        scene.add(Circle(b[0], b[1], 3.5, colour, "#ffffff", 1))
    else:
        a, b = _shorten(start, target, style.UNIT_RADIUS + 2, style.UNIT_RADIUS + 6)
        scene.add(Line((a, b), colour, 2.2, dash))
        scene.add(Circle(target[0], target[1], style.UNIT_RADIUS + 5, None, colour, 2.2))
    if _failed(result):
        cross(scene, _midpoint(a, b), 5.0)


def _own_order(board: _Board, result: Mapping[str, Any], syntax: Syntax) -> None:
    """Moves, retreats, holds, builds and removals: orders about the unit itself."""
    if syntax.loc is None:
        return
    scene = board.scene
    colour = _colour(result, board.colours)
    prov = syntax.loc[0]
    if syntax.kind == "build":
        loc = f"{prov}/{syntax.loc[1]}" if syntax.loc[1] else prov
        at = board.places.unit(loc)
        power = str(result.get("power", ""))
        unit_glyph(scene, Unit(power, syntax.utype or "A", loc), at, colour)
        scene.add(Circle(at[0], at[1], style.UNIT_RADIUS + 5, None, colour, 2.2, (4.0, 3.0)))
        if _failed(result):
            cross(scene, at)
        return
    start = _unit_point(prov, board.position, board.points)
    if start is None:
        return
    if syntax.kind in ("move", "retreat") and syntax.dest is not None:
        end = _place_point(board.places, syntax.dest)
        arrow(scene, start, end, colour, (7.0, 4.0) if _failed(result) else ())
        if _failed(result):
            cross(scene, _shorten(start, end, 0, style.UNIT_RADIUS + 20)[1], 6.0)
    elif syntax.kind == "hold" and not result.get("default"):
        scene.add(Circle(start[0], start[1], style.UNIT_RADIUS + 5, None, colour, 2.5))
    elif syntax.kind in ("disband", "remove"):
        cross(scene, start, 11.0)
    if str(result.get("outcome")) == "dislodged":
        dislodged_mark(scene, start, style.UNIT_RADIUS + 4)

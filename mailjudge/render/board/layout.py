"""The board as a scene: the provinces (as their outlines on a map, or as labelled circles
on a graph of neighbours), supply centres in their owner's colour, units, dislodged
units, the phase's orders, a legend."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mailjudge.engine.maps import WATER, GameMap, province_of
from mailjudge.engine.state import Position
from mailjudge.render.board import style
from mailjudge.render.board.glyphs import dislodged_mark, unit_glyph
from mailjudge.render.board.orders import draw_orders
from mailjudge.render.board.passages import passages
from mailjudge.render.board.places import GRAPH, MAP, Places, places
from mailjudge.render.board.shapes import Circle, Line, Point, Polygon, Rect, Scene, Text
from mailjudge.render.words import counted


def draw_board(
    gmap: GameMap,
    position: Position,
    results: Sequence[Mapping[str, Any]] = (),
    title: str = "",
    view: str = MAP,
    palette: str | None = None,
) -> Scene:
    """The picture of ``position``, with ``results`` (this phase's orders and outcomes,
    as stored) drawn over it; ``view`` "map" (the outlines) or "graph" (circles);
    ``palette`` one of style.PALETTES (the standard one when None)."""
    if not gmap.positions:
        raise ValueError(f"map {gmap.name} has no board positions to draw")
    width, height = gmap.board_size
    where = places(gmap, view)
    paints = style.palette(palette)
    background = paints.sea if where.view == MAP else style.SEA_BACKGROUND
    scene = Scene(width, height + style.legend_height(len(gmap.power_names)), background, title)
    colours = style.colours_for(gmap.power_names, paints)
    if where.view == MAP:
        _outlines(scene, gmap, position, colours, where, paints)
    else:
        _edges(scene, gmap)
        _provinces(scene, gmap, position, colours, paints)
    points = unit_points(gmap, position, where)
    draw_orders(scene, gmap, position, results, points, colours, where)
    for unit in position.units.values():
        unit_glyph(scene, unit, points[unit.province], colours[unit.power])
    for prov, dislodged in position.dislodged.items():
        x, y = points[f"dislodged {prov}"]
        unit_glyph(scene, dislodged.unit, (x, y), colours[dislodged.unit.power], small=True)
        dislodged_mark(scene, (x, y), style.UNIT_RADIUS + 2)
    _title(scene, title)
    _legend(scene, gmap, position, colours, height)
    return scene


def node_radius(gmap: GameMap, prov: str) -> int:
    return style.WATER_RADIUS if gmap.provinces[prov].kind == WATER else style.LAND_RADIUS


def unit_points(gmap: GameMap, position: Position, where: Places) -> dict[str, Point]:
    """Where each unit is drawn, by province (``dislodged PROV`` for a dislodged one)."""
    points: dict[str, Point] = {}
    for prov, unit in position.units.items():
        points[prov] = where.unit(unit.loc)
    for prov in position.dislodged:
        points[f"dislodged {prov}"] = where.dislodged[prov]
    return points


def _outlines(
    scene: Scene,
    gmap: GameMap,
    position: Position,
    colours: Mapping[str, str],
    where: Places,
    paints: style.Palette,
) -> None:
    """The provinces as shapes: seas blue, land in the colour of its centre's owner (or
    neutral), impassable land grey; then the split coasts, the names and the centres."""
    for code, shape in sorted(gmap.outlines.items()):
        owner = position.sc_owners.get(code)
        if shape.kind == WATER:
            fill, stroke = paints.sea, style.COAST_STROKE
        elif shape.kind == "impassable":
            fill, stroke = paints.impassable, style.LAND_STROKE
        else:
            fill = paints.land_of(colours[owner]) if owner else paints.land
            stroke = style.LAND_STROKE
        scene.add(Polygon(shape.points, fill, stroke, 1.2, id=f"province-{code}"))
    width = gmap.board_size[0]
    for _, _, one, two in passages(gmap):  # neighbours that share no border: a link
        if abs(one[0] - two[0]) <= width / 2:
            passage_mark(scene, one, two)
            continue
        for end in (one, two):  # round the board's sides: it leaves one, comes back at the other
            passage_mark(scene, end, (0.0 if end[0] < width / 2 else float(width), end[1]))
    for shape in gmap.outlines.values():
        for coast, (cx, cy) in sorted(shape.coasts.items()):
            # The coast's name goes on the far side of its mark from the province's name.
            dx, dy = cx - shape.label[0], cy - shape.label[1]
            n = math.hypot(dx, dy) or 1.0
            tx, ty = cx + dx / n * 13, cy + dy / n * 13
            scene.add(Circle(cx, cy, 4, paints.sea, style.COAST_STROKE, 1.2),
                      Text(tx, ty, coast.upper(), 9, style.WATER_LABEL, bold=True,
                           halo=paints.land))  # fmt: skip
    for code, shape in sorted(gmap.outlines.items()):
        if code not in gmap.provinces:  # impassable: named, never a home of units
            scene.add(Text(*shape.label, code.upper(), 10, "#6b6558", bold=True))
            continue
        water = shape.kind == WATER
        label = style.WATER_LABEL if water else style.LAND_LABEL
        halo = paints.sea if water else None
        scene.add(Text(*shape.label, code.upper(), 11, label, bold=True, halo=halo))
        if gmap.provinces[code].centre:
            owner = position.sc_owners.get(code)
            fill = colours[owner] if owner else style.NEUTRAL_CENTRE
            x, y = where.centres[code]
            scene.add(Circle(x, y, style.CENTRE_RADIUS, fill, style.CENTRE_STROKE, 1.5))


def _edges(scene: Scene, gmap: GameMap) -> None:
    """Faint lines between neighbours, so the schematic reads as a map."""
    drawn: set[tuple[str, str]] = set()
    for a, nbrs in sorted(gmap.army_moves.items()):
        for b in sorted(nbrs):
            if (b, a) not in drawn:
                drawn.add((a, b))
                scene.add(Line((_pos(gmap, a), _pos(gmap, b)), style.ARMY_EDGE, 2))
    for a_loc, nbrs in sorted(gmap.fleet_moves.items()):
        for b_loc in sorted(nbrs):
            a, b = province_of(a_loc), province_of(b_loc)
            if (a, b) in drawn or (b, a) in drawn:
                continue
            drawn.add((a, b))
            scene.add(Line((_pos(gmap, a), _pos(gmap, b)), style.FLEET_EDGE, 1.5))


def _pos(gmap: GameMap, loc: str) -> Point:
    x, y = gmap.positions[loc]
    return float(x), float(y)


def _provinces(
    scene: Scene,
    gmap: GameMap,
    position: Position,
    colours: Mapping[str, str],
    paints: style.Palette,
) -> None:
    for code, prov in gmap.provinces.items():
        x, y = gmap.positions[code]
        r = node_radius(gmap, code)
        owner = position.sc_owners.get(code)
        if prov.kind == WATER:
            scene.add(Circle(x, y, r, style.WATER_FILL, style.WATER_STROKE, 1.5))
        else:
            fill = paints.land_of(colours[owner]) if owner else paints.land
            scene.add(Circle(x, y, r, fill, style.LAND_STROKE, 1.5))
        for coast in prov.coasts:
            cx, cy = gmap.positions[f"{code}/{coast}"]
            scene.add(
                Line(((x, y), (cx, cy)), style.LAND_STROKE, 1.5),
                Circle(cx, cy, 5, style.WATER_FILL, style.WATER_STROKE, 1.2),
                Text(cx + (11 if cx >= x else -11), cy, coast.upper(), 9, style.WATER_LABEL),
            )
        label = style.WATER_LABEL if prov.kind == WATER else style.LAND_LABEL
        scene.add(Text(x, y + 13, code.upper(), 11, label, bold=True))
        if prov.centre:
            mark_x, mark_y = places(gmap, GRAPH).centres[code]
            fill = colours[owner] if owner else style.NEUTRAL_CENTRE
            scene.add(Circle(mark_x, mark_y, style.CENTRE_RADIUS, fill, style.CENTRE_STROKE, 1.5))


def _title(scene: Scene, title: str) -> None:
    if title:
        scene.add(Text(14, 22, title, 17, "#1f3550", bold=True, anchor="start"))


def _legend(
    scene: Scene, gmap: GameMap, position: Position, colours: Mapping[str, str], top: int
) -> None:
    tall = style.legend_height(len(gmap.power_names))
    scene.add(Rect(0, top, scene.width, tall, "#fbf8f0", "#b9a77c", 1))
    counts = position.centre_counts()
    neutral = len(gmap.centres) - sum(counts.values())
    columns = [*gmap.power_names, "neutral"]
    step = scene.width / min(len(columns), style.LEGEND_COLUMNS)
    for i, power in enumerate(columns):
        row, column = divmod(i, style.LEGEND_COLUMNS)
        x = 12 + column * step
        y = top + 20 + row * style.LEGEND_ROW
        if power == "neutral":
            scene.add(Circle(x + 7, y, 7, style.NEUTRAL_CENTRE, style.CENTRE_STROKE, 1.5))
            scene.add(Text(x + 20, y, "Neutral", 13, bold=True, anchor="start"))
            scene.add(Text(x + 20, y + 19, counted(neutral, "centre"), 12, anchor="start"))
            continue
        scene.add(Rect(x, y - 7, 14, 14, colours[power], None, 0, radius=3))
        scene.add(Text(x + 20, y, gmap.power_title(power), 13, bold=True, anchor="start"))
        units = len(position.units_of(power))
        scene.add(Text(x + 20, y + 19, f"{counts.get(power, 0)} SC, {counted(units, 'unit')}",
                       12, anchor="start"))  # fmt: skip
    _key(scene, top + tall - 22, bool(passages(gmap)))


def passage_mark(scene: Scene, one: Point, two: Point) -> None:
    """Two provinces that border each other without a shared border: a bridge, a dark
    band with a light line along it (unlike any order's line)."""
    scene.add(Line((one, two), style.PASSAGE_EDGE, 6.0))
    scene.add(Line((one, two), style.PASSAGE_LINE, 2.0))


KEY_LETTER = 6.6  # px: a letter of the key's 12 px text, about


def _key(scene: Scene, y: float, passage: bool = False) -> None:
    """One line that says what the marks mean."""
    x = 14.0
    grey = "#444444"
    items: list[tuple[str, Any]] = [
        ("move", Line(((0, 0), (26, 0)), grey, 2.5)),
        ("support", Line(((0, 0), (26, 0)), grey, 2, (5, 4))),
        ("convoy", Line(((0, 0), (26, 0)), grey, 2, (2, 3))),
        ("failed", Line(((0, 0), (26, 0)), style.FAILED, 2.5, (7, 4))),
        ("hold", Circle(13, 0, 8, None, grey, 2.5)),
        ("dislodged", None),
    ]
    if passage:  # the map has neighbours joined by a bridge
        items.append(("neighbours", "passage"))
    key = "A army  F fleet  disc: supply centre" + ("" if passage else ", owner's colour")
    # A narrow board (the pure map's 900 px, with bridges) takes the items closer together,
    # so that the key's last words are not cut off at its edge.
    words = sum(7.2 * len(label) for label, _ in items) + KEY_LETTER * len(key)
    gap = 26 if x + words + 60 * len(items) <= scene.width - 8 else 10
    for label, shape in items:
        if shape == "passage":
            passage_mark(scene, (x, y), (x + 26, y))
        elif isinstance(shape, Line):
            pts = tuple((px + x, py + y) for px, py in shape.points)
            scene.add(Line(pts, shape.color, shape.width, shape.dash))
        elif isinstance(shape, Circle):
            scene.add(Circle(shape.x + x, y, shape.r, None, shape.stroke, shape.width))
        else:
            dislodged_mark(scene, (x + 13, y), 8)
        scene.add(Text(x + 34, y, label, 12, anchor="start"))
        x += 34 + 7.2 * len(label) + gap
    scene.add(Text(x, y, key, 12, anchor="start"))

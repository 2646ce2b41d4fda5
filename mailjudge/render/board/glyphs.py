"""Where a unit is drawn and how: the glyphs shared by the board and the orders."""

from __future__ import annotations

from mailjudge.engine.maps import ARMY, GameMap, province_of
from mailjudge.engine.state import Unit
from mailjudge.render.board import style
from mailjudge.render.board.shapes import Circle, Point, Polygon, Scene, Text


def location_point(gmap: GameMap, loc: str) -> Point:
    """A unit's place: its coast's own point, else a little above the province's centre
    (the label sits below it)."""
    if "/" in loc and loc in gmap.positions:
        x, y = gmap.positions[loc]
        return float(x), float(y)
    x, y = gmap.positions[province_of(loc)]
    return float(x), y - 5.0


def unit_glyph(scene: Scene, unit: Unit, at: Point, colour: str, small: bool = False) -> None:
    """An army is a round token, a fleet a hull; each with its letter."""
    x, y = at
    k = 0.8 if small else 1.0
    if unit.type == ARMY:
        scene.add(Circle(x, y, style.UNIT_RADIUS * k, colour, "#ffffff", 2))
    else:
        w, h = 14 * k, 9 * k
        hull = ((x - w, y - h), (x + w, y - h), (x + w * 0.62, y + h), (x - w * 0.62, y + h))
        scene.add(Polygon(hull, colour, "#ffffff", 2))
    scene.add(Text(x, y, unit.type, 11 * k, "#ffffff", bold=True))

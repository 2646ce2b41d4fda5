"""How a unit is drawn: the glyphs shared by the board and the orders."""

from __future__ import annotations

from mailjudge.engine.maps import ARMY
from mailjudge.engine.state import Unit
from mailjudge.render.board import style
from mailjudge.render.board.shapes import Circle, Line, Point, Polygon, Scene, Text


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


def dislodged_mark(scene: Scene, at: Point, half: float) -> None:
    """A dislodged unit: a dashed square, black on white. Not a ring (a hold is a ring in
    its power's colour) and in no power's colour, so no power's hold reads as it."""
    x, y = at
    square = ((x - half, y - half), (x + half, y - half), (x + half, y + half),
              (x - half, y + half), (x - half, y - half))  # fmt: skip
    scene.add(Line(square, "#ffffff", 4.5))
    scene.add(Line(square, style.DISLODGED, 2.2, (4.0, 2.5)))

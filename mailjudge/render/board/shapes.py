"""The board picture as plain shapes, so that one layout feeds two small back ends (SVG
text and Pillow): each back end only knows how to draw these five kinds."""

from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[float, float]


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Line:
    points: tuple[Point, ...]
    color: str
    width: float = 1.0
    dash: tuple[float, ...] = ()


@dataclass(frozen=True)
class Polygon:
    points: tuple[Point, ...]
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    id: str | None = None  # the SVG element's id (a province: "province-par")


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    radius: float = 0.0


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # the middle of the text, vertically
    text: str
    size: float
    fill: str = "#222222"
    bold: bool = False
    anchor: str = "middle"  # middle or start
    halo: str | None = None  # an outline that keeps the text readable over lines


Shape = Circle | Line | Polygon | Rect | Text


@dataclass
class Scene:
    width: int
    height: int
    background: str
    title: str
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)

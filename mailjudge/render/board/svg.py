"""The scene as SVG text: every mail carries it, and any browser shows it."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from mailjudge.render.board.shapes import Circle, Line, Point, Polygon, Rect, Scene, Shape, Text

FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _paint(fill: str | None, stroke: str | None, width: float, dash: tuple[float, ...] = ()) -> str:
    parts = [f'fill="{fill or "none"}"']
    if stroke:
        parts.append(f'stroke="{stroke}" stroke-width="{_n(width)}"')
    if dash:
        parts.append(f'stroke-dasharray="{" ".join(_n(d) for d in dash)}"')
    return " ".join(parts)


def _points(points: tuple[Point, ...]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _shape(shape: Shape) -> str:
    if isinstance(shape, Circle):
        paint = _paint(shape.fill, shape.stroke, shape.width, shape.dash)
        return f'<circle cx="{_n(shape.x)}" cy="{_n(shape.y)}" r="{_n(shape.r)}" {paint}/>'
    if isinstance(shape, Line):
        paint = _paint(None, shape.color, shape.width, shape.dash)
        return f'<polyline points="{_points(shape.points)}" {paint} stroke-linecap="round"/>'
    if isinstance(shape, Polygon):
        paint = _paint(shape.fill, shape.stroke, shape.width)
        ident = f' id="{shape.id}"' if shape.id else ""
        return f'<polygon{ident} points="{_points(shape.points)}" {paint} stroke-linejoin="round"/>'
    if isinstance(shape, Rect):
        paint = _paint(shape.fill, shape.stroke, shape.width)
        return (
            f'<rect x="{_n(shape.x)}" y="{_n(shape.y)}" width="{_n(shape.w)}" '
            f'height="{_n(shape.h)}" rx="{_n(shape.radius)}" {paint}/>'
        )
    return _text(shape)


def _text(t: Text) -> str:
    anchor = "middle" if t.anchor == "middle" else "start"
    weight = ' font-weight="bold"' if t.bold else ""
    halo = f' stroke="{t.halo}" stroke-width="3" paint-order="stroke"' if t.halo is not None else ""
    return (
        f'<text x="{_n(t.x)}" y="{_n(t.y)}" font-size="{_n(t.size)}" fill="{t.fill}" '
        f'text-anchor="{anchor}" dominant-baseline="central"{weight}{halo}>{escape(t.text)}</text>'
    )


def to_svg(scene: Scene) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
        f'viewBox="0 0 {scene.width} {scene.height}" font-family={quoteattr(FONT)} '
        # One picture to a screen reader, named by its title (not 400 loose labels).
        f'role="img"{" aria-label=" + quoteattr(scene.title) if scene.title else ""}>'
    )
    body = [
        head,
        f"<title>{escape(scene.title)}</title>" if scene.title else "",
        f'<rect width="{scene.width}" height="{scene.height}" fill="{scene.background}"/>',
        *(_shape(s) for s in scene.shapes),
        "</svg>",
    ]
    return "\n".join(line for line in body if line) + "\n"

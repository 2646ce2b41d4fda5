"""The scene drawn with Pillow: a PNG for mail clients that show no SVG.

Drawn at twice the size and scaled down, which smooths the edges; then reduced to a
palette of colours, which keeps the file small enough to mail.
"""

from __future__ import annotations

import io
import itertools
import math
from functools import cache
from typing import Any

from mailjudge.render.board.shapes import Circle, Line, Point, Polygon, Rect, Scene, Text

SCALE = 2
COLOURS = 96  # the palette: enough for the smoothed edges, small in a PNG
BIG_BOARD_COLOURS = 64  # a board scaled down: its edges are finer, its budget tighter
# The most pixels a mailed board has: a phone's screen three device pixels to a CSS pixel
# wide (about 1,170) shows no more, and a results mail stays under 150 KB. The big maps are
# scaled down to it (the Known World's 2000x1772 board, 213 KB, to 1008x893); their web
# page and MAP's SVG keep every detail.
MAX_PIXELS = 900_000  # the standard board, 1000x884, as it was


def available() -> bool:
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


@cache
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def canvas(scene: Scene) -> Any:
    """The scene drawn at SCALE times its size (a Pillow image)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scene.width * SCALE, scene.height * SCALE), scene.background)
    draw = ImageDraw.Draw(image)
    for shape in scene.shapes:
        if isinstance(shape, Polygon) and shape.stroke and round(shape.width * SCALE) > 1:
            _outlined_polygon(image, shape)
        else:
            _draw(draw, shape)
    return image


def to_png(scene: Scene) -> bytes:
    from PIL import Image

    image = canvas(scene)
    shrink = min(1.0, math.sqrt(MAX_PIXELS / (scene.width * scene.height)))
    if shrink < 1:  # a box filter averages the canvas's blocks, as reduce does
        size = (round(scene.width * shrink), round(scene.height * shrink))
        small = image.resize(size, Image.Resampling.BOX)
    else:  # averaging each 2x2 block: smooth edges, far quicker than a resampling filter
        small = image.reduce(SCALE)
    # Octree keeps the few strong power colours apart (median cut merged some).
    quantized = small.quantize(
        colors=COLOURS if shrink == 1 else BIG_BOARD_COLOURS,
        method=Image.Quantize.FASTOCTREE,
        dither=Image.Dither.NONE,
    )
    out = io.BytesIO()
    # Flat colours compress well at zlib's default level; "optimize" tries every level
    # and filter for a few per cent more, at ten times the time.
    quantized.save(out, format="PNG", compress_level=7)
    return out.getvalue()


def _xy(p: Point) -> tuple[float, float]:
    return p[0] * SCALE, p[1] * SCALE


def _draw(draw: Any, shape: Circle | Line | Polygon | Rect | Text) -> None:
    if isinstance(shape, Circle):
        x, y, r = shape.x * SCALE, shape.y * SCALE, shape.r * SCALE
        box = (x - r, y - r, x + r, y + r)
        if shape.dash and shape.stroke:
            if shape.fill:
                draw.ellipse(box, fill=shape.fill)
            _dashed_circle(draw, (x, y), r, shape.stroke, shape.width * SCALE, shape.dash)
        else:
            width = round(shape.width * SCALE) if shape.stroke else 0
            draw.ellipse(box, fill=shape.fill, outline=shape.stroke, width=width)
    elif isinstance(shape, Line):
        points = [_xy(p) for p in shape.points]
        width = round(shape.width * SCALE)
        if shape.dash:
            for a, b in _dashes(points, [d * SCALE for d in shape.dash]):
                draw.line([a, b], fill=shape.color, width=width)
        else:
            draw.line(points, fill=shape.color, width=width, joint="curve")
            for p in (points[0], points[-1]):  # round caps, as the SVG has
                h = width / 2
                draw.ellipse((p[0] - h, p[1] - h, p[0] + h, p[1] + h), fill=shape.color)
    elif isinstance(shape, Polygon):
        width = round(shape.width * SCALE) if shape.stroke else 0
        draw.polygon([_xy(p) for p in shape.points], fill=shape.fill, outline=shape.stroke,
                     width=width)  # fmt: skip
    elif isinstance(shape, Rect):
        box = (shape.x * SCALE, shape.y * SCALE, (shape.x + shape.w) * SCALE,
               (shape.y + shape.h) * SCALE)  # fmt: skip
        width = round(shape.width * SCALE) if shape.stroke else 0
        draw.rounded_rectangle(box, radius=shape.radius * SCALE, fill=shape.fill,
                               outline=shape.stroke, width=width)  # fmt: skip
    else:
        _text(draw, shape)


def _outlined_polygon(image: Any, shape: Polygon) -> None:
    """A polygon with an outline wider than a pixel, drawn on a crop around it: Pillow
    draws such an outline through a mask the size of the image it draws on, which on a
    board of a few hundred provinces took most of the picture's time."""
    from PIL import ImageDraw

    width = round(shape.width * SCALE)
    points = [_xy(p) for p in shape.points]
    margin = width + 2
    left = max(0, math.floor(min(x for x, _ in points)) - margin)
    top = max(0, math.floor(min(y for _, y in points)) - margin)
    right = min(image.width, math.ceil(max(x for x, _ in points)) + margin)
    bottom = min(image.height, math.ceil(max(y for _, y in points)) + margin)
    if right <= left or bottom <= top:
        return  # wholly off the board
    crop = image.crop((left, top, right, bottom))
    moved = [(x - left, y - top) for x, y in points]
    ImageDraw.Draw(crop).polygon(moved, fill=shape.fill, outline=shape.stroke, width=width)
    image.paste(crop, (left, top))


def _text(draw: Any, t: Text) -> None:
    font = _font(round(t.size * SCALE))
    anchor = "mm" if t.anchor == "middle" else "lm"
    stroke = {"stroke_width": 3 * SCALE // 2, "stroke_fill": t.halo} if t.halo else {}
    at = _xy((t.x, t.y))
    draw.text(at, t.text, fill=t.fill, font=font, anchor=anchor, **stroke)
    if t.bold:  # the bundled font has no bold face: draw it twice, a pixel apart
        draw.text((at[0] + 1, at[1]), t.text, fill=t.fill, font=font, anchor=anchor)


def _dashes(points: list[tuple[float, float]], pattern: list[float]) -> list[tuple[Point, Point]]:
    """The drawn pieces of a dashed polyline."""
    pieces: list[tuple[Point, Point]] = []
    index, left, on = 0, pattern[0], True
    for a, b in itertools.pairwise(points):
        length = math.dist(a, b)
        done = 0.0
        while done < length:
            step = min(left, length - done)
            if on:
                t0, t1 = done / length, (done + step) / length
                pieces.append(((a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                               (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)))  # fmt: skip
            done += step
            left -= step
            if left <= 1e-9:
                index = (index + 1) % len(pattern)
                left, on = pattern[index], not on
    return pieces


def _dashed_circle(
    draw: Any, centre: Point, r: float, colour: str, width: float, dash: tuple[float, ...]
) -> None:
    steps = max(12, int(2 * math.pi * r / 4))
    ring = [
        (centre[0] + r * math.cos(2 * math.pi * i / steps),
         centre[1] + r * math.sin(2 * math.pi * i / steps))
        for i in range(steps + 1)
    ]  # fmt: skip
    for a, b in _dashes(ring, [d * SCALE for d in dash]):
        draw.line([a, b], fill=colour, width=round(width))

"""A close-up of one power's part of the board: the same SVG, its view box cut down to the
power's units and centres with a margin around them, so that a phone shows that region at
full size (labels of 9 to 11 px, units of 20) with no script (issue 54)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mailjudge.engine.maps import GameMap
from mailjudge.engine.state import Position
from mailjudge.render.board.places import places
from mailjudge.render.board.shapes import Point

MARGIN = 70  # px of the board around the power's pieces: their neighbours show
SMALLEST = 360  # px: a close-up is never narrower or shorter than a phone's screen
_SIZE = re.compile(r'width="\d+" height="\d+" viewBox="0 0 \d+ \d+"')  # the <svg>'s own


def region_of(gmap: GameMap, position: Position, power: str) -> tuple[float, float, float, float]:
    """(x, y, width, height) of the board around ``power``'s units and centres; an empty
    box when it has neither."""
    where = places(gmap)
    points: list[Point] = [
        where.units[u.loc] for u in position.units_of(power) if u.loc in where.units
    ]
    points += [
        where.centres[c]
        for c, owner in position.sc_owners.items()
        if owner == power and c in where.centres
    ]
    if not points:
        return (0.0, 0.0, 0.0, 0.0)
    width, height = gmap.board_size
    left, right = _span([p[0] for p in points], width)
    top, bottom = _span([p[1] for p in points], height)
    return (left, top, right - left, bottom - top)


def _span(values: list[float], limit: float) -> tuple[float, float]:
    """The values' range with the margin, at least SMALLEST long, within 0..limit."""
    low, high = min(values) - MARGIN, max(values) + MARGIN
    grow = max(0.0, SMALLEST - (high - low)) / 2
    low, high = low - grow, high + grow
    shift = max(0.0, -low) - max(0.0, high - limit)
    return max(0.0, low + shift), min(limit, high + shift)


def closeup(svg: str, box: tuple[float, float, float, float]) -> str:
    """``svg`` showing only ``box``, at one CSS px a board px."""
    x, y, w, h = (round(v) for v in box)
    head = f'width="{w}" height="{h}" viewBox="{x} {y} {w} {h}"'
    return _SIZE.sub(head, svg, count=1)


@dataclass(frozen=True)
class MailCloseup:
    """Where a results mail's close-up shows the board's PNG: the part of it (in the PNG's
    pixels) around the reader's powers, cut by the HTML (a frame that hides the rest),
    so the close-up costs the mail no second picture."""

    x: int
    y: int
    width: int
    height: int
    image_width: int  # the PNG's own width: the picture is shown at that size in the frame


def mail_closeup(
    gmap: GameMap, position: Position, powers: Iterable[str], png: bytes
) -> MailCloseup | None:
    """The close-up of ``powers`` in the mailed ``png`` of the board; None where they have
    nothing on the board, or the map no drawing."""
    boxes = [region_of(gmap, position, p) for p in powers] if gmap.positions else []
    boxes = [b for b in boxes if b[2]]
    if not boxes or png[12:16] != b"IHDR":
        return None
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    image_width = int.from_bytes(png[16:20], "big")
    scale = image_width / gmap.board_size[0]  # a big board is mailed scaled down
    return MailCloseup(
        round(left * scale), round(top * scale), round((right - left) * scale),
        round((bottom - top) * scale), image_width,
    )  # fmt: skip

"""Colours for maps with more powers than a palette names (up to 34: Chaos): each palette's
seven colours first, then colours picked one at a time from a grid of sRGB colours, each
the one farthest (by CIEDE2000, render/board/colour.py) from all picked before, among
those that stand out on the land, the sea and white. In the colour-blind palette the
distance is the smaller of the plain one and the one a deuteranope sees.

The picked colours are kept as data (style.SPREAD), so that drawing a board computes nothing;
``python -m mailjudge.render.board.spread`` picks them again (tests/unit/test_palette.py checks
that it gives the same)."""

from __future__ import annotations

import itertools
import sys

from mailjudge.render.board.colour import Lab, ciede2000_lab, deuteranope, lab
from mailjudge.render.board.style import PALETTES

MOST = 34  # the most powers a map has (Chaos)
LIGHTNESS = (25.0, 78.0)  # CIELAB lightness a unit's colour keeps to
CLEAR = 12.0  # how far a power's colour keeps from the land, the sea, Switzerland, white


def _seen(colour: str) -> tuple[Lab, Lab]:
    return lab(colour), lab(deuteranope(colour))


def apart(one: str, two: str, blind: bool) -> float:
    """How far apart two colours are for the palette: for the colour-blind one, the
    smaller of the plain difference and a deuteranope's."""
    (a, a_blind), (b, b_blind) = _seen(one), _seen(two)
    plain = ciede2000_lab(a, b)
    return min(plain, ciede2000_lab(a_blind, b_blind)) if blind else plain


def pick(name: str, count: int = MOST) -> tuple[str, ...]:
    """The palette's colours and then the farthest others, ``count`` in all."""
    palette = PALETTES[name]
    blind = name == "colourblind"

    def far(one: tuple[Lab, Lab], two: tuple[Lab, Lab]) -> float:
        plain = ciede2000_lab(one[0], two[0])
        return min(plain, ciede2000_lab(one[1], two[1])) if blind else plain

    avoid = [_seen(c) for c in (palette.land, palette.sea, palette.impassable, "#ffffff")]
    grid = []
    for r, g, b in itertools.product(range(0, 256, 17), repeat=3):
        colour = f"#{r:02x}{g:02x}{b:02x}"
        seen = _seen(colour)
        if LIGHTNESS[0] <= seen[0][0] <= LIGHTNESS[1] and min(far(seen, a) for a in avoid) >= CLEAR:
            grid.append((colour, seen))
    chosen = list(palette.powers.values())
    nearest = [min(far(seen, _seen(c)) for c in chosen) for _, seen in grid]
    while len(chosen) < count:
        best = max(range(len(grid)), key=nearest.__getitem__)
        colour, seen = grid[best]
        chosen.append(colour)
        nearest = [min(n, far(s, seen)) for n, (_, s) in zip(nearest, grid, strict=True)]
    return tuple(chosen)


def main() -> int:
    for name in sorted(PALETTES):
        print(name, pick(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Colours and sizes of the board picture, in one place."""

from __future__ import annotations

from dataclasses import dataclass


# Our own palettes. "standard": strong colours for units and owned centres; "colourblind":
# one whose units stay apart for red-green colour blindness (deuteranopia). In both, every
# two of the land fills (each power's tint, neutral land, Switzerland) and the sea, and every
# two unit colours, are at least 10 apart by CIEDE2000 (tests/unit/test_board.py measures it with
# render/board/colour.py); in "colourblind" the unit colours are also 10 apart as a
# deuteranope sees them.
@dataclass(frozen=True)
class Palette:
    powers: dict[str, str]
    land: str  # neutral land
    impassable: str  # Switzerland
    sea: str
    tint: float  # how much white an owner's colour is mixed with, as its land's fill

    def land_of(self, colour: str) -> str:
        return tint(colour, self.tint)


PALETTES = {
    "standard": Palette(
        powers={
            "AUSTRIA": "#d0393e", "ENGLAND": "#475790", "FRANCE": "#2a9aca",
            "GERMANY": "#65432e", "ITALY": "#2c9f45", "RUSSIA": "#944cb7", "TURKEY": "#d88101",
        },
        land="#fdf9e6", impassable="#c4c4a6", sea="#a2c7ff", tint=0.66,
    ),
    "colourblind": Palette(
        powers={
            "AUSTRIA": "#c05604", "ENGLAND": "#1c47af", "FRANCE": "#379ce7",
            "GERMANY": "#454a5a", "ITALY": "#029e73", "RUSSIA": "#cc79a7", "TURKEY": "#c78a00",
        },
        land="#f8f2e0", impassable="#c9c3b3", sea="#a0c8ce", tint=0.665,
    ),
}  # fmt: skip
DEFAULT_PALETTE = "standard"
POWER_COLOURS = PALETTES[DEFAULT_PALETTE].powers
# Each palette's colours for maps whose powers it does not name (up to 34, Chaos): its own
# seven first, then the farthest others; picked by render/board/spread.py.
SPREAD: dict[str, tuple[str, ...]] = {
    "standard": (
        "#d0393e", "#475790", "#2a9aca", "#65432e", "#2c9f45", "#944cb7", "#d88101",
        "#ccbbcc", "#114433", "#bbbb00", "#666600", "#771144", "#ff55aa", "#00ccbb",
        "#999988", "#ff9988", "#aa99ff", "#887788", "#557777", "#1100cc", "#44dd00",
        "#ddbb88", "#006611", "#ff5511", "#aa5511", "#555544", "#880011", "#004455",
        "#4477ff", "#cc0077", "#554455", "#99cc99", "#ff99ff", "#aa8877",
    ),
    "colourblind": (
        "#c05604", "#1c47af", "#379ce7", "#454a5a", "#029e73", "#cc79a7", "#c78a00",
        "#224411", "#884455", "#ffaa88", "#bb1199", "#ddaaff", "#aa0022", "#5555ff",
        "#77aa66", "#ffaa00", "#114433", "#557777", "#0000ff", "#448844", "#004466",
        "#ff44cc", "#116633", "#bb5599", "#555588", "#77aa99", "#dd2288", "#3366bb",
        "#884477", "#bb33cc", "#88aaff", "#bbaa55", "#bb3366", "#11aa33",
    ),
}  # fmt: skip

SEA_BACKGROUND = "#bcd7ec"
LAND_FILL = PALETTES[DEFAULT_PALETTE].land
LAND_STROKE = "#b9a77c"
WATER_FILL = "#dcebf7"
WATER_STROKE = "#7fa7c9"
WATER_LABEL = "#2f5f8a"
LAND_LABEL = "#5a4a2a"
NEUTRAL_CENTRE = "#ffffff"
IMPASSABLE_FILL = PALETTES[DEFAULT_PALETTE].impassable
# The map view: seas a stronger blue than the graph view's, so that no tint of a power's
# colour on land reads as water.
SEA_FILL = PALETTES[DEFAULT_PALETTE].sea
COAST_STROKE = "#6f8fae"
CENTRE_STROKE = "#333333"
ARMY_EDGE = "#d9c9a0"
FLEET_EDGE = "#9dbcd8"
# Neighbours without a shared border (a passage): a bridge drawn across what parts them.
PASSAGE_EDGE = "#6b5a3a"
PASSAGE_LINE = "#f4ecd4"
FAILED = "#8c8c8c"
FAILED_MARK = "#d7191c"
# A dislodged unit: a dashed square in black on white, no power's colour and not a ring
# (a hold is a ring in the power's colour).
DISLODGED = "#111111"

LAND_RADIUS = 24
WATER_RADIUS = 27
CENTRE_RADIUS = 6
UNIT_RADIUS = 10
LEGEND_HEIGHT = 84
LEGEND_COLUMNS = 8  # powers (and "neutral") a legend row holds; more go on further rows
LEGEND_ROW = 44


def legend_height(powers: int) -> int:
    """The legend's height for a map of that many powers: one row up to seven."""
    rows = -(-(powers + 1) // LEGEND_COLUMNS)
    return LEGEND_HEIGHT + LEGEND_ROW * (rows - 1)


def palette(name: str | None) -> Palette:
    """The palette of that name; the standard one for None or a name not known."""
    return PALETTES.get(name or DEFAULT_PALETTE, PALETTES[DEFAULT_PALETTE])


def colours_for(order: tuple[str, ...], colours: Palette | None = None) -> dict[str, str]:
    """Each power's colour on a map: the palette's own for a power it names, and for the
    others the palette's spread colours in turn, leaving out those already taken."""
    paints = colours or PALETTES[DEFAULT_PALETTE]
    spread = SPREAD[next((k for k, v in PALETTES.items() if v is paints), DEFAULT_PALETTE)]
    found = {p: paints.powers[p] for p in order if p in paints.powers}
    free = iter(c for c in spread if c not in found.values())
    return {p: found[p] if p in found else next(free) for p in order}


def power_colour(power: str, order: tuple[str, ...], colours: Palette | None = None) -> str:
    return colours_for(order if power in order else (*order, power), colours)[power]


def tint(colour: str, amount: float = 0.72) -> str:
    """The colour mixed with white: a province's fill for its owner."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)

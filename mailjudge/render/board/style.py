"""Colours and sizes of the board picture, in one place."""

from __future__ import annotations

# Our own palette: strong colours for units and owned centres, told apart also in grey.
POWER_COLOURS = {
    "AUSTRIA": "#d0393e",
    "ENGLAND": "#3b4cc0",
    "FRANCE": "#2a9fd8",
    "GERMANY": "#5b4636",
    "ITALY": "#2f9e44",
    "RUSSIA": "#8d54b8",
    "TURKEY": "#e0a100",
}
SPARE_COLOURS = ("#e8590c", "#0b7285", "#c2255c", "#5c940d", "#364fc7", "#862e9c")

SEA_BACKGROUND = "#bcd7ec"
LAND_FILL = "#f3ead3"
LAND_STROKE = "#b9a77c"
WATER_FILL = "#dcebf7"
WATER_STROKE = "#7fa7c9"
WATER_LABEL = "#2f5f8a"
LAND_LABEL = "#5a4a2a"
NEUTRAL_CENTRE = "#ffffff"
IMPASSABLE_FILL = "#c9c3b3"
# The map view: seas a stronger blue than the graph view's, so that no tint of a power's
# colour on land reads as water.
SEA_FILL = "#a9c8e3"
COAST_STROKE = "#6f8fae"
CENTRE_STROKE = "#333333"
ARMY_EDGE = "#d9c9a0"
FLEET_EDGE = "#9dbcd8"
FAILED = "#8c8c8c"
FAILED_MARK = "#d7191c"
DISLODGED = "#d7191c"

LAND_RADIUS = 24
WATER_RADIUS = 27
CENTRE_RADIUS = 6
UNIT_RADIUS = 10
LEGEND_HEIGHT = 84


def power_colour(power: str, order: tuple[str, ...]) -> str:
    if power in POWER_COLOURS:
        return POWER_COLOURS[power]
    index = order.index(power) if power in order else len(order)
    return SPARE_COLOURS[index % len(SPARE_COLOURS)]


def tint(colour: str, amount: float = 0.72) -> str:
    """The colour mixed with white: a province's fill for its owner."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)

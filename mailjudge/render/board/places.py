"""Where things go on the picture: each unit (a province, or a split coast), each province's
name and its supply-centre mark. The map view takes them from the province outlines
(data/maps/NAME.outlines.toml); the graph view, from the board positions, round circles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from mailjudge.engine.maps import GameMap, province_of
from mailjudge.render.board import style
from mailjudge.render.board.shapes import Point

MAP, GRAPH = "map", "graph"
VIEWS = (MAP, GRAPH)


@dataclass(frozen=True)
class Places:
    view: str
    units: Mapping[str, Point]  # province code or coast location -> a unit's place
    labels: Mapping[str, Point]
    centres: Mapping[str, Point]  # where a province's supply-centre mark is
    dislodged: Mapping[str, Point]  # where a dislodged unit of a province is drawn

    def unit(self, loc: str) -> Point:
        """A unit's place: its coast's own point, else its province's."""
        return self.units.get(loc) or self.units[province_of(loc)]


def places(gmap: GameMap, view: str = MAP) -> Places:
    if view not in VIEWS:
        raise ValueError(f"the board is drawn as {' or '.join(VIEWS)}, not {view!r}")
    if view == MAP and not gmap.outlines:
        view = GRAPH  # a map without outlines is drawn as a graph
    return _places(gmap, view)


@cache
def _places(gmap: GameMap, view: str) -> Places:
    units: dict[str, Point] = {}
    labels: dict[str, Point] = {}
    centres: dict[str, Point] = {}
    dislodged: dict[str, Point] = {}
    for code in gmap.provinces:
        if view == MAP:
            shape = gmap.outlines[code]
            units[code], labels[code] = shape.unit, shape.label
            for coast, point in shape.coasts.items():
                units[f"{code}/{coast}"] = point
            centres[code], dislodged[code] = shape.centre, shape.dislodged
        else:
            x, y = (float(v) for v in gmap.positions[code])
            units[code], labels[code] = (x, y - 5.0), (x, y + 13.0)
            off = style.LAND_RADIUS * 0.68
            centres[code] = (x - off, y - off)
            dislodged[code] = (x + 17.0, y - 14.0)
            for coast in gmap.provinces[code].coasts:
                cx, cy = gmap.positions[f"{code}/{coast}"]
                units[f"{code}/{coast}"] = (float(cx), float(cy))
    return Places(view, units, labels, centres, dislodged)

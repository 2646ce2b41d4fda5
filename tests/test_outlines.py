"""The province outlines of the standard board (data/maps/standard.outlines.toml), read and
checked with shapely: one region per province, no two overlapping, a shared border exactly
where the map data has one; and the file is what the drawing code makes of the map today."""

from __future__ import annotations

import itertools
import tomllib

import pytest
from shapely.geometry import Point, Polygon, box

from mailjudge.engine.maps import WATER, load_map, province_of
from mailjudge.paths import MAPS_DIR
from mailjudge.render.board import outlines as drawing
from mailjudge.render.board.places import places

MAP = load_map("standard")
SHAPES = {code: Polygon(o.points) for code, o in MAP.outlines.items()}
BORDER = 1.0  # the least length (in board pixels) of a shared border


def neighbours() -> set[tuple[str, str]]:
    pairs = set()
    for moves in (MAP.army_moves, MAP.fleet_moves):
        for here, theirs in moves.items():
            for there in theirs:
                a, b = sorted((province_of(here), province_of(there)))
                if a != b:
                    pairs.add((a, b))
    return pairs


def test_every_province_has_one_region_on_the_board() -> None:
    assert set(MAP.provinces) <= set(SHAPES)
    assert set(SHAPES) - set(MAP.provinces) == {"swi"}  # Switzerland: drawn, impassable
    board = box(0, 0, *MAP.board_size)
    for code, shape in SHAPES.items():
        assert shape.is_valid and shape.geom_type == "Polygon", code
        assert shape.area > 200, f"{code} is too small to see"
        assert board.buffer(0.5).contains(shape), code


def test_no_two_regions_overlap_and_together_they_cover_the_board() -> None:
    for a, b in itertools.combinations(sorted(SHAPES), 2):
        assert SHAPES[a].intersection(SHAPES[b]).area < 0.01, (a, b)
    total = sum(shape.area for shape in SHAPES.values())
    assert total == pytest.approx(MAP.board_size[0] * MAP.board_size[1], rel=1e-3)


def test_regions_share_a_border_exactly_where_the_map_data_has_one() -> None:
    adjacent = neighbours()
    wrong = []
    for a, b in itertools.combinations(sorted(MAP.provinces), 2):
        shared = SHAPES[a].intersection(SHAPES[b]).length
        if (a, b) in adjacent and shared < BORDER:
            wrong.append(f"{a}-{b} are neighbours but share only {shared:.2f}")
        if (a, b) not in adjacent and shared > 0.01:
            wrong.append(f"{a}-{b} are not neighbours but share {shared:.2f}")
    assert wrong == []


def test_switzerland_touches_its_five_neighbours_and_the_split_coasts_are_marked() -> None:
    swi = SHAPES["swi"]
    touching = {c for c in MAP.provinces if swi.intersection(SHAPES[c]).length > BORDER}
    assert touching == {"mar", "bur", "mun", "tyr", "pie"}
    where = places(MAP)
    for code in ("spa", "stp", "bul"):
        coasts = MAP.outlines[code].coasts
        assert set(coasts) == set(MAP.provinces[code].coasts), code
        for point in coasts.values():
            assert SHAPES[code].contains(Point(point))
    # Each coast's fleet is drawn nearer the seas only that coast reaches.
    assert Point(where.unit("spa/nc")).distance(SHAPES["gas"]) < Point(
        where.unit("spa/sc")).distance(SHAPES["gas"])  # fmt: skip
    assert Point(where.unit("bul/ec")).distance(SHAPES["bla"]) < Point(
        where.unit("bul/sc")).distance(SHAPES["bla"])  # fmt: skip


def test_units_names_and_centres_sit_inside_their_province_apart() -> None:
    where = places(MAP)
    for code in MAP.provinces:
        shape = SHAPES[code]
        unit, label = where.units[code], where.labels[code]
        assert shape.contains(Point(unit)) and shape.contains(Point(label)), code
        assert Point(unit).distance(Point(label)) >= drawing.CLEAR_OF_UNIT - 0.5, code
        if MAP.provinces[code].centre:
            assert shape.contains(Point(where.centres[code])), code
    assert {MAP.provinces[c].kind == WATER for c in MAP.provinces} == {True, False}


def test_the_file_is_what_the_drawing_makes_of_the_map() -> None:
    """Changing the map's board data means drawing the outlines again (see README)."""
    doc = tomllib.loads((MAPS_DIR / "standard.toml").read_text(encoding="utf-8"))
    board = drawing.drawing_of(doc)
    assert drawing.crossings(board) == []
    found = drawing.outlines(board)
    drawing.coast_points(doc, board, found)
    made = drawing.to_toml("standard", found, board)
    assert made == (MAPS_DIR / "standard.outlines.toml").read_text(encoding="utf-8")

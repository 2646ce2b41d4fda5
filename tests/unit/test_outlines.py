"""The province outlines of every drawn map (data/maps/NAME.outlines.toml, or the board of
the map it is drawn as: engine/boards.py), read and checked with shapely: one region per
province, no two overlapping, a shared border exactly where the map data has one; and each
outlines file is what the drawing code makes of its map today."""

from __future__ import annotations

import itertools
import tomllib

import pytest
from helpers.map_sizes import sized
from shapely.geometry import Point, Polygon, box

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document
from mailjudge.engine.maps import GameMap, load_map, province_of
from mailjudge.render.board import outlines as drawing
from mailjudge.render.board.passages import passages
from mailjudge.render.board.places import places

MAP = load_map("standard")
SHAPES = {code: Polygon(o.points) for code, o in MAP.outlines.items()}
BORDER = 1.0  # the least length (in board pixels) of a shared border
ALL_MAPS = sorted(
    p.name.removesuffix(".toml") for p in MAPS_DIR.glob("*.toml") if p.name.count(".") == 1
)
DRAWN = [name for name in ALL_MAPS if load_map(name).outlines]
OWN_OUTLINES = [name for name in DRAWN if (MAPS_DIR / f"{name}.outlines.toml").exists()]
# Maps whose drawing is not done yet: they are shown as the graph of their provinces.
PENDING: set[str] = set()  # every map is drawn now


def shapes_of(gmap: GameMap) -> dict[str, Polygon]:
    return {code: Polygon(o.points) for code, o in gmap.outlines.items()}


def neighbours(gmap: GameMap = MAP) -> set[tuple[str, str]]:
    pairs = set()
    for moves in (gmap.army_moves, gmap.fleet_moves):
        for here, theirs in moves.items():
            for there in theirs:
                a, b = sorted((province_of(here), province_of(there)))
                if a != b:
                    pairs.add((a, b))
    return pairs


def test_every_map_is_drawn_but_those_not_done_yet() -> None:
    assert "standard" in DRAWN
    assert set(ALL_MAPS) - set(DRAWN) <= PENDING


@pytest.mark.parametrize("name", DRAWN)
def test_every_province_has_one_region_on_the_board(name: str) -> None:
    gmap = load_map(name)
    shapes = shapes_of(gmap)
    assert set(gmap.provinces) <= set(shapes)
    impassable = set(shapes) - set(gmap.provinces)  # drawn, not played: Switzerland
    assert all(gmap.outlines[code].kind == "impassable" for code in impassable)
    board = box(0, 0, *gmap.board_size)
    for code, shape in shapes.items():
        assert shape.is_valid and shape.geom_type == "Polygon", code
        assert shape.area > 200, f"{code} is too small to see"
        assert board.buffer(0.5).contains(shape), code


@pytest.mark.parametrize("name", DRAWN)
def test_no_two_regions_overlap_and_together_they_cover_the_board(name: str) -> None:
    gmap = load_map(name)
    shapes = shapes_of(gmap)
    for a, b in itertools.combinations(sorted(shapes), 2):
        if shapes[a].envelope.intersects(shapes[b].envelope):
            assert shapes[a].intersection(shapes[b]).area < 0.01, (a, b)
    total = sum(shape.area for shape in shapes.values())
    assert total == pytest.approx(gmap.board_size[0] * gmap.board_size[1], rel=1e-3)


@pytest.mark.parametrize("name", DRAWN)
def test_regions_share_a_border_exactly_where_the_map_data_has_one(name: str) -> None:
    gmap = load_map(name)
    shapes = shapes_of(gmap)
    adjacent = neighbours(gmap)
    # Neighbours the map's board makes a passage (no flat board gives them a border): they
    # share none, and the picture links them (render/board/passages.py).
    board = map_document(name, MAPS_DIR)["board"]
    declared = {tuple(sorted(text.split("-"))) for text in board.get("passages", [])}
    assert declared <= adjacent
    assert {(a, b) for a, b, _, _ in passages(gmap)} == declared
    wrong = []
    for a, b in itertools.combinations(sorted(gmap.provinces), 2):
        shared = shapes[a].intersection(shapes[b]).length
        if (a, b) in adjacent - declared and shared < BORDER:
            wrong.append(f"{a}-{b} are neighbours but share only {shared:.2f}")
        if (a, b) not in adjacent - declared and shared > 0.01:
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


@pytest.mark.parametrize("name", DRAWN)
def test_units_names_and_centres_sit_inside_their_province_apart(name: str) -> None:
    gmap = load_map(name)
    shapes = shapes_of(gmap)
    where = places(gmap)
    for code in gmap.provinces:
        shape = shapes[code]
        unit, label = where.units[code], where.labels[code]
        assert shape.contains(Point(unit)) and shape.contains(Point(label)), code
        assert Point(unit).distance(Point(label)) >= drawing.CLEAR_OF_UNIT - 0.5, code
        if gmap.provinces[code].centre:
            assert shape.contains(Point(where.centres[code])), code
        for coast, point in gmap.outlines[code].coasts.items():
            assert coast in gmap.provinces[code].coasts and shape.contains(Point(point)), code
        assert set(gmap.outlines[code].coasts) == set(gmap.provinces[code].coasts), code


@pytest.mark.parametrize("name", sized(OWN_OUTLINES))
def test_the_file_is_what_the_drawing_makes_of_the_map(name: str) -> None:
    """Changing the map's board data means drawing the outlines again (see README)."""
    doc = map_document(name, MAPS_DIR)
    board = drawing.drawing_of(doc)
    assert drawing.crossings(board) == []
    found = drawing.outlines(board)
    drawing.coast_points(doc, board, found)
    made = drawing.to_toml(name, found, board)
    assert made == (MAPS_DIR / f"{name}.outlines.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(set(DRAWN) - set(OWN_OUTLINES)))
def test_a_map_on_another_maps_board_has_the_same_provinces(name: str) -> None:
    gmap = load_map(name)
    base = load_map(str(tomllib.loads((MAPS_DIR / f"{name}.board.toml").read_text())["drawn_as"]))
    assert set(gmap.provinces) == set(base.provinces)
    assert dict(gmap.outlines) == dict(base.outlines) and gmap.positions == base.positions

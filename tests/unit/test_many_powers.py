"""A board of 34 powers (as Chaos: the standard board, each power one home centre): every
power's units in a colour of its own in both palettes, each named in the legend, which
takes as many rows as it needs below the board; and a passage (neighbours that share no
border) drawn as a bridge, named in the key."""

from __future__ import annotations

import re
import tomllib

import pytest
from shapely.geometry import Point, Polygon

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document
from mailjudge.engine.maps import GameMap, load_map, parse_map
from mailjudge.engine.state import initial_position
from mailjudge.render.board import draw_picture
from mailjudge.render.board import outlines as drawing
from mailjudge.render.board.passages import passages
from mailjudge.render.board.style import PALETTES, colours_for, legend_height

STANDARD = load_map("standard")


def thirty_four() -> GameMap:
    doc = map_document("standard", MAPS_DIR)
    powers = {
        f"P{code.upper()}": {"initial": code[0].upper(), "home": [code], "units": [f"A {code}"]}
        for code in sorted(STANDARD.centres)
    }
    return parse_map({**doc, "name": "many", "powers": powers})


@pytest.mark.parametrize("palette", sorted(PALETTES))
def test_thirty_four_powers_each_in_a_colour_of_its_own(palette: str) -> None:
    gmap = thirty_four()
    assert len(gmap.power_names) == 34
    svg = draw_picture(gmap, initial_position(gmap), (), "many", png=False, palette=palette).svg
    colours = colours_for(gmap.power_names, PALETTES[palette])
    assert len(set(colours.values())) == 34
    for power, colour in colours.items():
        assert f'fill="{colour}"' in svg, power
        assert power.title() in svg, power
    height = re.search(r'<svg[^>]* height="(\d+)', svg)
    assert height is not None
    assert int(height.group(1)) == STANDARD.board_size[1] + legend_height(34)
    assert legend_height(34) > legend_height(7) == 84  # five rows, the standard one


def test_a_map_of_seven_powers_keeps_its_one_row_legend_and_colours() -> None:
    assert colours_for(STANDARD.power_names, PALETTES["standard"]) == PALETTES["standard"].powers


def test_a_passage_is_left_out_of_the_drawing_found_and_drawn() -> None:
    """The standard board drawn again with the North Sea and the Skagerrak as a passage:
    they share no border, the picture links them with a dashed line, and every other pair
    of neighbours still shares one."""
    assert passages(STANDARD) == ()  # every standard neighbour shares a border
    doc = map_document("standard", MAPS_DIR)
    doc = {**doc, "board": {**doc["board"], "passages": ["nth-ska"]}}
    board = drawing.drawing_of(doc)
    assert ("nth", "ska") not in board.edges
    found = drawing.outlines(board)
    drawing.coast_points(doc, board, found)
    gmap = parse_map({**doc, "outlines": tomllib.loads(drawing.to_toml("x", found, board))})
    shapes = {code: Polygon(o.points) for code, o in gmap.outlines.items()}
    assert shapes["nth"].intersection(shapes["ska"]).length < 0.01
    [(a, b, one, two)] = passages(gmap)
    assert (a, b) == ("nth", "ska")
    assert shapes["nth"].contains(Point(one)) and shapes["ska"].contains(Point(two))
    assert Point(one).distance(Point(two)) >= 14
    svg = draw_picture(gmap, initial_position(gmap), (), "x", png=False).svg
    assert 'stroke="#f4ecd4"' in svg and ">neighbours<" in svg  # the bridge, in the key too
    plain = draw_picture(STANDARD, initial_position(STANDARD), (), "x", png=False).svg
    assert 'stroke="#f4ecd4"' not in plain and ">neighbours<" not in plain


def test_a_passage_round_the_sides_of_the_world_leaves_one_side_and_comes_back_at_the_other() -> (
    None
):
    """The world map goes round: the Pacific's provinces at the left side neighbour those
    at the right. Their bridge is drawn at the sides, each end inside its province, about
    as high at both sides; a bridge across the whole board is drawn nowhere."""
    gmap = load_map("world")
    width = gmap.board_size[0]
    shapes = {code: Polygon(o.points) for code, o in gmap.outlines.items()}
    found = passages(gmap)
    assert len(found) == 11
    for a, b, one, two in found:
        assert abs(one[0] - two[0]) > width / 2, (a, b)  # round, never across
        assert min(one[0], two[0]) <= 40 and max(one[0], two[0]) >= width - 40, (a, b)
        assert abs(one[1] - two[1]) < 40, (a, b)
        assert shapes[a].contains(Point(one)) and shapes[b].contains(Point(two)), (a, b)
    svg = draw_picture(gmap, initial_position(gmap), (), "x", png=False).svg
    bridges = re.findall(r'<polyline points="([^"]+)"[^>]*stroke="#f4ecd4"', svg)
    assert len(bridges) == 2 * len(found) + 1  # and one in the key
    for text in bridges[:-1]:
        xs = [float(pair.split(",")[0]) for pair in text.split()]
        assert min(xs) in (0.0, float(width)) or max(xs) in (0.0, float(width))
        assert max(xs) - min(xs) <= 40

"""The board picture: positions for every place on the map, the start and a mid-game
phase drawn as SVG and PNG, and the PNG read back to check what a player would see."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import MapError, load_map, parse_map
from mailjudge.engine.state import initial_position
from mailjudge.render.board import draw_picture
from mailjudge.render.board.places import places
from mailjudge.render.board.samples import MIDGAME, midgame, midgame_picture, start_picture
from mailjudge.render.board.style import NEUTRAL_CENTRE, POWER_COLOURS

MAP = load_map("standard")
PLACES = places(MAP)  # the map view: provinces as their outlines


def centre_point(gmap: object, prov: str) -> tuple[float, float]:
    return PLACES.centres[prov]


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def near(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def pixel(png: bytes, at: tuple[float, float]) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.getpixel((round(at[0]), round(at[1])))  # type: ignore[return-value]


def test_every_province_and_coast_has_a_place_on_the_board() -> None:
    assert set(MAP.positions) == set(MAP.provinces) | MAP.locations
    width, height = MAP.board_size
    assert all(0 < x < width and 0 < y < height for x, y in MAP.positions.values())


def test_a_map_without_a_position_is_refused() -> None:
    import tomllib

    from mailjudge.config.paths import MAPS_DIR

    doc = tomllib.loads((MAPS_DIR / "standard.toml").read_text(encoding="utf-8"))
    del doc["board"]["positions"]["par"]
    with pytest.raises(MapError, match="no position for par"):
        parse_map(doc)


def test_the_starting_board() -> None:
    picture = start_picture()
    assert picture.png is not None and picture.png.startswith(b"\x89PNG")
    assert 20_000 < len(picture.png) < 150_000  # small enough to mail
    image = Image.open(io.BytesIO(picture.png))
    assert image.size == (1000, 884)
    # Each home centre shows its owner's colour; a neutral one is white.
    for centre, owner in (("par", "FRANCE"), ("mos", "RUSSIA"), ("ank", "TURKEY")):
        assert near(pixel(picture.png, centre_point(MAP, centre)), rgb(POWER_COLOURS[owner]))
    assert near(pixel(picture.png, centre_point(MAP, "bel")), rgb(NEUTRAL_CENTRE))
    # The army in Paris is drawn in France's colour at its province.
    x, y = PLACES.unit("par")
    assert near(pixel(picture.png, (x - 6, y)), rgb(POWER_COLOURS["FRANCE"]))
    svg = ET.fromstring(picture.svg)
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert {"PAR", "STP", "NAO"} <= set(texts)
    assert "3 SC, 3 units" in texts and "4 SC, 4 units" in texts  # the legend's counts


def test_the_midgame_board_draws_every_kind_of_order() -> None:
    _, results = midgame()
    outcomes = {r["order"]: r["outcome"] for r in results}
    assert outcomes["A YOR - BEL VIA"] == "succeeds" and outcomes["A BEL H"] == "dislodged"
    assert outcomes["A WAR - GAL"] == "bounces" and outcomes["A BUR S A BEL"] == "dislodged"
    picture = midgame_picture()
    assert picture.png is not None and len(picture.png) < 150_000
    svg = picture.svg
    assert 'stroke-dasharray="7 5"' in svg  # supports
    assert 'stroke-dasharray="2 4"' in svg  # the convoy
    assert svg.count("<polygon") > 20  # arrowheads and fleets
    # A failed move is grey and crossed; a successful one has its power's colour.
    assert 'stroke="#8c8c8c"' in svg and 'stroke="#d7191c"' in svg
    # The mid-point of the convoyed army's arrow is in England's colour in the PNG.
    a, b = PLACES.unit("yor"), PLACES.unit("bel")
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    assert near(pixel(picture.png, mid), rgb(POWER_COLOURS["ENGLAND"]), 40)
    # Belgium's centre is still French this Fall movement; Holland German.
    assert near(pixel(picture.png, centre_point(MAP, "bel")), rgb(POWER_COLOURS["FRANCE"]))
    assert near(pixel(picture.png, centre_point(MAP, "hol")), rgb(POWER_COLOURS["GERMANY"]))


def test_a_retreat_phase_shows_the_dislodged_unit() -> None:
    doc = {
        **MIDGAME,
        "phase": "F1902R",
        "units": [u for u in MIDGAME["units"] if u["loc"] != "bel"]
        + [{"power": "ENGLAND", "type": "A", "loc": "bel"}],
        "dislodged": [
            {"power": "FRANCE", "type": "A", "loc": "bel", "attacker_from": "yor",
             "attacker_via_convoy": True, "retreat_options": ["pic"]}
        ],
    }  # fmt: skip
    doc["units"] = [u for u in doc["units"] if u["loc"] != "yor"]
    position = position_from_dict(doc, MAP)
    results = [{"power": "FRANCE", "order": "A BEL R PIC", "outcome": "succeeds"}]
    picture = draw_picture(MAP, position, results, "retreats")
    # The dislodged unit's mark: a dashed black square, not a ring.
    assert (
        picture.svg.count('stroke="#111111" stroke-width="2.2" stroke-dasharray="4 2.5"') == 2
    )  # + the key
    x, y = PLACES.dislodged["bel"]
    assert picture.png is not None
    assert near(pixel(picture.png, (x - 5, y + 3)), rgb(POWER_COLOURS["FRANCE"]), 40)


def test_builds_and_removals_are_marked() -> None:
    position = initial_position(MAP)
    winter = position_from_dict(
        {"phase": "W1901A", "units": [], "sc_owners": dict(position.sc_owners)}, MAP
    )
    results = [{"power": "FRANCE", "order": "F BRE B", "outcome": "succeeds"}]
    picture = draw_picture(MAP, winter, results, "builds", png=False)
    assert 'stroke-dasharray="4 3"' in picture.svg  # the new unit's dashed ring


def test_each_province_is_an_svg_element_of_its_own_and_the_graph_view_remains() -> None:
    picture = start_picture()
    svg = ET.fromstring(picture.svg)
    ids = {e.get("id") for e in svg.iter() if (e.get("id") or "").startswith("province-")}
    assert ids == {f"province-{code}" for code in [*MAP.provinces, "swi"]}
    par = next(e for e in svg.iter() if e.get("id") == "province-par")
    assert len(par.get("points", "").split()) > 8  # an outline, not a circle
    graph = draw_picture(MAP, initial_position(MAP), (), "graph", png=False, view="graph")
    assert "province-par" not in graph.svg and "<circle" in graph.svg


def test_every_mark_of_a_province_is_inside_its_outline() -> None:
    """A unit, its dislodged twin and the centre mark sit in their own province: a
    dislodged unit of Portugal was drawn in Gascony."""
    from shapely.geometry import Point, Polygon

    for code, shape in MAP.outlines.items():
        if code not in MAP.provinces:
            continue
        outline = Polygon(shape.points)
        for what, at in (("unit", shape.unit), ("dislodged", PLACES.dislodged[code]),
                         ("centre", PLACES.centres[code])):  # fmt: skip
            assert outline.contains(Point(at)), (code, what, at)
    assert Polygon(MAP.outlines["por"].points).contains(Point(PLACES.dislodged["por"]))
    assert not Polygon(MAP.outlines["gas"].points).contains(Point(PLACES.dislodged["por"]))


def test_a_hold_and_a_dislodged_unit_have_different_shapes() -> None:
    """Austria holds in Vienna and is dislodged in Budapest: the hold is a ring in Austria's
    red, the dislodged unit a dashed black square; no ring in the dislodged mark's colour."""
    position = initial_position(MAP)
    results = [
        {"power": "AUSTRIA", "order": "A VIE H", "outcome": "succeeds"},
        {"power": "AUSTRIA", "order": "A BUD H", "outcome": "dislodged"},
    ]
    svg = draw_picture(MAP, position, results, "holds", png=False, palette="standard").svg
    red = POWER_COLOURS["AUSTRIA"]
    vie = PLACES.unit("vie")
    assert f'<circle cx="{vie[0]:g}" cy="{vie[1]:g}" r="15" fill="none" stroke="{red}"' in svg
    assert svg.count('stroke="#111111" stroke-width="2.2" stroke-dasharray="4 2.5"') == 2  # + key
    for line in svg.splitlines():
        if 'stroke="#111111"' in line:
            assert line.startswith("<polyline"), line


def test_the_colour_blind_palette_is_drawn_when_asked() -> None:
    from mailjudge.render.board.style import PALETTES

    position = initial_position(MAP)
    blind = draw_picture(MAP, position, (), "cb", png=False, palette="colourblind").svg
    plain = draw_picture(MAP, position, (), "std", png=False, palette="standard").svg
    for power, colour in PALETTES["colourblind"].powers.items():
        assert f'fill="{colour}"' in blind, power
        assert f'fill="{colour}"' not in plain, power


def test_the_mailed_pictures_follow_the_judges_palette_setting() -> None:
    """draw_picture without a palette (as the mails call it) takes web.palette."""
    from dataclasses import replace

    from mailjudge.config import settings as judge_settings
    from mailjudge.render.board.style import PALETTES

    kept = judge_settings._CURRENT
    now = judge_settings.current_settings()
    try:
        judge_settings.use_settings(replace(now, web=replace(now.web, palette="colourblind")))
        svg = draw_picture(MAP, initial_position(MAP), (), "mailed", png=False).svg
    finally:
        judge_settings._CURRENT = kept
    assert f'fill="{PALETTES["colourblind"].powers["ITALY"]}"' in svg
    assert f'fill="{PALETTES["standard"].powers["ITALY"]}"' not in svg


def test_outlined_provinces_are_drawn_as_pillow_draws_them_on_the_whole_board() -> None:
    """Wide outlines are drawn on a crop around each polygon (quicker than Pillow's mask
    of the whole image); the pixels are those of Pillow drawing on the whole image, for
    the provinces of a big map and for polygons partly or wholly off the board."""
    from PIL import ImageDraw

    from mailjudge.render.board import draw_board, png
    from mailjudge.render.board.shapes import Polygon

    gmap = load_map("known_world_901")
    scene = draw_board(gmap, initial_position(gmap), [], "t", "map", "standard")
    scene.add(
        Polygon(((-30, -20), (60, 10), (20, 70)), fill="#123456", stroke="#abcdef", width=2),
        Polygon(((-90, -90), (-50, -80), (-60, -40)), fill="#654321", stroke="#fedcba", width=3),
        Polygon(((scene.width - 10, 40), (scene.width + 40, 60), (scene.width, 90)),
                stroke="#000000", width=1.5),
    )  # fmt: skip
    assert sum(isinstance(s, Polygon) and s.stroke and s.width > 0.5 for s in scene.shapes) > 100
    ours = png.canvas(scene)
    whole = Image.new("RGB", ours.size, scene.background)
    draw = ImageDraw.Draw(whole)
    for shape in scene.shapes:
        png._draw(draw, shape)
    assert ours.tobytes() == whole.tobytes()

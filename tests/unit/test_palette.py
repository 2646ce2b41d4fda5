"""The board's colours are told apart: every two land fills (each power's, neutral land,
Switzerland) and the sea, and every two powers' unit colours, are at least 10 apart by
CIEDE2000 in each palette; in the colour-blind palette the powers' colours stay 10 apart
as a deuteranope sees them. The colour measures themselves are checked against published
values (Sharma, Wu and Dalal 2005 for CIEDE2000)."""

from __future__ import annotations

import itertools

import pytest

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.maps import load_map
from mailjudge.render.board.colour import ciede2000, ciede2000_lab, deuteranope
from mailjudge.render.board.spread import MOST, apart, pick
from mailjudge.render.board.style import PALETTES, SPREAD, Palette, colours_for

APART = 10.0


@pytest.mark.parametrize(
    ("one", "two", "expected"),
    [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ],
)
def test_ciede2000_gives_the_published_differences(
    one: tuple[float, float, float], two: tuple[float, float, float], expected: float
) -> None:
    assert ciede2000_lab(one, two) == pytest.approx(expected, abs=1e-4)


def test_the_deuteranopia_simulation_merges_red_and_green() -> None:
    """Pure red and a green of the same lightness look alike to a deuteranope, and grey
    stays grey."""
    assert ciede2000("#ff0000", "#00ff00") > 80
    assert ciede2000(deuteranope("#d0393e"), deuteranope("#7a7a2a")) < 12
    assert deuteranope("#808080") == "#808080"


def fills(palette: Palette) -> dict[str, str]:
    land = {f"{power} land": palette.land_of(colour) for power, colour in palette.powers.items()}
    return {**land, "neutral land": palette.land, "Switzerland": palette.impassable,
            "sea": palette.sea}  # fmt: skip


def closest(colours: dict[str, str], seen_as=lambda c: c) -> tuple[float, str, str]:  # type: ignore[no-untyped-def]
    return min(
        (ciede2000(seen_as(colours[a]), seen_as(colours[b])), a, b)
        for a, b in itertools.combinations(colours, 2)
    )


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_every_two_fills_and_every_two_powers_are_apart(name: str) -> None:
    palette = PALETTES[name]
    assert closest(fills(palette))[0] >= APART, closest(fills(palette))
    assert closest(palette.powers)[0] >= APART, closest(palette.powers)


def test_the_colour_blind_palette_keeps_the_powers_apart_for_deuteranopes() -> None:
    palette = PALETTES["colourblind"]
    nearest = closest(palette.powers, deuteranope)
    assert nearest[0] >= APART, nearest
    # The standard palette does not: Austria's red and Italy's green come close.
    standard = PALETTES["standard"].powers
    assert ciede2000(deuteranope(standard["AUSTRIA"]), deuteranope(standard["ITALY"])) < APART


def test_the_issue_figures_were_too_close_in_the_old_colours() -> None:
    """The pairs the issue measured, in the colours before: under 10, as it says."""
    old_tint = lambda c: Palette({}, "", "", "", 0.72).land_of(c)  # noqa: E731
    assert ciede2000(old_tint("#5b4636"), "#c9c3b3") == pytest.approx(6.1, abs=0.05)
    assert ciede2000(old_tint("#e0a100"), "#f3ead3") == pytest.approx(6.6, abs=0.05)
    assert ciede2000(old_tint("#2a9fd8"), "#a9c8e3") == pytest.approx(8.0, abs=0.05)
    assert ciede2000(old_tint("#3b4cc0"), old_tint("#8d54b8")) == pytest.approx(8.2, abs=0.05)


# Maps with more powers than a palette names take its spread colours (style.SPREAD, up to
# 34 for Chaos). With 34 the plain differences stay over 15; as a deuteranope sees them,
# 34 colours cannot all be 10 apart (red-green is one axis lost), so the colour-blind
# spread keeps both differences over 7, and the legend names each power beside its colour.
SPREAD_APART = {"standard": 15.0, "colourblind": 7.0}


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_the_spread_keeps_34_powers_apart(name: str) -> None:
    colours = SPREAD[name]
    assert len(colours) == len(set(colours)) == MOST == 34
    assert colours[:7] == tuple(PALETTES[name].powers.values())
    blind = name == "colourblind"
    nearest = min(apart(a, b, blind) for a, b in itertools.combinations(colours, 2))
    assert nearest >= SPREAD_APART[name]
    for colour in colours:  # every one stands out on the land and the sea
        for ground in (PALETTES[name].land, PALETTES[name].sea):
            assert ciede2000(colour, ground) >= 12, (colour, ground)


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_the_spread_is_what_the_picking_gives(name: str) -> None:
    assert pick(name) == SPREAD[name]


MAP_NAMES = sorted(
    p.name.removesuffix(".toml") for p in MAPS_DIR.glob("*.toml") if p.name.count(".") == 1
)


@pytest.mark.parametrize("palette", sorted(PALETTES))
@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_every_maps_powers_are_apart_in_both_palettes(map_name: str, palette: str) -> None:
    order = load_map(map_name).power_names
    colours = colours_for(order, PALETTES[palette])
    assert set(colours) == set(order) and len(set(colours.values())) == len(order)
    blind = palette == "colourblind"
    least = APART if len(order) <= 7 else SPREAD_APART[palette]
    for a, b in itertools.combinations(order, 2):
        assert apart(colours[a], colours[b], blind) >= least, (a, b)

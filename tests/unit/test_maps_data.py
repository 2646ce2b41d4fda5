"""Every map in data/maps checked as data: adjacency both ways, coasts that exist, homes that
are centres, starting units at home; the converter reproduces the files from MILA's maps;
and the rules a map carries (builds anywhere, its victory count, powers with no units) are
played by the engine from the data alone."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine import map_convert
from mailjudge.engine.adjustments import build_sites
from mailjudge.engine.maps import WATER, load_map, province_of
from mailjudge.engine.phases import process_phase
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, Phase, Position, initial_position

NAMES = sorted(p.stem for p in MAPS_DIR.glob("*.toml") if "." not in p.stem)

# name: (powers, provinces, centres, victory count)
EXPECTED = {
    "standard": (7, 75, 34, 18),
    "standard_fleet_rome": (7, 75, 34, 18),
    "standard_france_austria": (2, 75, 34, 18),
    "standard_germany_italy": (2, 75, 34, 18),
    "pure": (7, 7, 7, 4),
    "ancmed": (5, 79, 34, 18),
    "modern": (10, 141, 64, 33),
    "colonial": (7, 119, 58, 30),
    "empire": (10, 161, 58, 30),
    "known_world_901": (16, 269, 109, 55),
    "world": (17, 192, 86, 44),
    "chaos": (34, 75, 34, 18),
    "standard_england_turkey": (2, 75, 34, 18),
    "standard_germany_russia": (2, 75, 34, 18),
    "standard_frankland_juggernaut": (2, 75, 34, 18),
    "standard_italy_england_russia": (3, 75, 34, 18),
    "standard_france_germany_austria": (3, 75, 34, 18),
    "standard_build_anywhere": (7, 75, 34, 18),
}
# England-Turkey's English fleets open at sea (vDiplomacy's ClassicEvT): units not at home.
AT_SEA = {"standard_england_turkey": {"F nth", "F eng"}}


def test_every_map_is_listed() -> None:
    assert set(NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
def test_counts(name: str) -> None:
    gmap = load_map(name)
    got = (len(gmap.powers), len(gmap.provinces), len(gmap.centres), gmap.victory_centres)
    assert got == EXPECTED[name]
    assert gmap.victory_centres > len(gmap.centres) // 2


@pytest.mark.parametrize("name", NAMES)
def test_adjacency_is_symmetric_and_sane(name: str) -> None:
    gmap = load_map(name)
    for prov, nbrs in gmap.army_moves.items():
        assert prov not in nbrs
        for n in nbrs:
            assert prov in gmap.army_moves[n], f"A {prov}-{n} one way"
            assert not gmap.is_water(n)
    for loc, nbrs in gmap.fleet_moves.items():
        for n in nbrs:
            assert loc in gmap.fleet_moves[n], f"F {loc}-{n} one way"
            assert province_of(n) != province_of(loc)
    for code, prov in gmap.provinces.items():
        # every province can be entered; a coast (split or not) is reachable by a fleet
        assert gmap.army_moves.get(code) or gmap.fleet_moves.get(code) or prov.coasts, code
        for coast in prov.coasts:
            assert gmap.fleet_moves[f"{code}/{coast}"], f"{code}/{coast} touches no water"
        if prov.kind == WATER:
            assert not prov.centre and not prov.coasts


@pytest.mark.parametrize("name", NAMES)
def test_homes_and_starting_units(name: str) -> None:
    gmap = load_map(name)
    seen: set[str] = set()
    for power in gmap.powers.values():
        assert set(power.homes) <= gmap.centres, power.name
        assert not seen & set(power.homes), f"{power.name} shares a home"
        seen |= set(power.homes)
        for kind, loc in power.units:
            at_home = province_of(loc) in power.homes
            assert at_home or f"{kind} {loc}" in AT_SEA.get(name, ()), f"{power.name} {kind} {loc}"
            assert loc in (gmap.fleet_locations(province_of(loc)) if kind == "F" else [loc])
    initials = [p.initial for p in gmap.powers.values()]
    assert len(set(initials)) == len(initials)
    pos = initial_position(gmap)
    assert len(pos.units) == sum(len(p.units) for p in gmap.powers.values())


@pytest.mark.parametrize("name", sorted(set(NAMES) - {"standard"}))
def test_the_converter_writes_the_same_file(name: str, tmp_path: Path) -> None:
    path = map_convert.write(name, tmp_path)
    assert path.read_text() == (MAPS_DIR / f"{name}.toml").read_text()


def test_converted_standard_is_our_standard() -> None:
    """MILA's standard map, converted, has exactly our hand-written standard map's facts."""
    ours = load_map("standard")
    doc = map_convert.convert("standard")
    assert {c for c, e in doc["provinces"].items() if e.get("centre")} == set(ours.centres)
    edges = {frozenset(e.split("-")) for e in doc["adjacency"]["army"]}
    assert edges == {frozenset((a, b)) for a, nbrs in ours.army_moves.items() for b in nbrs}
    edges = {frozenset(e.split("-")) for e in doc["adjacency"]["fleet"]}
    assert edges == {frozenset((a, b)) for a, nbrs in ours.fleet_moves.items() for b in nbrs}
    for power, info in ours.powers.items():
        assert doc["powers"][power]["home"] == sorted(info.homes)


def test_chaos_is_made_by_rule(tmp_path: Path) -> None:
    path = map_convert.write("chaos", tmp_path)
    assert path.read_text() == (MAPS_DIR / "chaos.toml").read_text()
    with path.open("rb") as fh:
        doc = tomllib.load(fh)
    assert doc["adjacency"] == tomllib.loads((MAPS_DIR / "standard.toml").read_text())["adjacency"]


def test_chaos_opens_with_builds_in_any_owned_centre() -> None:
    chaos = load_map("chaos")
    pos = initial_position(chaos)
    assert pos.phase.type == ADJUSTMENT and not pos.units and len(pos.sc_owners) == 34
    assert chaos.build_any and all(len(h) == 1 for h in chaos.home_centres.values())
    out = process_phase(chaos, pos, {"PARIS": ["A par B"], "LONDON": ["F lon B"]})
    assert {u.power for u in out.after.units.values()} == {"PARIS", "LONDON"}
    assert out.next.phase.type == MOVEMENT and str(out.next.phase) == "S1901M"
    # PARIS, owning Brest too, may build there: a centre that is not its home.
    owned = {**out.after.sc_owners, "bre": "PARIS"}
    winter = Position(Phase("W", 1901, ADJUSTMENT), out.after.units, owned)
    assert build_sites(chaos, winter, "PARIS", False) == ["bre"]
    done = process_phase(chaos, winter, {"PARIS": ["F bre B"]})
    assert done.after.units["bre"].power == "PARIS"
    std = load_map("standard")
    assert build_sites(std, Position(winter.phase, {}, {"bre": "PARIS"}), "PARIS", False) == []


def test_a_two_player_map_leaves_the_others_neutral() -> None:
    gmap = load_map("standard_france_austria")
    pos = initial_position(gmap)
    assert gmap.power_names == ("AUSTRIA", "FRANCE")
    assert sorted(pos.sc_owners.values()).count("FRANCE") == 3
    assert "lon" in gmap.centres and "lon" not in pos.sc_owners


def test_victory_count_comes_from_the_map() -> None:
    pure = load_map("pure")
    pos = initial_position(pure)
    owners = dict.fromkeys(["ber", "con", "lon", "par"], "FRANCE")
    fall = Position(Phase("F", 1901, MOVEMENT), {"par": pos.units["par"]}, owners)
    out = process_phase(pure, fall, {})
    assert out.winners == frozenset({"FRANCE"})


def test_a_dummy_power_is_marked() -> None:
    kw = load_map("known_world_901")
    assert [p.name for p in kw.powers.values() if p.dummy] == ["NEUTRALSTATE"]
    assert not any(p.dummy for p in load_map("standard").powers.values())


def test_a_power_may_have_no_homes_and_no_units(tmp_path: Path) -> None:
    """A power with neither (a power that only ever conquers) reads, owns nothing at the
    start, and builds only where the map lets it build anywhere."""
    text = (MAPS_DIR / "pure.toml").read_text().replace('name = "pure"', 'name = "bare"')
    text = text.replace("[powers.TURKEY]", '[powers.NOMAD]\ninitial = "N"\n\n[powers.TURKEY]')
    (tmp_path / "bare.toml").write_text(text)
    bare = load_map("bare", tmp_path)
    assert bare.home_centres["NOMAD"] == frozenset() and bare.powers["NOMAD"].units == ()
    pos = initial_position(bare)
    assert "NOMAD" not in pos.sc_owners.values()
    winter = Position(Phase("W", 1901, ADJUSTMENT), {}, {"con": "NOMAD"})
    assert build_sites(bare, winter, "NOMAD", False) == []
    assert process_phase(bare, winter, {"NOMAD": ["A con B"]}).after.units == {}
    assert build_sites(bare, winter, "NOMAD", True) == ["con"]


def test_a_dummy_power_never_wins() -> None:
    kw = load_map("known_world_901")
    pos = initial_position(kw)
    neutral = {c: "NEUTRALSTATE" for c in sorted(kw.centres)[:60]}
    fall = Position(Phase("F", 902, MOVEMENT), {}, neutral)
    out = process_phase(kw, fall, {})
    assert out.winners == frozenset() and out.at_count == frozenset()
    spain = {c: "SPAIN" for c in sorted(kw.centres)[:60]}
    assert process_phase(kw, Position(fall.phase, {}, spain), {}).winners == {"SPAIN"}
    assert len(pos.units) > 60


@pytest.mark.parametrize("name", NAMES)
def test_power_titles_are_their_codes_with_spaces(name: str) -> None:
    """A power's name for people, spaces taken out and upper-cased, is the code orders use."""
    gmap = load_map(name)
    for power in gmap.power_names:
        assert gmap.power_title(power).replace(" ", "").upper() == power


def test_several_word_powers_have_their_spaces() -> None:
    assert load_map("empire").power_title("BRITISHCOLUMBIA") == "British Columbia"
    assert load_map("world").power_title("UNITEDSTATES") == "United States"
    assert load_map("chaos").power_title("STPETERSBURG") == "St Petersburg"
    assert load_map("standard").power_title("ENGLAND") == "England"
    several = {
        p for n in NAMES for p in load_map(n).power_names if " " in load_map(n).power_title(p)
    }
    assert len(several) == 10  # each several-word power of every map has its title


def test_the_starts_have_their_rules_facts() -> None:
    """vDiplomacy's starts (README "Maps"): who plays, from where, and what is neutral."""
    evt = initial_position(load_map("standard_england_turkey"))
    assert sorted(str(u) for u in evt.units.values() if u.power == "ENGLAND") == [
        "A LON", "F ENG", "F NTH",
    ]  # fmt: skip
    fj = load_map("standard_frankland_juggernaut")
    assert fj.power_names == ("FRANKLAND", "JUGGERNAUT")
    assert len(fj.home_centres["FRANKLAND"]) == 6 and len(fj.home_centres["JUGGERNAUT"]) == 7
    ier = load_map("standard_italy_england_russia")
    assert "hol" in ier.home_centres["ENGLAND"] and "tri" in ier.home_centres["ITALY"]
    assert initial_position(ier).units["hol"].power == "ENGLAND"
    fga = initial_position(load_map("standard_france_germany_austria"))
    assert len(fga.sc_owners) == 9 and "lon" not in fga.sc_owners
    assert len(initial_position(load_map("standard_germany_russia")).units) == 7


def test_build_anywhere_builds_in_any_owned_centre() -> None:
    anywhere, standard = load_map("standard_build_anywhere"), load_map("standard")
    winter = Position(Phase("W", 1901, ADJUSTMENT), {}, {"bel": "FRANCE", "par": "FRANCE"})
    assert build_sites(anywhere, winter, "FRANCE", False) == ["bel", "par"]
    assert build_sites(standard, winter, "FRANCE", False) == ["par"]
    assert process_phase(anywhere, winter, {"FRANCE": ["A bel B"]}).after.units["bel"]

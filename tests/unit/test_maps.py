"""The map as data: counts, symmetry, and a second map loaded without code."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailjudge.engine.maps import GameMap, MapError, load_map
from mailjudge.engine.state import initial_position

MAP = load_map("standard")


def test_standard_counts() -> None:
    assert len(MAP.provinces) == 75
    assert len(MAP.centres) == 34
    assert {p: len(h) for p, h in MAP.home_centres.items()} == {
        "AUSTRIA": 3,
        "ENGLAND": 3,
        "FRANCE": 3,
        "GERMANY": 3,
        "ITALY": 3,
        "RUSSIA": 4,
        "TURKEY": 3,
    }
    assert {p.code for p in MAP.provinces.values() if p.coasts} == {"spa", "stp", "bul"}
    assert MAP.victory_centres == 18


def test_adjacency_is_symmetric_and_sane() -> None:
    for prov, nbrs in MAP.army_moves.items():
        for n in nbrs:
            assert prov in MAP.army_moves[n]
            assert not MAP.is_water(n)
    for loc, nbrs in MAP.fleet_moves.items():
        for n in nbrs:
            assert loc in MAP.fleet_moves[n]
    assert "spa/nc" in MAP.fleet_moves["gas"] and "spa/sc" not in MAP.fleet_moves["gas"]
    assert "bul/ec" in MAP.fleet_moves["bla"] and "bul/sc" in MAP.fleet_moves["aeg"]
    assert "kie" in MAP.army_moves["ber"] and "kie" in MAP.fleet_moves["hol"]


def test_names_and_aliases() -> None:
    for name, code in [
        ("mid atlantic ocean", "mao"),
        ("nat", "nao"),
        ("gol", "lyo"),
        ("nrg", "nwg"),
        ("st petersburg", "stp"),
        ("holland", "hol"),
        ("munich", "mun"),
    ]:
        assert MAP.names[name] == code


def test_starting_position() -> None:
    pos = initial_position(MAP)
    assert len(pos.units) == 22
    assert pos.units["stp"].loc == "stp/sc"
    assert len(pos.sc_owners) == 22


def test_map_is_immutable() -> None:
    with pytest.raises(AttributeError):
        MAP.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        MAP.provinces["xxx"] = MAP.provinces["par"]  # type: ignore[index]


TINY = """
name = "tiny"
first_phase = "S1901M"
victory_centres = 2
[powers.NORTH]
initial = "N"
home = ["aaa"]
units = ["A aaa"]
[powers.SOUTH]
initial = "S"
home = ["ccc"]
units = ["F ccc"]
[provinces]
aaa = { name = "Alpha", kind = "coast", centre = true }
bbb = { name = "Beta", kind = "land", centre = true, aliases = ["bee"] }
ccc = { name = "Gamma", kind = "coast", centre = true }
sea = { name = "The Sea", kind = "water" }
[adjacency]
army = ["aaa-bbb", "bbb-ccc", "aaa-ccc"]
fleet = ["aaa-sea", "ccc-sea", "aaa-ccc"]
"""


def test_a_second_map_needs_only_a_data_file(tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY)
    tiny = load_map("tiny", tmp_path)
    assert isinstance(tiny, GameMap)
    assert tiny.names["bee"] == "bbb"
    assert tiny.convoy_possible("aaa", "ccc")
    from mailjudge.engine.phases import process_phase

    pos = initial_position(tiny)
    out = process_phase(tiny, pos, {"NORTH": ["A Alpha - Beta"], "SOUTH": ["F ccc - sea"]})
    assert out.after.units["bbb"].power == "NORTH"


def test_bad_map_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(
        TINY.replace('"aaa-bbb"', '"aaa-zzz"').replace("tiny", "bad")
    )
    with pytest.raises(MapError, match="aaa-zzz"):
        load_map("bad", tmp_path)
    with pytest.raises(MapError, match="no map"):
        load_map("nosuchmap", tmp_path)

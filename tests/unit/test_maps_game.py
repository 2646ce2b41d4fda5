"""The map in the game's service, without mail: Double's ring on any map and its refusal,
the numbers of the variants, and the note drawn for a map nobody has drawn yet."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.catalogue import describe, map_names
from mailjudge.engine.interchange import adjudicate, position_to_dict
from mailjudge.engine.maps import GameMap, load_map, parse_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import initial_position
from mailjudge.render.undrawn import picture_of
from mailjudge.variants import VARIANTS
from mailjudge.variants.double import RING, ring_of, ring_refusal, solo_centres
from mailjudge.variants.questions import PlayOn


def standard_doc() -> dict[str, Any]:
    with (MAPS_DIR / "standard.toml").open("rb") as fh:
        return tomllib.load(fh)


def with_powers(*keep: str) -> GameMap:
    """The standard board with only these powers (the others' homes left neutral), and no
    board positions: a map converted but not drawn."""
    doc = standard_doc()
    doc["name"] = "kept"
    doc["powers"] = {p: v for p, v in doc["powers"].items() if p in keep}
    doc.pop("board", None)
    return parse_map(doc)


def test_the_maps_are_the_data_files() -> None:
    names = map_names()
    assert "standard" in names
    assert not any(n.endswith(".outlines") for n in names)
    assert "7 powers (home centres): Austria (3), England (3)" in describe(load_map("standard"))[1]
    assert "34 supply centres; 18 win" in describe(load_map("standard"))[2]


def test_double_keeps_the_seeds_ring_on_the_standard_map() -> None:
    assert ring_of(load_map("standard")) == RING
    assert ring_refusal(load_map("standard")) is None
    assert VARIANTS["double"].phase.victory_count(34) == 14 and solo_centres(34) == 21


def test_double_pairs_another_maps_powers_in_a_ring() -> None:
    three = with_powers("ENGLAND", "FRANCE", "TURKEY")
    ring = ring_of(three)
    assert ring == (("ENGLAND", "FRANCE"), ("FRANCE", "TURKEY"), ("TURKEY", "ENGLAND"))
    held = [p for pair in ring for p in pair]
    assert all(held.count(p) == 2 for p in three.power_names)  # every power two players
    assert ring_refusal(three) is None


def test_double_is_refused_without_a_ring() -> None:
    two = with_powers("FRANCE", "AUSTRIA")
    reason = ring_refusal(two)
    assert reason is not None and "three powers or more" in reason and "has 2" in reason
    assert VARIANTS["double"].people.refusal(PlayOn(two)) == reason
    assert VARIANTS["survive"].people.refusal(PlayOn(two)) is None
    assert VARIANTS["democratic"].people.refusal(PlayOn(two)) is None


def test_the_variants_numbers_follow_the_centres() -> None:
    assert VARIANTS["survive"].phase.victory_count(19) == 20
    assert VARIANTS["diplonomic"].phase.victory_count(19) == 10
    assert VARIANTS["double"].phase.victory_count(17) == 7  # 14 of 34, in proportion


def test_a_map_not_drawn_gets_a_note_not_a_failure() -> None:
    three = with_powers("ENGLAND", "FRANCE", "TURKEY")
    picture = picture_of(three, initial_position(three), title="kept: Spring 1901")
    assert picture.png is None and picture.svg.startswith("<svg")
    assert "has no drawing yet" in picture.svg and "kept: Spring 1901" in picture.svg
    drawn = picture_of(load_map("standard"), initial_position(load_map("standard")), png=False)
    assert "has no drawing yet" not in drawn.svg


def test_the_files_beside_a_map_are_not_maps(tmp_path: Path) -> None:
    for name in ("alpha.toml", "alpha.outlines.toml", "alpha.board.toml", "beta.toml"):
        (tmp_path / name).write_text("")
    assert map_names(tmp_path) == ("alpha", "beta")


def test_mailjudge_adjudicate_plays_a_phase_on_another_map(tmp_path: Path) -> None:
    """The interchange document names its map; the command line plays it there, as the
    engine in this process does, and a map that does not exist is an error, not standard."""
    name = next(
        (n for n in map_names() if n != "standard" and initial_position(load_map(n)).units),
        "standard",
    )
    gmap = load_map(name)
    pos = initial_position(gmap)
    orders = random_orders(gmap, pos, random.Random(5))
    doc = {"map": name, "position": position_to_dict(pos), "orders": orders}
    (tmp_path / "phase.json").write_text(json.dumps(doc))
    cli = [
        str(Path(sys.executable).parent / "mailjudge"),
        "adjudicate",
        str(tmp_path / "phase.json"),
    ]
    run = subprocess.run(cli, capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == json.loads(
        json.dumps(adjudicate(doc["position"], orders, None, name))
    )
    (tmp_path / "phase.json").write_text(json.dumps({**doc, "map": "atlantis"}))
    failed = subprocess.run(cli, capture_output=True, text=True)
    assert failed.returncode != 0 and "atlantis" in failed.stderr + failed.stdout

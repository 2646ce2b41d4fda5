"""Fog of war's sight rule (engine/fog.py, vDiplomacy's): a power sees its units' and its
centres' provinces and their neighbours, everything there and nothing elsewhere; of the
orders, its own and those of units it saw. Cases written from the rule, on the standard
board and on two of the starts."""

from __future__ import annotations

import random

from mailjudge.engine.fog import fogged, neighbours, places_named, seen_results, shown_to, sight
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import Position, initial_position

STANDARD = load_map("standard")


def test_a_fleet_sees_every_coast_of_its_neighbours() -> None:
    assert neighbours(STANDARD, "mao") >= {"spa", "por", "naf", "bre", "gas", "iri", "eng"}
    assert "mar" in neighbours(STANDARD, "spa")  # by land and from the south coast
    assert neighbours(STANDARD, "stp") >= {"bar", "nwy", "bot", "fin", "lvn", "mos"}


def test_the_opening_sight_of_england() -> None:
    pos = initial_position(STANDARD)
    seen = sight(STANDARD, pos, "ENGLAND")
    assert seen >= {"edi", "lon", "lvp", "nth", "eng", "nwg", "iri", "yor", "wal", "cly"}
    assert "bre" not in seen and "par" not in seen and "nwy" not in seen
    view = fogged(STANDARD, pos, "ENGLAND")
    assert {u.power for u in view.units.values()} == {"ENGLAND"}
    assert set(view.sc_owners.values()) == {"ENGLAND"}


def test_a_neighbours_unit_is_seen_with_its_owner() -> None:
    pos = initial_position(STANDARD)
    view = fogged(STANDARD, pos, "GERMANY")  # Kiel, Berlin, Munich: Warsaw is not next door
    assert {p for p, u in view.units.items() if u.power != "GERMANY"} == set()
    austria = fogged(STANDARD, pos, "AUSTRIA")  # Trieste sees Venice; Vienna sees Tyrolia
    assert austria.units["ven"].power == "ITALY"
    assert "rom" not in austria.units and "nap" not in austria.units
    assert austria.sc_owners.get("ven") == "ITALY" and "rom" not in austria.sc_owners


def test_a_centre_still_owned_keeps_its_eyes_a_lost_home_does_not() -> None:
    pos = initial_position(STANDARD)
    lost = Position(pos.phase, {}, {"edi": "ENGLAND", "lon": "FRANCE"})
    assert sight(STANDARD, lost, "ENGLAND") == {"edi", "cly", "lvp", "yor", "nth", "nwg"}
    assert fogged(STANDARD, lost, "ENGLAND").sc_owners == {"edi": "ENGLAND"}


def test_englands_fleets_at_sea_see_the_low_countries() -> None:
    gmap = load_map("standard_england_turkey")
    seen = sight(gmap, initial_position(gmap), "ENGLAND")
    assert {"nwy", "den", "hol", "bel", "hel", "ska", "pic", "bre"} <= seen
    assert "smy" not in seen and "par" not in seen


def test_frankland_sees_from_both_its_countries() -> None:
    gmap = load_map("standard_frankland_juggernaut")
    pos = initial_position(gmap)
    seen = sight(gmap, pos, "FRANKLAND")
    assert {"bre", "par", "mar", "kie", "ber", "mun", "sil", "pru", "pie", "bur"} <= seen
    assert "war" not in seen and "mos" not in seen and "con" not in seen
    assert {u.power for u in fogged(gmap, pos, "FRANKLAND").units.values()} == {"FRANKLAND"}


def test_orders_are_seen_where_their_units_stood() -> None:
    pos = initial_position(STANDARD)
    orders = {"FRANCE": ["A par - bur"], "ITALY": ["A ven - tyr", "A rom - apu"],
              "ENGLAND": ["F lon - eng"]}  # fmt: skip
    done = process_phase(STANDARD, pos, orders)
    seen = sight(STANDARD, pos, "AUSTRIA")
    shown = {r.text for r in seen_results(done.results, "AUSTRIA", seen)}
    assert "A VEN - TYR" in shown  # Venice is next to Trieste and Tyrolia
    assert "A ROM - APU" not in shown and "A PAR - BUR" not in shown
    assert "F LON - ENG" not in shown
    assert any(t.startswith("A VIE") for t in shown)  # its own, defaults included


def test_random_games_never_show_what_is_out_of_sight() -> None:
    """Over random games on two maps, every power's view of every board holds only what
    stands in its sight, and all of it."""
    for name in ("standard", "standard_italy_england_russia"):
        gmap = load_map(name)
        pos, rng = initial_position(gmap), random.Random(5)
        for _ in range(12):
            for power in gmap.power_names:
                seen, view = sight(gmap, pos, power), fogged(gmap, pos, power)
                assert set(view.units) == {p for p in pos.units if p in seen}
                assert set(view.sc_owners) == {c for c in pos.sc_owners if c in seen}
                assert all(pos.units[p] == u for p, u in view.units.items())
            pos = process_phase(gmap, pos, random_orders(gmap, pos, rng)).next


def test_an_order_naming_a_place_out_of_sight_is_not_shown() -> None:
    """England sees the Channel's French fleet but not Picardy: the fleet's convoy of the
    army in Picardy would name it, so England reads none of it; its own orders it reads
    whatever they name."""
    seen = sight(STANDARD, initial_position(STANDARD), "ENGLAND")
    england = frozenset({"ENGLAND"})
    assert "eng" in seen and "pic" not in seen
    assert not shown_to("FRANCE", "F ENG C A PIC - BRE", england, seen)
    assert shown_to("FRANCE", "F ENG - NTH", england, seen)
    assert shown_to("ENGLAND", "F LON S A PIC - BEL", england, seen)
    assert not shown_to("FRANCE", "WAIVE", england, seen)
    assert places_named("A LON - NTH - BEL") == {"lon", "nth", "bel"}
    assert places_named("F STP/SC B") == {"stp"}

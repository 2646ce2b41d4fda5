"""Phase flow: skipping, ownership after Fall, retreats, adjustments, victory, options."""

from __future__ import annotations

from typing import Any

from mailjudge.engine.interchange import adjudicate, position_from_dict
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import EngineOptions, process_phase
from mailjudge.engine.state import initial_position

MAP = load_map("standard")


def units(*specs: str) -> list[dict[str, str]]:
    """'FRANCE A par' -> unit dicts."""
    out = []
    for spec in specs:
        power, utype, loc = spec.split()
        out.append({"power": power, "type": utype, "loc": loc})
    return out


def run(
    phase: str,
    unit_specs: list[str],
    orders: dict[str, list[str]],
    owners: Any = None,
    options: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    position = {"phase": phase, "units": units(*unit_specs), "sc_owners": owners, **extra}
    return adjudicate(position, orders, options)


def test_spring_without_dislodgements_skips_retreats() -> None:
    result = adjudicate(
        {"phase": "S1901M", "units": units("FRANCE A par"), "sc_owners": {}},
        {"FRANCE": ["A PAR - BUR"]},
    )
    assert result["next_phase"] == "F1901M"


def test_dont_skip_phases_plays_empty_phases() -> None:
    opts = {"dont_skip_phases": True}
    result = run("S1901M", ["FRANCE A par"], {}, {}, opts)
    assert result["next_phase"] == "S1901R"
    result = run("F1901R", ["FRANCE A par"], {}, {"par": "FRANCE"}, opts)
    assert result["next_phase"] == "W1901A"
    assert run("F1901R", ["FRANCE A par"], {}, {"par": "FRANCE"})["next_phase"] == "S1902M"


def test_centres_change_owner_only_after_fall() -> None:
    owners = {"par": "FRANCE", "bel": "GERMANY"}
    spring = run("S1901M", ["FRANCE A bur"], {"FRANCE": ["A BUR - BEL"]}, owners)
    assert spring["sc_owners"]["bel"] == "GERMANY"
    fall = run("F1901M", ["FRANCE A bur"], {"FRANCE": ["A BUR - BEL"]}, owners)
    assert fall["sc_owners"]["bel"] == "FRANCE"
    assert fall["next_phase"] == "W1901A"  # France has a build due in Paris


def test_fall_with_a_dislodgement_goes_to_retreats_then_adjustments() -> None:
    result = run(
        "F1901M",
        ["FRANCE A bur", "FRANCE A pic", "GERMANY A bel"],
        {"FRANCE": ["A BUR - BEL", "A PIC S A BUR - BEL"]},
        {"bel": "GERMANY", "par": "FRANCE", "mun": "GERMANY"},
    )
    assert result["next_phase"] == "F1901R"
    (d,) = result["dislodged"]
    assert d["loc"] == "bel" and d["attacker_from"] == "bur"
    assert "bur" not in d["retreat_options"] and "hol" in d["retreat_options"]


def test_two_retreats_to_one_province_both_disband() -> None:
    position = {
        "phase": "S1901R",
        "units": units("ITALY A tri", "ITALY A bud"),
        "dislodged": [
            {"power": "AUSTRIA", "type": "A", "loc": "vie", "attacker_from": "tri"},
            {"power": "RUSSIA", "type": "A", "loc": "gal", "attacker_from": "bud"},
        ],
    }
    position["dislodged"][0]["attacker_from"] = "tyr"
    position["units"] = units("ITALY A vie", "ITALY A gal")
    position["dislodged"][1]["attacker_from"] = "ukr"
    result = adjudicate(position, {"AUSTRIA": ["A VIE R BOH"], "RUSSIA": ["A GAL R BOH"]})
    assert {u["loc"] for u in result["units"]} == {"vie", "gal"}
    assert {r["outcome"] for r in result["results"]} == {"bounces"}


def test_convoyed_attacker_leaves_its_origin_open() -> None:
    result = run(
        "S1901M",
        ["ENGLAND A lon", "ENGLAND F nth", "ENGLAND F eng", "FRANCE A bel"],
        {"ENGLAND": ["A LON - BEL", "F NTH C A LON - BEL", "F ENG S A LON - BEL"]},
        {},
    )
    (d,) = result["dislodged"]
    assert d["attacker_via_convoy"] is True
    assert "lon" not in d["retreat_options"]  # London is not next to Belgium...
    result2 = run(
        "S1901M",
        ["ENGLAND A pic", "ENGLAND F eng", "ENGLAND A bur", "FRANCE A bel"],
        {"ENGLAND": ["A PIC - BEL VIA", "F ENG C A PIC - BEL", "A BUR S A PIC - BEL"]},
        {},
    )
    (d2,) = result2["dislodged"]
    assert "pic" in d2["retreat_options"]  # ...but Picardy is, and the attack came by sea


def test_builds_home_only_unless_build_any() -> None:
    owners = {"par": "FRANCE", "bre": "FRANCE", "mar": "FRANCE", "bel": "FRANCE"}
    result = run("W1901A", ["FRANCE A pic"], {"FRANCE": ["A BEL B", "A PAR B"]}, owners)
    built = {u["loc"] for u in result["units"]}
    assert built == {"pic", "par"}
    assert [r["outcome"] for r in result["results"]] == ["invalid", "succeeds"]
    result = run("W1901A", ["FRANCE A pic"], {"FRANCE": ["A BEL B"]}, owners, {"build_any": True})
    assert {u["loc"] for u in result["units"]} == {"pic", "bel"}


def test_missing_removals_follow_civil_disorder() -> None:
    result = run("W1901A", ["FRANCE A par", "FRANCE A mos"], {}, {"par": "FRANCE"})
    assert {u["loc"] for u in result["units"]} == {"par"}
    (r,) = result["results"]
    assert r["outcome"] == "civil disorder" and r["order"] == "A MOS D" and r["default"]


def test_later_order_replaces_earlier() -> None:
    result = run("S1901M", ["FRANCE A par"], {"FRANCE": ["A PAR - BUR", "A PAR - PIC"]}, {})
    assert {u["loc"] for u in result["units"]} == {"pic"}
    assert ("A PAR - BUR", "replaced") in {(r["order"], r["outcome"]) for r in result["results"]}


def test_unordered_units_hold_by_default() -> None:
    result = run("S1901M", ["FRANCE A par"], {}, {})
    (r,) = result["results"]
    assert r == {"power": "FRANCE", "order": "A PAR H", "outcome": "succeeds", "default": True}


def test_victory_at_eighteen_after_fall() -> None:
    centres = sorted(MAP.centres)
    owners = {c: "FRANCE" for c in centres[:17]}
    target = next(c for c in centres[17:] if MAP.provinces[c].kind != "water")
    near = next(p for p in MAP.army_moves[target] if p not in MAP.centres)
    result = run("F1905M", [f"FRANCE A {near}"], {"FRANCE": [f"A {near} - {target}"]}, owners)
    assert result["winners"] == ["FRANCE"]
    spring = run("S1905M", [f"FRANCE A {near}"], {"FRANCE": [f"A {near} - {target}"]}, owners)
    assert spring["winners"] == []


def test_shared_victory_and_custom_count() -> None:
    owners = {"par": "FRANCE", "mar": "FRANCE", "ber": "GERMANY", "mun": "GERMANY"}
    opts = {"victory_centres": 3, "shared_victory": True}
    result = run(
        "F1901M",
        ["FRANCE A bur", "GERMANY A ruh"],
        {"FRANCE": ["A BUR - BEL"], "GERMANY": ["A RUH - HOL"]},
        owners,
        opts,
    )
    assert result["winners"] == ["FRANCE", "GERMANY"]
    alone = run(
        "F1901M",
        ["FRANCE A bur", "GERMANY A ruh"],
        {"FRANCE": ["A BUR - BEL"], "GERMANY": ["A RUH - HOL"]},
        owners,
        {"victory_centres": 3},
    )
    assert alone["winners"] == []  # a tie at the top without SHARED_VICTORY: play on


def test_a_whole_year_from_the_start() -> None:
    pos = initial_position(MAP)
    out = process_phase(MAP, pos, {"FRANCE": ["A PAR - BUR", "F BRE - MAO", "A MAR - SPA"]})
    assert str(out.next.phase) == "F1901M"
    out = process_phase(MAP, out.next, {"FRANCE": ["F MAO - POR", "A SPA H"]})
    assert str(out.next.phase) == "W1901A"
    assert out.next.sc_owners["por"] == "FRANCE" and out.next.sc_owners["spa"] == "FRANCE"
    out = process_phase(MAP, out.next, {"FRANCE": ["F BRE B", "A MAR B"]}, EngineOptions())
    assert str(out.next.phase) == "S1902M"
    assert out.next.units["bre"].type == "F" and out.next.units["mar"].type == "A"


def test_position_round_trip() -> None:
    position = position_from_dict(
        {"phase": "W1901A", "units": units("RUSSIA F stp/sc"), "sc_owners": {"stp": "RUSSIA"}}, MAP
    )
    assert position.units["stp"].loc == "stp/sc"


def _outcomes(result: dict[str, Any]) -> dict[str, str]:
    return {r["order"]: r["outcome"] for r in result["results"]}


def test_outcome_words() -> None:
    result = run(
        "S1901M",
        [
            "FRANCE A par",
            "FRANCE A gas",
            "GERMANY A mun",
            "GERMANY A ruh",
            "ITALY A pie",
            "ENGLAND F eng",
            "ENGLAND A wal",
            "AUSTRIA A tyr",
        ],
        {
            "FRANCE": ["A PAR - BUR", "A GAS S A PAR - BUR"],
            "GERMANY": ["A MUN - BUR", "A RUH S A MUN - BUR"],
            "ITALY": ["A PIE - MAR"],
            "ENGLAND": ["F ENG C A WAL - PIC", "A WAL - PIC"],
            "AUSTRIA": ["A TYR S A MUN"],
        },
        {},
    )
    assert _outcomes(result) == {
        "A PAR - BUR": "bounces",
        "A GAS S A PAR - BUR": "succeeds",
        "A MUN - BUR": "bounces",
        "A RUH S A MUN - BUR": "succeeds",
        "A PIE - MAR": "succeeds",
        "F ENG C A WAL - PIC": "succeeds",
        "A WAL - PIC": "succeeds",
        "A TYR S A MUN": "void",  # Munich moved, so a support to hold it does nothing
    }
    assert "bur" in result["contested"]


def test_cut_and_dislodged_and_destroyed() -> None:
    result = run(
        "S1901M",
        [
            "FRANCE A par",
            "FRANCE A pic",
            "GERMANY A bur",
            "GERMANY A mun",
            "ENGLAND A bel",
            "ITALY A mar",
            "ITALY A gas",
        ],
        {
            "FRANCE": ["A PAR - BUR", "A PIC S A PAR - BUR"],
            "ENGLAND": ["A BEL - PIC"],
            "GERMANY": ["A MUN S A BUR"],
            "ITALY": ["A MAR S A GAS - BUR", "A GAS - BUR"],
        },
        {},
    )
    outcomes = _outcomes(result)
    assert outcomes["A PIC S A PAR - BUR"] == "cut"
    assert outcomes["A PAR - BUR"] == "bounces"


def test_a_destroyed_unit_is_reported_dislodged() -> None:
    result = run(
        "S1901M",
        ["TURKEY A gre", "TURKEY A bul", "AUSTRIA A alb", "AUSTRIA A ser", "AUSTRIA F ion"],
        {"AUSTRIA": ["A ALB - GRE", "A SER S A ALB - GRE", "F ION H"], "TURKEY": ["A GRE - NAP"]},
        {},
    )
    assert result["destroyed"] == [{"power": "TURKEY", "type": "A", "loc": "gre"}]
    assert _outcomes(result)["A GRE - NAP"] == "dislodged"


def test_convoy_without_a_fleet_is_no_move() -> None:
    result = run("S1901M", ["FRANCE A bre"], {"FRANCE": ["A BRE - LON"]}, {})
    assert _outcomes(result)["A BRE - LON"] == "no convoy"


def test_hold_win_needs_two_falls_in_a_row() -> None:
    owners = {"par": "FRANCE", "mar": "FRANCE", "ber": "GERMANY"}
    args = ("F1901M", ["FRANCE A bur"], {"FRANCE": ["A BUR - BEL"]}, owners)
    first = run(*args, {"victory_centres": 3, "hold_win": True})
    assert first["winners"] == [] and first["at_victory_count"] == ["FRANCE"]
    second = run(*args, {"victory_centres": 3, "hold_win": True, "held_last_year": ["FRANCE"]})
    assert second["winners"] == ["FRANCE"]
    plain = run(*args, {"victory_centres": 3})
    assert plain["winners"] == ["FRANCE"]

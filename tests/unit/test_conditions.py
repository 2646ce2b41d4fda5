"""njudge's conditions (engine/conditions.py): read into a tree, written back in one
canonical form, judged against a board; anything unreadable refused naming the word."""

from __future__ import annotations

import pytest

from mailjudge.engine.conditions import (
    And,
    ConditionError,
    Not,
    Or,
    Owns,
    UnitAt,
    all_of,
    parse_condition,
)
from mailjudge.engine.maps import load_map
from mailjudge.engine.state import Phase, Position, Unit

GMAP = load_map()


def board(*units: Unit, owners: dict[str, str] | None = None) -> Position:
    return Position(Phase.parse("F1901M"), {province(u.loc): u for u in units}, owners or {})


def province(loc: str) -> str:
    return loc.split("/")[0]


def test_precedence_not_then_and_then_or() -> None:
    cond = parse_condition("A Par AND NOT F Bre OR a mun", GMAP)
    assert cond == Or((And((UnitAt("A", "par"), Not(UnitAt("F", "bre")))), UnitAt("A", "mun")))
    assert str(cond) == "A PAR AND NOT F BRE OR A MUN"


def test_parentheses_and_canonical_text_round_trip() -> None:
    for text in (
        "NOT (A PAR OR F BRE)",
        "(A PAR OR F BRE) AND NOT A MAR",
        "RUSSIA A MOS AND FRANCE OWNS BEL",
    ):
        cond = parse_condition(text, GMAP)
        assert str(cond) == text
    # A double NOT (an ELSE inside an IF NOT ...) is written as what it means.
    assert str(parse_condition("NOT NOT A PAR", GMAP)) == "A PAR"


def test_njudges_own_forms_of_a_condition() -> None:
    """As njudge's syntax file writes them: a trailing THEN, the type left out (any unit),
    power, type and province in any order, a power cut to two letters, a province in
    words, and the end of the line closing a parenthesis."""
    forms = {
        "A Par THEN": "A PAR",
        "NOT Fr Bur": "NOT FRANCE BUR",
        "Army French Burgundy": "FRANCE A BUR",
        "NOT French Army Ruhr AND (Russian Prussia OR Russian Silesia)":
            "NOT FRANCE A RUH AND (RUSSIA PRU OR RUSSIA SIL)",
        "F North Sea": "F NTH",
        "(A Bur OR A Pic": "A BUR OR A PIC",
        "Ger Mun": "GERMANY MUN",
    }  # fmt: skip
    for text, canonical in forms.items():
        cond = parse_condition(text, GMAP)
        assert str(cond) == canonical and parse_condition(canonical, GMAP) == cond
        assert parse_condition(str(cond), GMAP) == cond


def test_words_powers_and_coasts() -> None:
    assert parse_condition("Russian Army Moscow", GMAP) == UnitAt("A", "mos", "RUSSIA")
    assert parse_condition("fleet spa/nc", GMAP) == UnitAt("F", "spa")
    assert parse_condition("France owns Belgium", GMAP) == Owns("FRANCE", "bel")


def test_judged_against_the_board() -> None:
    pos = board(Unit("FRANCE", "A", "par"), Unit("FRANCE", "F", "mao"), owners={"bel": "FRANCE"})
    cases = {
        "A PAR": True,
        "F PAR": False,  # an army stands there, not a fleet
        "F BRE": False,
        "A PAR AND NOT F BRE": True,
        "GERMAN A PAR": False,  # a French army
        "FRENCH A PAR": True,
        "F BRE OR F MAO": True,
        "NOT (F BRE OR F MAO)": False,
        "FRANCE OWNS BEL": True,
        "GERMANY OWNS BEL": False,
    }
    for text, expected in cases.items():
        assert parse_condition(text, GMAP).holds(pos) is expected, text


def test_all_of_flattens() -> None:
    a, b, c = UnitAt("A", "par"), UnitAt("F", "bre"), UnitAt("A", "mar")
    assert all_of([And((a, b)), c]) == And((a, b, c))
    assert all_of([a]) == a


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", "there is no condition"),
        ("A XYZ", "'XYZ' is not a province"),
        ("A PAR AND", "ends too soon"),
        ("(A PAR OR (F BRE) X", "parenthesis is not closed"),
        ("A PAR F BRE", "'F' is not AND, OR"),
        ("LIKES", "'LIKES' is not a unit"),
        ("FRANCE LIKES BEL", "'LIKES' is not a unit"),
    ],
)
def test_unreadable_conditions_name_what_failed(text: str, named: str) -> None:
    with pytest.raises(ConditionError) as err:
        parse_condition(text, GMAP)
    assert named in str(err.value) and "NOT, AND, OR" in str(err.value)

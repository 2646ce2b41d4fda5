"""Reading and checking orders: lenient in, canonical out, three clear kinds of error."""

from __future__ import annotations

import random

import pytest

from mailjudge.engine.checker import parse_order
from mailjudge.engine.maps import load_map
from mailjudge.engine.orders import AmbiguousOrder, IllegalOrder, OrderError, UnreadableOrder
from mailjudge.engine.randomplay import play
from mailjudge.engine.reader import _read_fast, _read_general, read_order
from mailjudge.engine.state import Phase, Position, Unit, build_units, initial_position

MAP = load_map("standard")
START = initial_position(MAP)


def pos_with(
    *units: tuple[str, str, str], phase: str = "S1901M", owners: dict[str, str] | None = None
) -> Position:
    return Position(Phase.parse(phase), build_units(Unit(*u) for u in units), owners or {})


def canon(text: str, pos: Position = START, power: str | None = None) -> str:
    return str(parse_order(text, pos, power, MAP))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A PAR H", "A PAR H"),
        ("A PAR HOLD", "A PAR H"),
        ("a par holds", "A PAR H"),
        ("PAR H", "A PAR H"),  # unit type may be left out
        ("A PAR", "A PAR H"),
        ("A PAR - BUR", "A PAR - BUR"),
        ("A Par-Bur", "A PAR - BUR"),
        ("A PAR -> BUR", "A PAR - BUR"),
        ("A PAR TO BUR", "A PAR - BUR"),
        ("A PAR M BUR", "A PAR - BUR"),
        ("Army Paris moves to Burgundy", "A PAR - BUR"),
        ("a paris - burgundy", "A PAR - BUR"),
        ("F BRE - MAO", "F BRE - MAO"),
        ("F brest - mid-atlantic ocean", "F BRE - MAO"),
        ("F BRE - Mid Atlantic", "F BRE - MAO"),
        ("F bre - mid", "F BRE - MAO"),
        ("F bre - english channel", "F BRE - ENG"),
        ("F LON - NORTH SEA", "F LON - NTH"),
        ("A MAR S A PAR - BUR", "A MAR S A PAR - BUR"),
        ("A mar supports A par - bur", "A MAR S A PAR - BUR"),
        ("A MAR SUPPORT PAR - BUR", "A MAR S A PAR - BUR"),
        ("A PAR S F BRE", "A PAR S F BRE"),
        ("A PAR S F BRE H", "A PAR S F BRE"),
        ("A par supports brest", "A PAR S F BRE"),
        ("A VIE - TYROLIA", "A VIE - TYR"),
        ("F Ankara - Black Sea", "F ANK - BLA"),
        ("f st. petersburg (south coast) - bot", "F STP/SC - BOT"),
        ("F STP/SC - GULF OF BOTHNIA", "F STP/SC - BOT"),
        ("A MÜNCHEN - RUHR", "A MUN - RUH"),
        ("A mun-ruh // trailing words are not allowed here", None),
    ],
)
def test_movement_forms(text: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(UnreadableOrder):
            canon(text)
    else:
        assert canon(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "F MAO - SPA/NC",
        "F mao - spa nc",
        "F MAO - SPA(NC)",
        "F mao - spain (north coast)",
        "F MAO - SPA NORTH COAST",
    ],
)
def test_coast_spellings(text: str) -> None:
    pos = pos_with(("FRANCE", "F", "mao"))
    assert canon(text, pos) == "F MAO - SPA/NC"


def test_coast_filled_in_when_only_one_is_reachable() -> None:
    pos = pos_with(("FRANCE", "F", "gas"))
    assert canon("F GAS - SPA", pos) == "F GAS - SPA/NC"


def test_ambiguous_coast_says_which_to_write() -> None:
    pos = pos_with(("FRANCE", "F", "mao"))
    with pytest.raises(AmbiguousOrder) as err:
        canon("F MAO - SPA", pos)
    assert "SPA/NC or SPA/SC" in str(err.value)


def test_urk_check_names_the_word_and_suggests() -> None:
    with pytest.raises(UnreadableOrder) as err:
        canon("A PAR - URK")
    assert "'URK'" in str(err.value) and "Urk check" in str(err.value)
    with pytest.raises(UnreadableOrder) as err:
        canon("A PAR - BURGUNDYY")
    assert "burgundy" in str(err.value)


@pytest.mark.parametrize(
    ("text", "power", "fragment"),
    [
        ("A PAR - MUN", "FRANCE", "cannot reach"),
        ("A BER - BUR", "FRANCE", "belongs to GERMANY"),
        ("A PIC - BUR", "FRANCE", "no unit in Picardy"),
        ("F PAR - BUR", "FRANCE", "is an army"),
        ("F BRE - PAR", "FRANCE", "not adjacent"),
        ("A PAR - ENG", "FRANCE", "water"),
        ("A PAR - PAR", "FRANCE", "province it is in"),
        ("A MAR S A PAR - MUN", "FRANCE", "could not move there"),
        ("A MAR S A MAR", "FRANCE", "support itself"),
        ("F BRE C A PAR - LON", "FRANCE", "only fleets at sea"),
        ("A PAR R BUR", "FRANCE", "retreat phase"),
        ("A PAR B", "FRANCE", "winter adjustment"),
        ("WAIVE", "FRANCE", "adjustment-phase"),
    ],
)
def test_illegal_orders_say_why(text: str, power: str, fragment: str) -> None:
    with pytest.raises(IllegalOrder) as err:
        canon(text, START, power)
    assert fragment in str(err.value)


def test_error_kinds_are_value_errors() -> None:
    for cls in (UnreadableOrder, AmbiguousOrder, IllegalOrder):
        assert issubclass(cls, OrderError) and issubclass(cls, ValueError)
    assert {UnreadableOrder.kind, AmbiguousOrder.kind, IllegalOrder.kind} == {
        "unreadable",
        "ambiguous",
        "illegal",
    }


def test_convoys_and_routes() -> None:
    pos = pos_with(("ENGLAND", "A", "lon"), ("ENGLAND", "F", "eng"), ("ENGLAND", "F", "nth"))
    assert canon("F ENG C A LON - BRE", pos) == "F ENG C A LON - BRE"
    assert canon("F eng convoys lon - bre", pos) == "F ENG C A LON - BRE"
    assert canon("A LON - BRE", pos) == "A LON - BRE"
    assert canon("A LON - BRE VIA", pos) == "A LON - BRE VIA"
    assert canon("A lon - bre via convoy", pos) == "A LON - BRE VIA"
    assert canon("A LON - ENG - BRE", pos) == "A LON - ENG - BRE"
    assert canon("A LON - NTH - ENG - BRE", pos) == "A LON - NTH - ENG - BRE"
    with pytest.raises(IllegalOrder):
        canon("A LON - NTH - BRE", pos)  # the North Sea does not touch Brest
    with pytest.raises(IllegalOrder):
        canon("F ENG C F NTH - BEL", pos)


def test_retreat_phase_reading() -> None:
    pos = initial_position(MAP)
    from mailjudge.engine.interchange import position_from_dict

    doc = {
        "phase": "S1901R",
        "units": [{"power": "GERMANY", "type": "A", "loc": "bur"}],
        "dislodged": [{"power": "FRANCE", "type": "A", "loc": "bur", "attacker_from": "mun"}],
        "sc_owners": None,
    }
    doc["units"] = [{"power": "GERMANY", "type": "A", "loc": "bur"}]
    pos = position_from_dict(
        {
            **doc,
            "units": [{"power": "GERMANY", "type": "A", "loc": "pic"}],
            "dislodged": [{"power": "FRANCE", "type": "A", "loc": "bur", "attacker_from": "mun"}],
        },
        MAP,
    )
    assert canon("A BUR R PAR", pos, "FRANCE") == "A BUR R PAR"
    assert canon("A BUR - PAR", pos, "FRANCE") == "A BUR R PAR"
    assert canon("A BUR D", pos, "FRANCE") == "A BUR D"
    assert canon("DISBAND A BUR", pos, "FRANCE") == "A BUR D"
    with pytest.raises(IllegalOrder) as err:
        canon("A BUR R MUN", pos, "FRANCE")
    assert "may retreat to" in str(err.value)
    with pytest.raises(IllegalOrder):
        canon("A BUR R PIC", pos, "FRANCE")  # occupied


def test_adjustment_reading() -> None:
    pos = pos_with(
        phase="W1901A", owners={"par": "FRANCE", "bre": "FRANCE", "stp": "RUSSIA", "mar": "FRANCE"}
    )
    assert canon("A PAR B", pos, "FRANCE") == "A PAR B"
    assert canon("BUILD A PAR", pos, "FRANCE") == "A PAR B"
    assert canon("build fleet brest", pos, "FRANCE") == "F BRE B"
    assert canon("PAR B", pos, "FRANCE") == "A PAR B"  # inland: only an army fits
    assert canon("F STP/NC B", pos, "RUSSIA") == "F STP/NC B"
    assert canon("WAIVE", pos, "FRANCE") == "WAIVE"
    with pytest.raises(AmbiguousOrder):
        canon("F STP B", pos, "RUSSIA")
    with pytest.raises(AmbiguousOrder):
        canon("BRE B", pos, "FRANCE")
    with pytest.raises(IllegalOrder):
        canon("F PAR B", pos, "FRANCE")
    with pytest.raises(IllegalOrder):
        canon("A MUN B", pos, "FRANCE")
    removal = pos_with(("FRANCE", "A", "par"), phase="W1901A", owners={})
    assert canon("A PAR D", removal, "FRANCE") == "A PAR D"
    assert canon("REMOVE A PAR", removal, "FRANCE") == "A PAR D"
    assert canon("disband par", removal, "FRANCE") == "A PAR D"


def test_no_check_reading_needs_no_position() -> None:
    """Under NO_CHECK only the Urk and name checks run when orders arrive."""
    syntax = read_order("A PAR - MOS", MAP)
    assert str(syntax) == "A PAR - MOS"
    with pytest.raises(UnreadableOrder):
        read_order("A PAR - URK", MAP)


def test_fast_reading_equals_general_reading() -> None:
    """The one-regex path for common orders must read exactly as the general grammar does."""
    seen = 0
    texts = [t for _, orders, _ in play(MAP, 7, 60) for lines in orders.values() for t in lines]
    texts += ["A PAR - BUR VIA", "a par to bur", "A PAR S MAR HOLD", "F ENG C LON - BRE", "par"]
    for text in texts:
        fast = _read_fast(text, MAP)
        if fast is not None:
            seen += 1
            assert fast == _read_general(text, MAP, "movement"), text
    assert seen > len(texts) // 2


def test_random_games_give_only_legal_orders() -> None:
    rng_seed = random.Random(3).randrange(1000)
    for _, _, outcome in play(MAP, rng_seed, 40):
        assert not [r for r in outcome.results if r.outcome == "invalid"]

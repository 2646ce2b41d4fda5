"""Warnings for orders that do not fit together (engine/order_warnings.py), on real boards:
the opening, a convoy across the North Sea and through the Mediterranean, a retreat phase
and a winter of builds and removals. Each case is a set a player might send by mistake,
and beside it the set they meant, which gets no warning."""

from __future__ import annotations

from collections.abc import Sequence

from mailjudge.engine.maps import load_map
from mailjudge.engine.order_warnings import (
    BUILDS_SHORT,
    CONVOY_NOT_MATCHED,
    NO_CONVOY,
    NO_ORDER,
    REMOVALS_SHORT,
    SUPPORT_NOT_MATCHED,
    SUPPORTED_HOLD_MOVES,
    OrderWarning,
    order_warnings,
)
from mailjudge.engine.phases import process_phase
from mailjudge.engine.state import Dislodged, Phase, Position, Unit, build_units, initial_position

MAP = load_map("standard")
START = initial_position(MAP)
FRANCE_REST = ["F BRE H"]  # with the army lines below, every French unit has an order


def warned(
    pos: Position, power: str, texts: Sequence[str], **others: Sequence[str]
) -> list[tuple[str, str]]:
    found = order_warnings(MAP, pos, power, {power: texts, **others})
    return [(w.unit, w.kind) for w in found]


def board(
    phase: str, *units: tuple[str, str, str], owners: dict[str, str] | None = None
) -> Position:
    return Position(Phase.parse(phase), build_units(Unit(*u) for u in units), owners or {})


def test_a_support_of_an_own_move_not_made_is_warned_with_the_order_given() -> None:
    texts = ["A PAR - PIC", "A MAR S A PAR - BUR", *FRANCE_REST]
    found = order_warnings(MAP, START, "FRANCE", {"FRANCE": texts})
    assert found == [
        OrderWarning(
            "A MAR",
            SUPPORT_NOT_MATCHED,
            "A MAR S A PAR - BUR: A PAR is not ordered to move to BUR (it is ordered to PIC), "
            "so the support will not count",
        )
    ]
    assert warned(START, "FRANCE", ["A PAR - BUR", "A MAR S A PAR - BUR", *FRANCE_REST]) == []


def test_a_support_of_an_own_unit_that_holds_or_has_no_order_is_warned() -> None:
    holds = warned(START, "FRANCE", ["A PAR H", "A MAR S A PAR - BUR", *FRANCE_REST])
    assert holds == [("A MAR", SUPPORT_NOT_MATCHED)]
    silent = order_warnings(MAP, START, "FRANCE", {"FRANCE": ["A MAR S A PAR - BUR"]})
    assert "it has no order, so it holds" in silent[0].words
    assert [(w.unit, w.kind) for w in silent] == [
        ("A MAR", SUPPORT_NOT_MATCHED), ("F BRE", NO_ORDER), ("A PAR", NO_ORDER)
    ]  # fmt: skip


def test_a_support_to_hold_of_an_own_unit_that_moves_is_warned() -> None:
    pos = board("S1901M", ("FRANCE", "A", "par"), ("FRANCE", "A", "bur"))
    found = order_warnings(MAP, pos, "FRANCE", {"FRANCE": ["A PAR - PIC", "A BUR S A PAR"]})
    assert found == [
        OrderWarning(
            "A BUR",
            SUPPORTED_HOLD_MOVES,
            "A BUR S A PAR: A PAR is ordered to move (to PIC), so a support to hold will not count",
        )
    ]
    # A unit that holds, supports or convoys stays where it is: a support to hold fits it.
    assert warned(pos, "FRANCE", ["A PAR S A BUR", "A BUR S A PAR"]) == []
    assert warned(pos, "FRANCE", ["A PAR H", "A BUR S A PAR"]) == []


def test_supports_of_another_powers_units_are_never_warned() -> None:
    # Germany's army in Munich may move to Burgundy or not: France cannot know.
    texts = ["A PAR H", "A MAR S A MUN - BUR", *FRANCE_REST]
    assert warned(START, "FRANCE", texts) == []
    assert warned(START, "FRANCE", ["A PAR H", "A MAR H", "F BRE S A PAR"]) == []


def test_a_player_holding_two_powers_is_warned_on_both_sets() -> None:
    # In Double a player orders England and France: a French support of an English army
    # is checked against the English orders the player gave.
    texts = ["A PAR H", "A MAR H", "F BRE S F LON - ENG"]
    england = ["F LON - NTH", "F EDI H", "A LVP H"]
    assert warned(START, "FRANCE", texts, ENGLAND=england) == [("F BRE", SUPPORT_NOT_MATCHED)]
    assert warned(START, "FRANCE", texts) == []  # England someone else's: nothing said


LONDON_TO_NORWAY = board(
    "S1901M",
    ("ENGLAND", "A", "lon"), ("ENGLAND", "F", "nth"), ("ENGLAND", "F", "eng"),
    ("GERMANY", "F", "hel"),
)  # fmt: skip


def test_a_convoy_of_an_own_army_ordered_elsewhere_is_warned() -> None:
    texts = ["A LON - NWY", "F NTH C A LON - BEL", "F ENG H"]
    found = warned(LONDON_TO_NORWAY, "ENGLAND", texts)
    assert ("F NTH", CONVOY_NOT_MATCHED) in found
    matched = ["A LON - NWY", "F NTH C A LON - NWY", "F ENG H"]
    assert warned(LONDON_TO_NORWAY, "ENGLAND", matched) == []


def test_a_convoy_of_an_army_that_holds_is_warned() -> None:
    texts = ["A LON H", "F NTH C A LON - NWY", "F ENG H"]
    found = order_warnings(MAP, LONDON_TO_NORWAY, "ENGLAND", {"ENGLAND": texts})
    assert [(w.unit, w.kind) for w in found] == [("F NTH", CONVOY_NOT_MATCHED)]
    assert "(it is ordered to hold)" in found[0].words
    assert "convoy carries nothing" in found[0].words


def test_an_army_across_water_with_no_fleet_of_ours_convoying_is_warned() -> None:
    texts = ["A LON - NWY", "F NTH H", "F ENG H"]
    found = order_warnings(MAP, LONDON_TO_NORWAY, "ENGLAND", {"ENGLAND": texts})
    assert [(w.unit, w.kind) for w in found] == [("A LON", NO_CONVOY)]
    assert "no fleet of yours is ordered to convoy it" in found[0].words
    # Next door it goes by land: no convoy is needed.
    assert warned(START, "ENGLAND", ["A LVP - YOR", "F LON H", "F EDI H"]) == []


def test_a_convoy_chain_of_ours_with_a_gap_is_warned_and_a_whole_one_is_not() -> None:
    pos = board(
        "S1901M",
        ("FRANCE", "A", "mar"), ("FRANCE", "F", "lyo"), ("FRANCE", "F", "tys"),
        ("ITALY", "F", "ion"),
    )  # fmt: skip
    # Marseilles to Tunis: Lyon then Tyrrhenian; with Lyon alone there is a gap.
    gap = ["A MAR - TUN", "F LYO C A MAR - TUN", "F TYS H"]
    found = order_warnings(MAP, pos, "FRANCE", {"FRANCE": gap})
    assert [(w.unit, w.kind) for w in found] == [("A MAR", NO_CONVOY)]
    assert "(F LYO) do not reach from MAR to TUN" in found[0].words
    whole = ["A MAR - TUN", "F LYO C A MAR - TUN", "F TYS C A MAR - TUN"]
    assert warned(pos, "FRANCE", whole) == []
    # A route written out is the same move: the fleets on it must be ordered to convoy.
    assert warned(pos, "FRANCE", ["A MAR - LYO - TYS - TUN", "F LYO H", "F TYS H"]) == [
        ("A MAR", NO_CONVOY)
    ]


def test_units_without_orders_are_named_with_what_the_judge_does() -> None:
    found = order_warnings(MAP, START, "FRANCE", {"FRANCE": ["A PAR - BUR"]})
    assert [w.words for w in found] == [
        "F BRE has no order: it will hold", "A MAR has no order: it will hold"
    ]  # fmt: skip
    # An order line the checker refuses still names its unit (it is on file under NO_CHECK).
    assert warned(START, "FRANCE", ["A PAR - MOS", "A MAR H", "F BRE H"]) == []


def test_a_dislodged_unit_without_a_retreat_is_disbanded() -> None:
    pos = Position(
        Phase.parse("F1901R"),
        build_units([Unit("GERMANY", "A", "bur"), Unit("FRANCE", "A", "mar")]),
        {},
        {"bur": Dislodged(Unit("FRANCE", "A", "bur"), "mun", False, ("pic", "par"))},
    )
    found = order_warnings(MAP, pos, "FRANCE", {"FRANCE": []})
    assert found == [OrderWarning("A BUR", NO_ORDER, "A BUR has no order: it will be disbanded")]
    assert warned(pos, "FRANCE", ["A BUR R PIC"]) == []
    assert warned(pos, "GERMANY", []) == []  # Germany has nothing to order


def test_a_retreat_phase_from_a_real_adjudication() -> None:
    # Germany dislodges the French army in Burgundy; France is warned until it retreats.
    pos = board(
        "S1901M",
        ("FRANCE", "A", "bur"), ("GERMANY", "A", "mun"), ("GERMANY", "A", "ruh"),
        owners={"par": "FRANCE", "mun": "GERMANY"},
    )  # fmt: skip
    orders = {"GERMANY": ["A MUN - BUR", "A RUH S A MUN - BUR"], "FRANCE": ["A BUR H"]}
    after = process_phase(MAP, pos, orders).next
    assert after.phase == Phase.parse("S1901R")
    assert warned(after, "FRANCE", []) == [("A BUR", NO_ORDER)]
    assert warned(after, "FRANCE", ["A BUR D"]) == []


def test_builds_short_of_what_may_be_built_are_waived() -> None:
    owners = {c: "FRANCE" for c in ("par", "mar", "bre", "spa", "por")}
    pos = board("W1901A", ("FRANCE", "A", "spa"), ("FRANCE", "F", "por"), owners=owners)
    found = order_warnings(MAP, pos, "FRANCE", {"FRANCE": ["A PAR B"]})
    assert found == [
        OrderWarning(
            "",
            BUILDS_SHORT,
            "FRANCE may build 3 and has ordered 1: the other 2 are waived unless you order them",
        )
    ]
    assert warned(pos, "FRANCE", ["A PAR B", "A MAR B", "WAIVE"]) == []
    (none,) = order_warnings(MAP, pos, "FRANCE", {"FRANCE": []})
    assert none.words.endswith("ordered 0: all of them are waived unless you order them")
    # Only the free home centres count: with Paris taken two builds are all there is.
    held = board("W1901A", ("FRANCE", "A", "par"), ("FRANCE", "F", "por"), owners=owners)
    assert warned(held, "FRANCE", ["A MAR B", "F BRE B"]) == []


def test_removals_short_are_chosen_by_the_judge() -> None:
    pos = board(
        "W1901A", ("FRANCE", "A", "par"), ("FRANCE", "A", "bur"), ("FRANCE", "A", "pic"),
        owners={"par": "FRANCE"},
    )  # fmt: skip
    found = order_warnings(MAP, pos, "FRANCE", {"FRANCE": ["A PIC D"]})
    assert [(w.unit, w.kind) for w in found] == [("", REMOVALS_SHORT)]
    assert found[0].words.startswith("FRANCE must remove 2 and has ordered 1: the judge chooses")
    assert warned(pos, "FRANCE", ["A PIC D", "A BUR D"]) == []
    (none,) = order_warnings(MAP, pos, "FRANCE", {"FRANCE": []})
    assert "ordered 0: the judge chooses which by the game's rule" in none.words

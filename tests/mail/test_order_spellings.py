"""Order spellings of the classic judges (njudge, DPjudge) read as they meant them there:
njudge's convoy words, bare adjustment orders, R for remove and W for waive in a build
phase, several orders on one line, and DPjudge's [POWER] before an order."""

from __future__ import annotations

import pytest

from mailjudge.engine.checker import parse_order
from mailjudge.engine.maps import load_map
from mailjudge.engine.orders import IllegalOrder, UnreadableOrder
from mailjudge.engine.reader import power_prefix, read_order, reads_as_order, split_orders
from mailjudge.engine.state import Phase, Position, Unit, build_units, initial_position

MAP = load_map("standard")
START = initial_position(MAP)


def canon(text: str, pos: Position = START, power: str | None = None) -> str:
    return str(parse_order(text, pos, power, MAP))


def winter(*units: tuple[str, str, str], owners: dict[str, str]) -> Position:
    return Position(Phase.parse("W1901A"), build_units(Unit(*u) for u in units), owners)


@pytest.mark.parametrize(
    "text",
    [
        "F NTH T A LON - NWY",
        "F NTH TRANSPORT A LON - NWY",
        "F NTH TRANSPORTS A LON - NWY",
        "F NTH FERRY A LON - NWY",
        "F NTH FAST FERRY A LON - NWY",
        "f nth ferries a lon to nwy",
    ],
)
def test_njudge_convoy_words(text: str) -> None:
    pos = Position(
        Phase.parse("S1901M"),
        build_units([Unit("ENGLAND", "F", "nth"), Unit("ENGLAND", "A", "lon")]),
        {},
    )
    assert canon(text, pos, "ENGLAND") == "F NTH C A LON - NWY"


def test_bare_adjustment_orders_build_or_remove_by_the_counts() -> None:
    owed = winter(owners={"lon": "ENGLAND", "edi": "ENGLAND"})
    assert canon("A Lon", owed, "ENGLAND") == "A LON B"
    assert canon("F Edi", owed, "ENGLAND") == "F EDI B"
    owing = winter(("FRANCE", "F", "tun"), ("FRANCE", "A", "par"), owners={"par": "FRANCE"})
    assert canon("F Tun", owing, "FRANCE") == "F TUN D"
    even = winter(("FRANCE", "A", "par"), owners={"par": "FRANCE"})
    with pytest.raises(IllegalOrder, match="nothing to build or remove"):
        canon("A Par", even, "FRANCE")


def test_r_is_remove_and_w_is_waive_in_a_build_phase() -> None:
    owing = winter(("FRANCE", "F", "tun"), ("FRANCE", "A", "par"), owners={"par": "FRANCE"})
    assert canon("R F Tun", owing, "FRANCE") == "F TUN D"
    assert canon("F Tun R", owing, "FRANCE") == "F TUN D"
    owed = winter(owners={"lon": "ENGLAND"})
    assert canon("w", owed, "ENGLAND") == "WAIVE"
    assert canon("W", owed, "ENGLAND") == "WAIVE"
    # R stays a retreat outside the build phase.
    assert read_order("A PAR R BUR", MAP, "retreat").kind == "retreat"


def test_several_orders_on_one_line() -> None:
    assert split_orders("A PAR - BUR, A MAR S A PAR - BUR; F BRE - MAO", MAP) == [
        "A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO",
    ]  # fmt: skip
    assert split_orders("Thanks, see you next turn.", MAP) == ["Thanks, see you next turn."]
    assert split_orders("A PAR - BUR", MAP) == ["A PAR - BUR"]


def test_dpjudge_power_in_front() -> None:
    assert power_prefix("[ENGLAND] F LON - NTH", MAP) == ("ENGLAND", "F LON - NTH")
    assert power_prefix("[E] F LON - NTH", MAP) == ("ENGLAND", "F LON - NTH")
    assert power_prefix("F LON - NTH", MAP) == (None, "F LON - NTH")
    assert canon("[ENGLAND] F LON - NTH", START, "ENGLAND") == "F LON - NTH"
    assert reads_as_order("[ENGLAND] F LON - NTH", MAP)
    with pytest.raises(UnreadableOrder):
        read_order("[ENGLAND] hello there", MAP)

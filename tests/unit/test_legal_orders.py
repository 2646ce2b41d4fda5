"""The legal orders of a position (engine/legal.py): what each unit may be given, read back
by the judge's own reader and checker, and held against MILA's engine on positions of
seeded random games (tests/helpers/legal_oracle.py says how the two are compared)."""

from __future__ import annotations

import pytest
from helpers.legal_oracle import Tally, mila_after, mila_dislodged, run

from mailjudge.engine.checker import parse_order
from mailjudge.engine.legal import comment_line, convoy_routes, legal_order_texts, legal_orders
from mailjudge.engine.maps import load_map
from mailjudge.engine.orders import Waive
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import play
from mailjudge.engine.state import Dislodged, Phase, Position, Unit, build_units, initial_position

MAP = load_map("standard")


def board(phase: str, *units: str, owners: dict[str, str] | None = None) -> Position:
    """``board("S1901M", "ENGLAND A lon", "ENGLAND F nth")``"""
    found = [Unit(*u.split()) for u in units]
    return Position(Phase.parse(phase), build_units(found), owners or {})


def short(pos: Position, prov: str) -> str:
    return comment_line(legal_orders(MAP, pos)[prov])


def test_opening_army_orders() -> None:
    line = short(initial_position(MAP), "par")
    assert line == (
        "A PAR: H, - BRE, - BUR, - GAS, - PIC, S F BRE, S A MAR - BUR, S A MUN - BUR, "
        "S F BRE - GAS, S A MAR - GAS, S F BRE - PIC"
    )


def test_fleet_on_a_split_coast_moves_from_its_coast_only() -> None:
    assert short(initial_position(MAP), "stp") == (
        "F STP/SC: H, - BOT, - FIN, - LVN, S A MOS - LVN, S A WAR - LVN"
    )


def test_moves_by_convoy_need_fleets_at_sea_and_say_via_only_where_the_army_could_walk() -> None:
    alone = board("S1901M", "ENGLAND A yor")
    assert not any("VIA" in t for t in legal_order_texts(MAP, alone)["yor"])
    pos = board("S1901M", "ENGLAND A yor", "ENGLAND F nth")
    texts = legal_order_texts(MAP, pos)["yor"]
    assert "A YOR - NWY" in texts  # only by convoy: no VIA needed
    assert "A YOR - EDI VIA" in texts and "A YOR - EDI" in texts  # by land or by sea
    assert "F NTH C A YOR - NWY" in legal_order_texts(MAP, pos)["nth"]


def test_a_fleet_on_a_detour_is_offered_no_convoy() -> None:
    # ENG - NTH - NWY holds NTH - NWY: a fleet in ENG adds nothing to LON - NWY.
    pos = board("S1901M", "ENGLAND A lon", "ENGLAND F nth", "ENGLAND F eng")
    assert convoy_routes(MAP, pos)["lon"]["nwy"] == [frozenset({"nth"})]
    assert "F ENG C A LON - NWY" not in legal_order_texts(MAP, pos)["eng"]
    assert "F ENG C A LON - BEL" in legal_order_texts(MAP, pos)["eng"]
    # A longer chain is offered when no shorter one exists: LON - ENG - MAO - POR.
    far = board("S1901M", "ENGLAND A lon", "ENGLAND F eng", "ENGLAND F mao")
    assert "F ENG C A LON - POR" in legal_order_texts(MAP, far)["eng"]
    assert "A LON - POR" in legal_order_texts(MAP, far)["lon"]


def test_a_fleet_cannot_support_the_move_it_must_convoy() -> None:
    pos = board("S1901M", "ENGLAND A lon", "ENGLAND F nth", "FRANCE A bel")
    assert "F NTH S A LON - BEL" not in legal_order_texts(MAP, pos)["nth"]
    helped = board("S1901M", "ENGLAND A lon", "ENGLAND F nth", "ENGLAND F eng")
    assert "F NTH S A LON - BEL" in legal_order_texts(MAP, helped)["nth"]  # ENG convoys


def test_support_names_the_province_not_the_coast() -> None:
    pos = board("S1901M", "FRANCE F mao", "FRANCE A gas", "ENGLAND F lyo")
    assert "A GAS S F MAO - SPA" in legal_order_texts(MAP, pos)["gas"]
    assert not any("SPA/" in t for t in legal_order_texts(MAP, pos)["gas"] if " S " in t)


def test_retreats_and_disband() -> None:
    unit = Unit("FRANCE", "F", "bre")
    pos = Position(
        Phase.parse("F1901R"),
        build_units([Unit("ENGLAND", "F", "bre")]),
        {},
        {"bre": Dislodged(unit, "eng", False, ("gas", "pic"))},
    )
    assert legal_order_texts(MAP, pos) == {"bre": ["F BRE R GAS", "F BRE R PIC", "F BRE D"]}
    assert legal_orders(MAP, pos, "ENGLAND") == {}


def test_builds_on_each_coast_and_waive() -> None:
    owners = {"stp": "RUSSIA", "mos": "RUSSIA", "sev": "RUSSIA", "war": "RUSSIA", "nwy": "RUSSIA"}
    pos = board("W1901A", "RUSSIA A war", "RUSSIA A nwy", owners=owners)
    found = legal_order_texts(MAP, pos)
    assert found["stp"] == ["A STP B", "F STP/NC B", "F STP/SC B", "WAIVE"]
    assert found["mos"] == ["A MOS B", "WAIVE"]
    assert "war" not in found and "nwy" not in found  # occupied; not a home centre
    assert short(pos, "stp") == "STP: A STP B, F STP/NC B, F STP/SC B, WAIVE"
    assert all(isinstance(o[-1], Waive) for o in legal_orders(MAP, pos).values())


def test_removals_of_a_power_over_its_count() -> None:
    pos = board("W1901A", "TURKEY A con", "TURKEY F bla", owners={"con": "TURKEY"})
    assert legal_order_texts(MAP, pos) == {"bla": ["F BLA D"], "con": ["A CON D"]}
    assert legal_orders(MAP, pos, "FRANCE") == {}


def test_one_powers_orders() -> None:
    start = initial_position(MAP)
    mine = legal_orders(MAP, start, "ITALY")
    assert sorted(mine) == ["nap", "rom", "ven"]


def test_every_order_reads_back_to_itself() -> None:
    """Each order's text, read and checked by the judge, is accepted as that same order."""
    checked = 0
    for seed in (11, 12):
        for pos, _, _ in play(MAP, seed, 60):
            for orders in legal_orders(MAP, pos).values():
                for order in orders:
                    power = order.power if isinstance(order, Waive) else order.unit.power
                    text = str(order)
                    assert parse_order(text, pos, power, MAP) == order, text
                    checked += 1
    assert checked > 20_000


def test_the_one_adjudication_mila_makes_otherwise() -> None:
    """MILA voids a support of a move against the supporter's own unit; the judge counts it
    in the defend strength of a head-to-head battle (DATC 6.E.3, 6.E.12, section 5). The
    oracle leaves out the retreat phase after such a movement phase (and only then)."""
    pos = board(
        "S1901M", "TURKEY A ser", "TURKEY A ven", "TURKEY A bul", "AUSTRIA A tri", "AUSTRIA F alb"
    )
    orders = {
        "TURKEY": ["A SER - TRI", "A VEN S A SER - TRI", "A BUL S A TRI - SER"],
        "AUSTRIA": ["A TRI - SER", "F ALB S A SER - TRI"],
    }
    # SER - TRI: 1 + VEN (ALB is Austrian: it cannot dislodge A TRI) = 2, against the
    # defend strength of TRI - SER: 1 + BUL = 2. Both bounce; nobody is dislodged.
    assert process_phase(MAP, pos, orders).next.dislodged == {}
    assert mila_dislodged(mila_after(MAP, pos, orders)) == {"A TRI"}


def _agree(seeds: range, phases: int, at_least: int) -> Tally:
    tally = Tally()
    differences = run(MAP, seeds, phases, tally)
    assert differences == [], "\n".join(str(d) for d in differences[:20])
    assert tally.positions >= at_least
    return tally


def test_agrees_with_mila_on_random_games() -> None:
    """A short run (about 300 positions); the long one is the soak test below."""
    _agree(range(1, 5), 80, at_least=300)


@pytest.mark.soak
def test_agrees_with_mila_on_thousands_of_positions() -> None:
    """Issue 34: every unit of at least 5,000 positions (`pytest -m soak -k mila -s`)."""
    tally = _agree(range(1, 71), 80, at_least=5_000)
    print(f"\nlegal orders agree with MILA: {tally}")


def test_the_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from mailjudge.benchmarks.legal import main

    assert main(["--games", "1", "--tries", "1", "--from-year", "1903", "--to-year", "1903"]) == 0
    shown = capsys.readouterr().out
    assert "all legal orders of a movement phase: median" in shown and "worst" in shown

"""The stand-in as a caretaker (engine/standin.py, issue 35 point 2; STANDIN_CARETAKER since
issue 55): it orders a silent power as a cautious player would, only legally, and the same
way every time. The playing stand-in: tests/unit/test_standin_play.py."""

from __future__ import annotations

import random
from functools import partial

from helpers.boards import position

from mailjudge.engine import standin
from mailjudge.engine.checker import check_order
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.legal import legal_order_texts
from mailjudge.engine.maps import load_map, province_of
from mailjudge.engine.orders import Build, Remove, Waive
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.reader import read_order
from mailjudge.engine.standin import CARETAKER, rng_for
from mailjudge.engine.state import Dislodged, Position, Unit, initial_position

GMAP = load_map("standard")
standin_texts = partial(standin.standin_texts, mode=CARETAKER)
standin_orders = partial(standin.standin_orders, mode=CARETAKER)


def board(phase: str, units: list[str], owners: dict[str, str]) -> Position:
    return position_from_dict(position(phase, units, owners), GMAP)


def own(power: str, *centres: str) -> dict[str, str]:
    return {c: power for c in centres}


def positions(games: int, phases: int) -> list[Position]:
    """Positions of seeded random games: every kind of phase, crowded boards."""
    found = []
    for seed in range(games):
        rng = random.Random(seed)
        pos = initial_position(GMAP)
        for _ in range(phases):
            found.append(pos)
            outcome = process_phase(GMAP, pos, random_orders(GMAP, pos, rng))
            if outcome.winners:
                break
            pos = outcome.next
    return found


def test_same_position_same_seed_same_orders() -> None:
    for pos in positions(3, 20):
        first = standin_texts(GMAP, pos, GMAP.power_names, "mygame")
        assert standin_texts(GMAP, pos, GMAP.power_names, "mygame") == first
        # One power's orders do not depend on which others are asked for with it.
        for power in first:
            assert standin_texts(GMAP, pos, [power], "mygame") == {power: first[power]}
    # The draw is public: the game's name, the phase and the power, nothing else.
    assert rng_for("mygame", "S1901M", "FRANCE").random() == (
        rng_for("mygame", "S1901M", "FRANCE").random()
    )
    assert rng_for("mygame", "S1901M", "FRANCE").random() != (
        rng_for("mygame", "F1901M", "FRANCE").random()
    )


def test_every_order_is_legal_and_reads_back_through_the_judges_reader() -> None:
    """Every order, as text, reads back (reader, then checker) to the same order, is among
    the unit's legal orders (engine/legal.py), and no unit gets two."""
    seen = set()
    for pos in positions(8, 40):
        legal = legal_order_texts(GMAP, pos)
        for power, orders in standin_orders(GMAP, pos, GMAP.power_names, "legal").items():
            places = []
            for order in orders:
                text = str(order)
                again = check_order(read_order(text, GMAP, pos.phase.type), pos, power, GMAP)
                assert again == order, (pos.phase, power, text)
                assert not isinstance(order, Waive)
                place = province_of(order.unit.loc)
                assert text in legal[place], (pos.phase, power, text)
                places.append(place)
                seen.add(type(order).__name__)
            assert len(places) == len(set(places)), (pos.phase, power, orders)
    assert {"Hold", "Move", "SupportHold", "Retreat", "Build", "Remove"} <= seen


def test_holds_and_supports_a_threatened_centre() -> None:
    pos = board(
        "F1901M",
        ["FRANCE A par", "FRANCE A pic", "FRANCE F bre", "GERMANY A bur"],
        own("FRANCE", "par", "bre", "mar") | own("GERMANY", "mun", "ber", "kie"),
    )
    orders = standin_texts(GMAP, pos, ["FRANCE"], "g")["FRANCE"]
    assert "A PAR H" in orders
    assert "A PIC S A PAR" in orders or "F BRE S A PAR" in orders
    # Never an attack on the German army.
    assert not any(o.endswith("- BUR") for o in orders)


def test_covers_an_empty_threatened_centre() -> None:
    pos = board(
        "F1901M",
        ["FRANCE A gas", "ITALY A pie"],
        own("FRANCE", "par", "bre", "mar") | own("ITALY", "rom", "ven", "nap"),
    )
    assert standin_texts(GMAP, pos, ["FRANCE"], "g")["FRANCE"] == ["A GAS - MAR"]


def test_takes_an_uncontested_neutral_centre_and_leaves_a_contested_one() -> None:
    owners = own("FRANCE", "par", "bre", "mar")
    free = board("F1901M", ["FRANCE A gas"], owners)
    assert standin_texts(GMAP, free, ["FRANCE"], "g")["FRANCE"] == ["A GAS - SPA"]
    # A unit that could be taken from it stays on a centre it does not own yet.
    sitting = board("S1902M", ["FRANCE A spa", "ENGLAND F mao"], owners)
    assert standin_texts(GMAP, sitting, ["FRANCE"], "g")["FRANCE"] == ["A SPA H"]
    # A neutral centre an English fleet could enter is not "taken" by step 4: the French
    # army next to it and to Portugal goes for the free one.
    contested = board("F1901M", ["FRANCE A spa", "ENGLAND F mao"], owners)
    assert standin_texts(GMAP, contested, ["FRANCE"], "g")["FRANCE"] == ["A SPA H"]
    por = board("F1901M", ["FRANCE A spa", "ENGLAND F nth"], owners | {"spa": "FRANCE"})
    assert standin_texts(GMAP, por, ["FRANCE"], "g")["FRANCE"] == ["A SPA - POR"]


def test_retreats_toward_home() -> None:
    pos = board("F1901M", [], own("FRANCE", "par", "bre", "mar"))
    army = Unit("FRANCE", "A", "bur")
    home = Position(
        pos.phase._replace(type="retreat"),
        {},
        pos.sc_owners,
        {"bur": Dislodged(army, "mun", False, ("gas", "par", "ruh"))},
    )
    assert standin_texts(GMAP, home, ["FRANCE"], "g") == {"FRANCE": ["A BUR R PAR"]}
    nearer = home.__class__(
        home.phase, {}, home.sc_owners, {"bur": Dislodged(army, "mun", False, ("ruh", "gas"))}
    )
    assert standin_texts(GMAP, nearer, ["FRANCE"], "g") == {"FRANCE": ["A BUR R GAS"]}
    nowhere = home.__class__(
        home.phase, {}, home.sc_owners, {"bur": Dislodged(army, "mun", False, ())}
    )
    assert standin_texts(GMAP, nowhere, ["FRANCE"], "g") == {"FRANCE": ["A BUR D"]}


def test_builds_fleets_where_the_sea_is_the_way_and_armies_inland() -> None:
    england = board(
        "W1901A", ["ENGLAND F nwy", "ENGLAND A yor"], own("ENGLAND", "edi", "lon", "lvp", "nwy")
    )
    assert standin_texts(GMAP, england, ["ENGLAND"], "g") == {"ENGLAND": ["F EDI B", "F LON B"]}
    austria = board(
        "W1901A",
        ["AUSTRIA A ser", "AUSTRIA A gre", "AUSTRIA F alb"],
        own("AUSTRIA", "vie", "bud", "tri", "ser", "gre"),
    )
    # Trieste is on the coast, but the centres to gain are nearer by land: armies.
    built = standin_orders(GMAP, austria, ["AUSTRIA"], "g")["AUSTRIA"]
    assert built == [Build(Unit("AUSTRIA", "A", "bud")), Build(Unit("AUSTRIA", "A", "tri"))]
    # A home centre a foreign army could enter is built in first.
    threatened = austria.__class__(
        austria.phase,
        {**austria.units, "gal": Unit("RUSSIA", "A", "gal")},
        austria.sc_owners,
    )
    built = standin_orders(GMAP, threatened, ["AUSTRIA"], "g")["AUSTRIA"]
    assert [province_of(o.unit.loc) for o in built if isinstance(o, Build)] == ["bud", "vie"]


def test_removes_the_units_farthest_from_home() -> None:
    pos = board(
        "W1901A",
        ["FRANCE A par", "FRANCE A mar", "FRANCE A bur", "FRANCE A mos"],
        own("FRANCE", "par", "bre", "mar"),
    )
    assert standin_orders(GMAP, pos, ["FRANCE"], "g") == {
        "FRANCE": [Remove(Unit("FRANCE", "A", "mos"))]
    }


def test_a_power_with_nothing_to_order_gets_nothing() -> None:
    pos = board("S1902M", ["FRANCE A par"], own("FRANCE", "par"))
    assert standin_texts(GMAP, pos, ["GERMANY"], "g") == {}

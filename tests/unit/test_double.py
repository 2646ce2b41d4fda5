"""Double Diplomacy: the ring of seats, per-unit synchronisation (the seed's two examples
and the retreat and adjustment rules), the Lytton adjustments, and the ways to win."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from helpers.joining import execute_confirming

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.run import execute
from mailjudge.engine.checker import parse_order
from mailjudge.engine.maps import load_map
from mailjudge.engine.state import initial_position
from mailjudge.game.errors import NotAllowed
from mailjudge.game.state import get_game
from mailjudge.service import draws, processing
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import join
from mailjudge.store.models import Game, OrderLine, PhaseRecord, Seat
from mailjudge.variants import double
from mailjudge.variants.double.sync import PartnerOrders, sync_adjustments, sync_units

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"
GMAP = load_map("standard")
START = initial_position(GMAP)


def partner(name: str, power: str, lines: list[str]) -> PartnerOrders:
    orders = [parse_order(line, START, power, GMAP) for line in lines]
    return PartnerOrders(name, {o.unit.province: o for o in orders}, None, tuple(orders))


def units_of(power: str) -> list:
    return [u for _, u in sorted(START.units.items()) if u.power == power]


def test_seed_example_one_england_out_of_sync_fleet_holds() -> None:
    one = partner("player1", "ENGLAND", ["A Lvp to Yor", "F Edi to Nwg", "F Lon to Nth"])
    seven = partner("player7", "ENGLAND", ["A Lvp to Yor", "F Edi to Nwg", "F Lon to ENG"])
    synced = sync_units(one, seven, units_of("ENGLAND"), lytton=False)
    assert sorted(map(str, synced.orders)) == ["A LVP - YOR", "F EDI - NWG", "F LON H"]
    (mismatch,) = synced.mismatches
    assert mismatch.unit == "F LON" and mismatch.result == "F LON H"
    assert mismatch.ordered == (("player1", "F LON - NTH"), ("player7", "F LON - ENG"))


def test_seed_example_two_france_support_overrules_hold_but_move_does_not() -> None:
    # The seed's France (A Pic, F MAO, A Spa) on a board of its own.
    from mailjudge.engine.state import Position, Unit

    units = {
        "pic": Unit("FRANCE", "A", "pic"), "mao": Unit("FRANCE", "F", "mao"),
        "spa": Unit("FRANCE", "A", "spa"), "nth": Unit("ENGLAND", "F", "nth"),
    }  # fmt: skip
    pos = Position(START.phase, units, dict(START.sc_owners))

    def orders(name: str, lines: list[str]) -> PartnerOrders:
        parsed = [parse_order(line, pos, "FRANCE", GMAP) for line in lines]
        return PartnerOrders(name, {o.unit.province: o for o in parsed}, None, tuple(parsed))

    five = orders("player5", ["A Pic hold", "F MAO to Por", "A Spa to Mar"])
    six = orders("player6", ["A Pic supports (E) F Nth - Bel", "F MAO to Por", "A Spa hold"])
    france = [u for _, u in sorted(units.items()) if u.power == "FRANCE"]
    synced = sync_units(five, six, france, lytton=False)
    assert sorted(map(str, synced.orders)) == ["A PIC S F NTH - BEL", "A SPA H", "F MAO - POR"]
    assert {m.unit for m in synced.mismatches} == {"A PIC", "A SPA"}


def test_a_written_hold_and_no_order_are_in_sync() -> None:
    a = partner("a", "ENGLAND", ["F LON H"])
    b = partner("b", "ENGLAND", [])
    assert sync_units(a, b, units_of("ENGLAND"), lytton=False).mismatches == []


def test_lytton_takes_the_partners_order_for_a_unit_left_without_one() -> None:
    a = partner("a", "ENGLAND", ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"])
    b = partner("b", "ENGLAND", [])  # an NMR, or orders the judge could not accept
    plain = sync_units(a, b, units_of("ENGLAND"), lytton=False)
    assert sorted(map(str, plain.orders)) == ["A LVP H", "F EDI H", "F LON H"]
    lytton = sync_units(a, b, units_of("ENGLAND"), lytton=True)
    assert sorted(map(str, lytton.orders)) == ["A LVP - YOR", "F EDI - NWG", "F LON - NTH"]


def test_lytton_override_stands_against_the_partners_order() -> None:
    a = partner("a", "ENGLAND", ["F LON - NTH"])
    b = partner("b", "ENGLAND", ["F LON - ENG"])
    b = PartnerOrders(b.player, b.orders, "lon", b.adjustments)
    synced = sync_units(a, b, units_of("ENGLAND"), lytton=True)
    assert "F LON - ENG" in map(str, synced.orders)


def test_out_of_sync_retreats_disband_and_builds_are_waived() -> None:
    from mailjudge.engine.state import Dislodged, Phase, Position, Unit

    fleet = Unit("ENGLAND", "F", "nth")
    pos = Position(Phase.parse("S1902R"), {}, dict(START.sc_owners),
                   {"nth": Dislodged(fleet, "hol", False, ("nwg", "edi"))})  # fmt: skip
    a = PartnerOrders("a", {"nth": parse_order("F NTH R NWG", pos, "ENGLAND", GMAP)})
    b = PartnerOrders("b", {"nth": parse_order("F NTH R EDI", pos, "ENGLAND", GMAP)})
    synced = sync_units(a, b, [fleet], lytton=False, retreat=True)
    assert list(map(str, synced.orders)) == ["F NTH D"]
    winter = Position(Phase.parse("W1901A"), {}, dict(START.sc_owners))
    build = [parse_order(x, winter, "ENGLAND", GMAP) for x in ("F LON B", "A EDI B")]
    other = [parse_order(x, winter, "ENGLAND", GMAP) for x in ("F LON B", "F EDI B")]
    synced = sync_adjustments(PartnerOrders("a", adjustments=tuple(build)),
                              PartnerOrders("b", adjustments=tuple(other)), lytton=False)  # fmt: skip
    assert list(map(str, synced.orders)) == ["F LON B"]
    assert sorted(m.unit for m in synced.mismatches) == ["A EDI B", "F EDI B"]


# Through the service and the command language.


def double_game(name: str = "twin", rules: str = "", seed: int = 5) -> dict[str, Seat]:
    create_game(name, "gm@example.org", "secret", variant="double", rules=rules)
    game = get_game(name)
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", name=f"p{i}", rng=random.Random(seed))
    return {s.name: s for s in double.ring_seats(get_game(name))}


def test_seven_players_sit_in_the_ring_at_random() -> None:
    seats = double_game()
    assert sorted(seats) == sorted(double.seat_name(pair) for pair in double.RING)
    held: dict[str, int] = {}
    for seat in seats.values():
        assert len(seat.powers) == 2 and seat.person is not None
        for power in seat.powers:
            held[power] = held.get(power, 0) + 1
    assert set(held.values()) == {2} and len(held) == 7
    assert get_game("twin").victory_count == 14
    other = double_game("twin2", seed=6)
    assert {n: s.person.email for n, s in seats.items()} != {
        n: s.person.email for n, s in other.items()
    }


def send(text: str, sender: str) -> list[str]:
    ctx = execute_confirming(text, sender, JUDGE, NOW)
    return [line for a in ctx.answers for line in a.lines]


def test_partners_file_orders_apart_and_are_synchronised_at_processing() -> None:
    seats = double_game()
    game = get_game("twin")
    a, b = seats["england-turkey"], seats["austria-england"]
    submit_orders(game, a, "ENGLAND", ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"])
    submit_orders(game, b, "ENGLAND", ["F LON - ENG", "F EDI - NWG", "A LVP - YOR"])
    lines = OrderLine.select().where(OrderLine.power == "ENGLAND")
    assert len(list(lines)) == 6  # each partner's set is kept
    # STATUS shows a player only their own orders unless DOUBLE_SHOW_PARTNER.
    status = send(f"SIGNON england-turkey@twin pw{a.person.email[1]}\nSTATUS", a.person.email)
    assert "F LON - NTH" in "\n".join(status) and "F LON - ENG" not in "\n".join(status)
    waiting = processing.readiness(game, NOW).waiting_for
    assert "TURKEY (england-turkey)" in waiting and "ENGLAND (england-turkey)" not in waiting
    done = processing.process(game, force=True, now=NOW)
    assert done is not None
    england = {r["order"]: r["outcome"] for r in done.results if r["power"] == "ENGLAND"}
    assert "F LON H" in england and "F EDI - NWG" in england
    reports = [m for m in done.notices if "out of sync" in m.subject and "ENGLAND" in m.subject]
    assert sorted(m.to[0] for m in reports) == sorted([a.person.email, b.person.email])
    assert "F LON - NTH" in reports[0].body and "F LON - ENG" in reports[0].body


def test_show_partner_rule_lets_status_show_the_partners_orders() -> None:
    seats = double_game(rules="+DOUBLE_SHOW_PARTNER")
    game = get_game("twin")
    a, b = seats["england-turkey"], seats["austria-england"]
    submit_orders(game, b, "ENGLAND", ["F LON - ENG"])
    status = send(f"SIGNON england-turkey@twin pw{a.person.email[1]}\nSTATUS", a.person.email)
    assert "F LON - ENG" in "\n".join(status) and "austria-england" in "\n".join(status)


def test_lytton_partner_stands_in_at_the_deadline() -> None:
    seats = double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    for seat in seats.values():  # one player of each power orders; the other is silent
        power = seat.powers[0]
        units = [str(u) for u in START.units.values() if u.power == power]
        submit_orders(game, seat, power, [f"{u} H" for u in units])
    assert not processing.readiness(game, NOW).ready
    late = game.deadline + timedelta(minutes=1)
    assert processing.readiness(game, late).ready


def test_override_once_every_two_game_years() -> None:
    seats = double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    a = seats["england-turkey"]
    assert "OVERRIDE" in double.override(game, a, "ENGLAND", "F LON - NTH")
    assert "F LON - ENG" in double.override(game, a, "ENGLAND", "F LON - ENG")  # replaces
    submit_orders(game, seats["austria-england"], "ENGLAND", ["F LON - NTH"])
    done = processing.process(game, force=True, now=NOW)
    assert done is not None
    assert any(r["order"] == "F LON - ENG" for r in done.results)
    game = get_game("twin")
    with pytest.raises(NotAllowed, match="1901-1902"):
        double.override(game, a, "ENGLAND", "F ENG - MAO")
    without = double_game("plain")
    with pytest.raises(NotAllowed, match="DOUBLE_LYTTON"):
        double.override(get_game("plain"), without["england-turkey"], "ENGLAND", "F LON H")


def _fall_with_centres(game: Game, owners: dict[str, str]) -> None:
    """Put the game in F1901M with these owners, every unit gone but one far away."""
    pos = dict(game.position)
    pos["phase"], pos["phase_type"], pos["sc_owners"] = "F1901M", "movement", owners
    pos["dislodged"] = []
    pos["units"] = [{"power": "RUSSIA", "type": "A", "loc": "ukr"}]
    game.position, game.phase = pos, "F1901M"
    game.save()


def owners_with(counts: dict[str, int]) -> dict[str, str]:
    centres = sorted(GMAP.centres)
    owners: dict[str, str] = {}
    for power, n in counts.items():
        for _ in range(n):
            owners[centres.pop(0)] = power
    return owners


def test_a_power_at_fourteen_is_a_joint_win_for_its_two_players() -> None:
    double_game()
    game = get_game("twin")
    _fall_with_centres(game, owners_with({"ITALY": 14, "FRANCE": 10}))
    processing.process(game, force=True, now=NOW)
    game = get_game("twin")
    assert game.state == "finished"
    assert game.outcome == "JOINT WIN ITALY (germany-italy and italy-russia)"


def test_a_lytton_solo_at_21_outranks_a_joint_win() -> None:
    double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    # Italy has 14 (a joint win), but germany-italy holds 14 + 8 = 22 alone.
    _fall_with_centres(game, owners_with({"ITALY": 14, "GERMANY": 8}))
    processing.process(game, force=True, now=NOW)
    assert get_game("twin").outcome == "SOLO germany-italy with 22 centres"


def test_equal_solos_vote_yes_for_a_joint_win() -> None:
    seats = double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    # england-turkey: 11 + 10 = 21; turkey-germany: 10 + 11 = 21.
    _fall_with_centres(game, owners_with({"ENGLAND": 11, "TURKEY": 10, "GERMANY": 11}))
    done = processing.process(game, force=True, now=NOW)
    game = get_game("twin")
    assert game.state == "active" and double.joint_vote_open(game)
    offered = [m for m in done.notices if "joint win is offered" in m.subject]
    assert sorted(m.to[0] for m in offered) == sorted(
        seats[n].person.email for n in ("england-turkey", "turkey-germany")
    )
    assert double.vote_joint(game, seats["england-turkey"], True) is None
    outcome = double.vote_joint(get_game("twin"), seats["turkey-germany"], True)
    assert outcome == "JOINT WIN england-turkey turkey-germany"
    assert get_game("twin").state == "finished"


def test_a_no_starts_a_tie_break_with_no_draws_that_only_the_tied_can_win() -> None:
    seats = double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    _fall_with_centres(game, owners_with({"ENGLAND": 11, "TURKEY": 10, "GERMANY": 11}))
    processing.process(game, force=True, now=NOW)
    game = get_game("twin")
    ctx = execute(f"SIGNON turkey-germany@twin pw{seats['turkey-germany'].person.email[1]}\n"
                  "VOTE NO", seats["turkey-germany"].person.email, JUDGE, NOW)  # fmt: skip
    assert "tie-break" in ctx.answers[1].lines[0]
    assert (
        len([m for m in ctx.outgoing if m.subject.endswith("a tie-break begins")]) == 8
    )  # all and the master
    game = get_game("twin")
    assert game.variant_state["tiebreak"] == ["england-turkey", "turkey-germany"]
    with pytest.raises(NotAllowed, match="tie-break"):
        draws.vote(game, seats["england-turkey"], "DRAW")
    # A third player at 21 cannot win now; a clear leader among the tied does.
    PhaseRecord.delete().execute()
    _fall_with_centres(game, owners_with({"ENGLAND": 11, "TURKEY": 11, "RUSSIA": 2,
                                          "ITALY": 10, "GERMANY": 0}))  # fmt: skip
    processing.process(game, force=True, now=NOW)
    assert get_game("twin").outcome == "SOLO england-turkey with 22 centres"


def test_silence_on_the_joint_win_counts_as_no() -> None:
    double_game(rules="+DOUBLE_LYTTON")
    game = get_game("twin")
    _fall_with_centres(game, owners_with({"ENGLAND": 11, "TURKEY": 10, "GERMANY": 11}))
    processing.process(game, force=True, now=NOW)
    game = get_game("twin")
    done = processing.process(game, force=True, now=NOW)  # the winter, nobody voted
    assert done is not None and get_game("twin").variant_state.get("tiebreak")
    assert any("tie-break begins" in m.subject for m in done.notices)


def test_a_vacant_seat_does_not_veto_its_partners_orders() -> None:
    create_game("half", "gm@example.org", "secret", variant="double")
    game = get_game("half")
    for i in range(5):
        join(game, f"p{i}@example.org", f"pw{i}", name=f"p{i}")
    from mailjudge.service.games import start_game

    start_game(get_game("half"), random.Random(1), now=NOW)
    game = get_game("half")
    seats = {s.name: s for s in double.ring_seats(game)}
    vacant = [s for s in seats.values() if s.person_id is None]
    assert len(vacant) == 2 and all(s.dummy for s in vacant)
    # A power one of whose seats is vacant and the other held (two vacant seats cover at
    # most four powers, and at most one of them has both its seats vacant).
    power, other = next(
        (p, s) for v in vacant for p in v.powers for s in double.partners(game, p)
        if s.id != v.id and s.person_id is not None
    )  # fmt: skip
    move = {"AUSTRIA": "A VIE - GAL", "ENGLAND": "A LVP - YOR", "FRANCE": "A PAR - BUR",
            "GERMANY": "A BER - PRU", "ITALY": "A ROM - APU", "RUSSIA": "A MOS - UKR",
            "TURKEY": "A CON - BUL"}[power]  # fmt: skip
    submit_orders(game, other, power, [move])
    done = processing.process(game, force=True, now=NOW)
    assert done is not None and any(r["order"] == move for r in done.results)


def test_a_rollback_undoes_the_overrides_of_later_phases_and_rollforward_redoes_them() -> None:
    """Seed 004, Lytton's rule 4: "Once every 2 years, every player may OVERRIDE one order
    by their joint leader and have their own order followed." An OVERRIDE used in a phase
    a ROLLBACK undid is the player's again; ROLLFORWARD, replaying that phase, uses it up
    once more (SPEC 6: ROLLBACK and ROLLFORWARD are exact)."""
    seats = double_game(rules="+DOUBLE_LYTTON")
    a, b = seats["england-turkey"], seats["austria-england"]
    double.override(get_game("twin"), a, "ENGLAND", "F LON - NTH")
    processing.process(get_game("twin"), force=True, now=NOW)
    double.override(get_game("twin"), b, "ENGLAND", "F EDI - NWG")  # F1901M
    processing.process(get_game("twin"), force=True, now=NOW)
    game = get_game("twin")
    with pytest.raises(NotAllowed, match="used your OVERRIDE for 1901-1902 in F1901M"):
        double.override(game, b, "ENGLAND", "F EDI H")
    processing.rollback(game, "S1901M")
    game = get_game("twin")
    # England-turkey's, sent before S1901M was played, is on file again; b's is b's again.
    again = double.override(game, a, "ENGLAND", "F LON - NTH")
    assert "it replaces your earlier OVERRIDE F LON - NTH" in again
    processing.rollforward(game)
    game = get_game("twin")
    assert game.phase == "S1902M"
    with pytest.raises(NotAllowed, match="used your OVERRIDE for 1901-1902 in F1901M"):
        double.override(game, b, "ENGLAND", "F EDI H")
    processing.rollback(game, "S1901M")
    processing.process(get_game("twin"), force=True, now=NOW)
    assert "F1901M" in double.override(get_game("twin"), b, "ENGLAND", "F EDI - NWG")

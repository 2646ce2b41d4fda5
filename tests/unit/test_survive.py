"""Survive Diplomacy (seed 002), rule by rule, through the engine and the game service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers.boards import GMAP, position

from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.passive import Passive, Removal
from mailjudge.engine.phases import EngineOptions, process_phase
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import current_position, get_game, seat_named
from mailjudge.service import processing
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.results import results_mails
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Game
from mailjudge.variants.survive import vote_out as vo
from mailjudge.variants.survive.outcasts import outcasts
from mailjudge.variants.survive.tables import Outcast

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
SURVIVE = EngineOptions(
    victory_centres=35,
    keep_adjustments_every=2,
    passive=Passive(frozenset(), Removal.LISTED_OFF_CENTRE),
)
# Four powers left after 1902: France 3 centres, Turkey 2, England 2, Germany 1.
FOUR = (
    ["FRANCE A par", "FRANCE A mar", "FRANCE F bre", "TURKEY A con", "TURKEY F ank",
     "ENGLAND F lon", "ENGLAND F edi", "GERMANY A ber"],
    {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE", "con": "TURKEY", "ank": "TURKEY",
     "lon": "ENGLAND", "edi": "ENGLAND", "ber": "GERMANY"},
)  # fmt: skip


def passive(*powers: str) -> EngineOptions:
    return EngineOptions(
        victory_centres=35, keep_adjustments_every=2,
        passive=Passive(frozenset(powers), Removal.LISTED_OFF_CENTRE),
    )  # fmt: skip


# The engine: passive powers and the kept adjustment phase.


def test_the_vote_phase_after_an_even_year_is_never_skipped() -> None:
    units, owners = FOUR
    pos = position_from_dict(position("F1902M", units, owners), GMAP)
    assert str(process_phase(GMAP, pos, {}, SURVIVE).next.phase) == "W1902A"
    assert str(process_phase(GMAP, pos, {}).next.phase) == "S1903M"  # standard: skipped
    odd = position_from_dict(position("F1903M", units, owners), GMAP)
    assert str(process_phase(GMAP, odd, {}, SURVIVE).next.phase) == "S1904M"


def test_outcast_units_hold_may_be_supported_and_disband_when_dislodged() -> None:
    units = ["FRANCE A bur", "FRANCE A pic", "GERMANY A mun", "GERMANY A ruh", "ENGLAND A bel"]
    pos = position_from_dict(position("S1903M", units, {}), GMAP)
    orders = {"FRANCE": ["A BUR - MAR", "A PIC H"], "ENGLAND": ["A BEL S A PIC"],
              "GERMANY": ["A MUN - BUR", "A RUH S A MUN - BUR"]}  # fmt: skip
    done = process_phase(GMAP, pos, orders, passive("FRANCE"))
    ignored = [r for r in done.results if r.power == "FRANCE" and r.outcome == "invalid"]
    assert {r.text for r in ignored} == {"A BUR - MAR", "A PIC H"}  # its orders are not used
    assert "bur" not in done.after.dislodged  # no retreat for an outcast...
    assert [str(u) for u in done.destroyed] == ["A BUR"]  # ...it disbands
    assert done.next.units["bur"].power == "GERMANY" and done.next.units["pic"].power == "FRANCE"
    assert str(done.next.phase) == "F1903M"  # no retreat phase for it either
    alone = process_phase(GMAP, pos, {"GERMANY": ["A RUH - BUR"]}, passive("FRANCE"))
    assert alone.next.units["bur"].power == "FRANCE"  # a hold stands like any other


def test_outcasts_never_build_and_remove_off_centre_units_in_listed_order() -> None:
    units = ["FRANCE A par", "FRANCE F bre", "FRANCE A bur", "FRANCE A gas", "FRANCE F mao",
             "TURKEY A con"]  # fmt: skip
    owners = {"par": "FRANCE", "bre": "FRANCE", "mar": "FRANCE", "con": "TURKEY", "ank": "TURKEY"}
    pos = position_from_dict(position("W1903A", units, owners), GMAP)
    done = process_phase(GMAP, pos, {"FRANCE": ["A BUR D", "F MAO D", "A GAS D"],
                                      "TURKEY": ["A ANK B"]}, passive("FRANCE", "TURKEY"))  # fmt: skip
    left = sorted(str(u) for u in done.next.units.values() if u.power == "FRANCE")
    # Two to remove: the first two off-centre units listed (A BUR, A GAS, F MAO), not the
    # ones France ordered removed.
    assert left == ["A PAR", "F BRE", "F MAO"]
    assert "ank" not in done.next.units  # an outcast does not build
    on_centres = position_from_dict(
        position("W1903A", ["FRANCE A par", "FRANCE F bre", "FRANCE A bur"], {"par": "FRANCE"}),
        GMAP,
    )
    after = process_phase(GMAP, on_centres, {}, passive("FRANCE")).next.units
    assert sorted(str(u) for u in after.values()) == ["F BRE"]  # A BUR, then the first listed


# The game service: ballots, the count, and what is published.


def survive_game(name: str = "sv", board: tuple[list[str], dict[str, str]] = FOUR,
                 phase: str = "W1902A") -> Game:  # fmt: skip
    game = create_game(name, "gm@example.org", "pw", variant="survive", rules="POWER_CHOICE")
    for power in POWERS:
        join(game, f"{power.lower()}@example.org", "pw", power=power)
    game = get_game(name)
    game.phase = phase
    game.position = position(phase, *board)
    game.deadline = NOW + timedelta(days=1)
    game.sequence = 10  # as after the phases of 1901 and 1902
    game.save()
    return game


def vote(game: Game, power: str, text: str) -> dict[str, int]:
    return vo.vote_out(game, seat_for_power(game, power), text.split())


def test_victory_count_is_the_centres_plus_one() -> None:
    game = survive_game()
    assert game.victory_count == 35
    assert create_game("std", "gm@example.org", "pw").victory_count == 18


def test_votes_are_one_per_centre_all_used_never_for_oneself() -> None:
    game = survive_game()
    assert vote(game, "FRANCE", "TURKEY 2 ENGLAND 1") == {"TURKEY": 2, "ENGLAND": 1}
    with pytest.raises(ServiceError, match=r"FRANCE has 3 votes .* add up to 2.* VOTE OUT"):
        vote(game, "FRANCE", "TURKEY 2")
    with pytest.raises(ServiceError, match=r"may not vote for itself.*VOTE OUT"):
        vote(game, "FRANCE", "FRANCE 1 TURKEY 2")
    with pytest.raises(ServiceError, match="ITALY is out of the game and cannot receive votes"):
        vote(game, "FRANCE", "ITALY 3")
    with pytest.raises(ServiceError, match="VOTE OUT FRANCE 3 TURKEY 2"):
        vote(game, "FRANCE", "TURKEY two ENGLAND 1")
    with pytest.raises(NotAllowed, match="out of the game and has no vote-out ballot"):
        vote(game, "ITALY", "FRANCE 1")
    assert vo.out_ballots(game)["FRANCE"] == {"TURKEY": 2, "ENGLAND": 1}  # the good one stands
    vote(game, "FRANCE", "e 3")  # changed before the deadline; initials are understood
    assert vo.out_ballots(game)["FRANCE"] == {"ENGLAND": 3}
    spring = survive_game("spring", phase="S1903M")
    with pytest.raises(NotAllowed, match="after each even year's Fall"):
        vote(spring, "FRANCE", "TURKEY 3")


def test_the_phase_waits_for_every_ballot_until_the_deadline() -> None:
    game = survive_game()
    state = processing.readiness(game, NOW)
    assert not state.ready and "FRANCE, GERMANY, TURKEY" in state.reason  # nobody adjusts
    for power, text in [("FRANCE", "TURKEY 3"), ("TURKEY", "FRANCE 2"), ("ENGLAND", "TURKEY 2")]:
        vote(game, power, text)
    assert not processing.readiness(game, NOW).ready
    assert processing.readiness(game, NOW + timedelta(days=2)).ready  # Germany abstains
    vote(game, "GERMANY", "TURKEY 1")
    assert processing.readiness(game, NOW).ready


def process(game: Game, when: datetime = NOW) -> processing.Processed:
    done = processing.process(game, force=True, now=when)
    assert done is not None
    return done


def notice_of(done: processing.Processed) -> str:
    bodies = {m.body for m in done.notices if "vote-out" in m.subject}
    assert len(bodies) == 1  # the same public notice to everyone
    return bodies.pop()


def test_most_votes_is_out_and_only_the_name_is_published() -> None:
    game = survive_game()
    for power, text in [("FRANCE", "TURKEY 2 ENGLAND 1"), ("TURKEY", "FRANCE 2"),
                        ("ENGLAND", "TURKEY 2"), ("GERMANY", "TURKEY 1")]:  # fmt: skip
        vote(game, power, text)
    done = process(game)
    assert outcasts(game, game.sequence) == {"TURKEY"}
    text = notice_of(done)
    assert "TURKEY is voted out." in text
    assert not any(ch.isdigit() for ch in text.replace("W1902A", ""))  # no number at all
    assert "FRANCE" not in text and "ENGLAND" not in text  # nor who voted how
    assert {m.to[0] for m in done.notices} >= {f"{p.lower()}@example.org" for p in POWERS}
    assert game.phase == "S1903M" and game.state == "active"


def test_an_n_way_tie_puts_all_n_out() -> None:
    game = survive_game("tie")
    for power, text in [("FRANCE", "TURKEY 2 ENGLAND 1"), ("TURKEY", "ENGLAND 2"),
                        ("ENGLAND", "TURKEY 1 GERMANY 1"), ("GERMANY", "FRANCE 1")]:  # fmt: skip
        vote(game, power, text)
    done = process(game)  # TURKEY 3, ENGLAND 3, FRANCE 1, GERMANY 1
    assert outcasts(game, game.sequence) == {"TURKEY", "ENGLAND"}
    assert "ENGLAND and TURKEY are voted out." in notice_of(done)


def test_an_outcast_adjusts_by_rule_in_the_phase_it_is_voted_out() -> None:
    units, owners = FOUR
    game = survive_game(board=([*units, "TURKEY A arm", "TURKEY A syr"], owners))
    submit_orders(game, seat_for_power(game, "TURKEY"), "TURKEY", ["A CON D", "F ANK D"])
    for power, text in [("FRANCE", "TURKEY 3"), ("ENGLAND", "TURKEY 2"), ("GERMANY", "TURKEY 1"),
                        ("TURKEY", "FRANCE 2")]:  # fmt: skip
        vote(game, power, text)
    done = process(game)
    turkey = sorted(str(u) for u in done.outcome.next.units.values() if u.power == "TURKEY")
    assert turkey == ["A CON", "F ANK"]  # rule 4b, not the orders it gave: off-centre units go
    assert {r["order"] for r in done.results if r["outcome"] == "invalid"} == {"A CON D", "F ANK D"}


def test_a_power_without_centres_is_out_and_cannot_be_voted_for() -> None:
    units, owners = FOUR
    owners = {**owners, "ber": "FRANCE"}  # Germany lost Berlin in the Fall
    game = survive_game(board=(units, owners))
    with pytest.raises(ServiceError, match="GERMANY is out of the game and cannot receive"):
        vote(game, "FRANCE", "GERMANY 4")
    with pytest.raises(NotAllowed, match="GERMANY is out of the game and has no vote-out"):
        vote(game, "GERMANY", "FRANCE 1")
    for power, text in [("FRANCE", "TURKEY 4"), ("TURKEY", "FRANCE 2"), ("ENGLAND", "TURKEY 2")]:
        vote(game, power, text)
    with pytest.raises(NotAllowed, match="GERMANY is out of the game and takes no orders"):
        submit_orders(game, seat_for_power(game, "GERMANY"), "GERMANY", ["A BER D"])
    assert processing.readiness(game, NOW).ready  # Germany's ballot and removal not awaited
    done = process(game)
    assert outcasts(game, game.sequence) == {"GERMANY", "TURKEY"}
    text = notice_of(done)
    assert "GERMANY owns no supply centre and is out" in text and "TURKEY is voted out." in text
    assert "ber" not in done.outcome.next.units  # its unit removed with its last centre


def two_left(name: str, outcast_units: list[str]) -> Game:
    """France and Turkey in play with 2 centres each; the outcasts still on the board."""
    units = ["FRANCE A par", "FRANCE A mar", "TURKEY A con", "TURKEY F ank", *outcast_units]
    owners = {"par": "FRANCE", "mar": "FRANCE", "con": "TURKEY", "ank": "TURKEY"}
    game = survive_game(name, (units, owners))
    for unit in outcast_units:
        Outcast.create(game=game, power=unit.split()[0], phase="W1900A", sequence=0,
                       reason="voted")  # fmt: skip
    vote(game, "FRANCE", "TURKEY 2")
    vote(game, "TURKEY", "FRANCE 2")
    return game


def test_a_tie_that_leaves_nobody_goes_to_the_outcasts_vote() -> None:
    game = two_left("odd", ["ENGLAND F nth", "GERMANY A kie", "ITALY A tyr"])
    waited = process(game)
    assert waited.waiting and game.phase == "W1902A" and not waited.results
    assert results_mails(game, waited) == []  # nothing is adjudicated yet
    call = next(m.body for m in waited.notices if m.to == ["england@example.org"])
    assert "tied among FRANCE, TURKEY" in call and "master votes" not in call
    assert game.deadline > NOW  # the victor vote has a deadline of its own
    with pytest.raises(NotAllowed, match="outcasts now choose the victor"):
        vote(game, "FRANCE", "TURKEY 2")
    with pytest.raises(NotAllowed, match="only when the outcasts are an even number"):
        vo.vote_victor(game, seat_named(game, "master"), "FRANCE")
    with pytest.raises(NotAllowed, match="only the outcasts"):
        vo.vote_victor(game, seat_for_power(game, "FRANCE"), "FRANCE")
    with pytest.raises(ServiceError, match="one of the tied powers"):
        vo.vote_victor(game, seat_for_power(game, "ENGLAND"), "ITALY")
    for power, choice in [("ENGLAND", "TURKEY"), ("GERMANY", "FRANCE"), ("ITALY", "TURKEY")]:
        assert not processing.readiness(game, NOW).ready
        vo.vote_victor(game, seat_for_power(game, power), choice)
    assert processing.readiness(game, NOW).ready
    done = process(game)
    assert game.state == "finished" and game.outcome == "WIN TURKEY"
    assert "So the outcasts chose the victor" in notice_of(done)
    assert "TURKEY wins the game" in notice_of(done)


def test_the_master_votes_when_the_outcasts_are_even() -> None:
    game = two_left("even", ["ENGLAND F nth", "GERMANY A kie"])
    call = next(m.body for m in process(game).notices if m.to == ["gm@example.org"])
    assert "and the master votes too" in call
    vo.vote_victor(game, seat_for_power(game, "ENGLAND"), "TURKEY")
    vo.vote_victor(game, seat_for_power(game, "GERMANY"), "FRANCE")
    assert not processing.readiness(game, NOW).ready  # the master's vote is awaited
    vo.vote_victor(game, seat_named(game, "master"), "FRANCE")
    process(game)
    assert game.outcome == "WIN FRANCE"


def test_a_tied_victor_vote_is_drawn_from_public_data() -> None:
    winners = set()
    for name in ("draw-a", "draw-b", "draw-c", "draw-d", "draw-e"):
        game = two_left(name, [])  # no outcast on the board: the master alone, who abstains
        process(game)
        process(game, get_game(name).deadline + timedelta(minutes=1))
        drawn = vo.seeded_draw(f"{name}:W1902A:victor", 1, ["FRANCE", "TURKEY"]).chosen
        assert get_game(name).outcome == f"WIN {drawn}"  # anyone can repeat the draw
        winners.add(drawn)
    assert winners == {"FRANCE", "TURKEY"}  # a real draw, not always the first


def test_the_last_power_left_wins() -> None:
    units = ["FRANCE A par", "FRANCE A mar", "FRANCE A bur", "TURKEY A con", "TURKEY F ank"]
    owners = {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE", "con": "TURKEY", "ank": "TURKEY"}
    game = survive_game(board=(units, owners))
    vote(game, "FRANCE", "TURKEY 3")
    vote(game, "TURKEY", "FRANCE 2")
    done = process(game)
    assert game.state == "finished" and game.outcome == "WIN FRANCE"
    text = notice_of(done)
    assert "TURKEY is voted out." in text and "FRANCE is the last power left and wins" in text


def test_outcasts_take_no_orders_but_stay_until_their_last_unit_is_gone() -> None:
    game = survive_game()
    for power, text in [("FRANCE", "TURKEY 3"), ("ENGLAND", "TURKEY 2"), ("GERMANY", "TURKEY 1"),
                        ("TURKEY", "FRANCE 2")]:  # fmt: skip
        vote(game, power, text)
    done = process(game)
    turkey = seat_for_power(game, "TURKEY")
    assert any(m.to == ["turkey@example.org"] for m in results_mails(game, done))
    with pytest.raises(NotAllowed, match="TURKEY is out of the game and takes no orders"):
        submit_orders(game, turkey, "TURKEY", ["A CON H"])
    assert "TURKEY" not in processing.readiness(game, NOW).waiting_for
    pos = current_position(game)
    assert pos.units["con"].power == "TURKEY" and not turkey.eliminated


def test_ballots_by_command_and_by_press_to_the_master() -> None:
    import mailjudge.commands  # noqa: F401  (registers the commands)
    from mailjudge.commands.run import execute, reply_text

    game = survive_game()

    def mail(power: str, text: str) -> str:
        sender = f"{power.lower()}@example.org"
        ctx = execute(f"SIGNON {power.lower()}@sv pw\n{text}", sender, "judge@example.org", NOW)
        return reply_text(ctx) + "".join(o.subject for o in ctx.outgoing)

    refused = mail("FRANCE", "PRESS TO M\nVOTE OUT TURKEY 1\nENDPRESS")
    assert "nothing was sent" in refused and "must use them all" in refused
    assert "press from" not in refused and "FRANCE" not in vo.out_ballots(game)
    sent = mail(
        "FRANCE", "PRESS TO M\nHere it is.\nVOTE OUT TURKEY 1\nVOTE OUT ENGLAND 2\nENDPRESS"
    )
    assert "vote-out ballot recorded: TURKEY 1, ENGLAND 2" in sent and "press from FRANCE" in sent
    assert vo.out_ballots(game)["FRANCE"] == {"TURKEY": 1, "ENGLAND": 2}
    to_all = mail("TURKEY", "PRESS TO ALL\nVOTE OUT FRANCE 2\nENDPRESS")  # not a ballot
    assert "ballot recorded" not in to_all and "TURKEY" not in vo.out_ballots(game)
    assert "vote-out ballot recorded: FRANCE 2" in mail("TURKEY", "VOTE OUT FRANCE 2")
    assert "write VOTE VICTOR" in mail("TURKEY", "VOTE VICTOR")


def test_a_rollback_to_a_counted_victor_vote_opens_it_again() -> None:
    """Seed 002, rule 5b: "the outcast powers remaining cast one vote on who should be the
    victor. ... These votes then determine who wins the game." A ROLLBACK to the phase of
    a counted victor vote puts the game back as it was when the phase was processed: the
    vote open among all its candidates (not the victor alone), its ballots on file, the
    outcasts still its voters; counted again, it names the same victor."""
    game = two_left("again", ["ENGLAND F nth", "GERMANY A kie", "ITALY A tyr"])
    process(game)
    for power, choice in [("ENGLAND", "TURKEY"), ("GERMANY", "FRANCE"), ("ITALY", "TURKEY")]:
        vo.vote_victor(game, seat_for_power(game, power), choice)
    process(game)
    assert game.outcome == "WIN TURKEY"
    processing.rollback(game, "W1902A")
    game = get_game("again")
    assert game.state == "active" and game.phase == "W1902A"
    assert vo.tied(game) == ["FRANCE", "TURKEY"]
    assert vo.victor_voters(game) == (["ENGLAND", "GERMANY", "ITALY"], False)
    assert vo.victor_ballots(game) == {"ENGLAND": "TURKEY", "GERMANY": "FRANCE", "ITALY": "TURKEY"}
    assert processing.readiness(game, NOW).ready
    process(game)
    assert game.outcome == "WIN TURKEY"
    assert outcasts(game, game.sequence) >= {"FRANCE"}

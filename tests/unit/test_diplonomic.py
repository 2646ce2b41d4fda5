"""Diplonomic (seed 003) through the commands and the game service: teammates, the rules
text, rule-change proposals and their vote, rule 9's draw, the win at 18 and rule 24."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers.boards import GMAP, position

from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.passive import Passive, Removal
from mailjudge.engine.phases import EngineOptions, process_phase
from mailjudge.game.calendar import invited_seats
from mailjudge.game.state import get_game
from mailjudge.render.outgoing import Outgoing
from mailjudge.service import deadlines, processing
from mailjudge.service.games import create_game
from mailjudge.service.seats import eject, join
from mailjudge.store.models import Game, Proposal, Seat
from mailjudge.variants.diplonomic import rule_changes as rc
from mailjudge.variants.diplonomic.tables import Rulebook

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
RULES_TEXT = """\
1. Contestants play the standard map.

7. Contestants may seek the assistance of non-contestants.

8. Any contestant may propose a change of these rules.

22. If a player fails to order a retreat, the unit is disbanded.
"""


def address(power: str) -> str:
    return f"{power.lower()}@example.org"


def diplonomic(name: str = "dn", rules: str = "POWER_CHOICE") -> Game:
    game = create_game(name, "gm@example.org", "gmpw", variant="diplonomic", rules=rules)
    rc.load_rulebook(game, RULES_TEXT)
    for power in POWERS:
        join(game, address(power), "pw", power=power)
    return get_game(name)


def mail(sender: str, text: str, now: datetime = NOW) -> Context:
    return execute(text, sender, JUDGE, now)


def as_power(power: str, text: str, game: str = "dn") -> Context:
    return mail(address(power), f"SIGNON {power.lower()}@{game} pw\n{text}")


def as_master(text: str, game: str = "dn", now: datetime = NOW) -> Context:
    return mail("gm@example.org", f"SIGNON m{game} gmpw\n{text}", now)


def reply(ctx: Context) -> str:
    return reply_text(ctx)


def process(game: Game, now: datetime = NOW) -> processing.Processed:
    done = processing.process(get_game(game.name), force=True, now=now)
    assert done is not None
    return done


def everything(mails: list[Outgoing]) -> str:
    return "\n".join(m.subject + "\n" + m.body for m in mails)


# Creation.


def test_a_new_game_has_the_seed_defaults() -> None:
    game = diplonomic()
    assert game.victory_count == 18
    assert {"CIVIL_DISORDER", "CD_DUMMIES", "ALWAYS_WAIT"} <= set(game.rules)
    assert game.timing.startswith("RULE15")
    assert game.deadline is not None and game.deadline.hour == 12  # rule 15: orders by noon


# Teammates.


def add_bob(power: str = "FRANCE") -> Context:
    invited = as_power(power, "TEAMMATE ADD bob@example.org")
    assert "ERROR" not in reply(invited).upper().split("ERRORS")[0], reply(invited)
    return invited


def test_a_teammate_is_named_confirms_by_mail_and_orders_only_while_authorized() -> None:
    game = diplonomic()
    invited = add_bob()
    (invitation,) = invited.outgoing
    assert invitation.to == ["bob@example.org"]
    assert "ACCEPT dn yourpassword" in invitation.body
    assert "SIGNON bob@dn" in reply(mail("bob@example.org", "SIGNON bob@dn x"))  # not yet
    accepted = mail("bob@example.org", "ACCEPT dn bobpw")
    assert "you are a teammate of FRANCE" in reply(accepted)
    told = {m.to[0] for m in accepted.outgoing}  # rule 7: announced to everyone
    assert {address(p) for p in POWERS} | {"gm@example.org", "bob@example.org"} == told
    assert all("bob is now a teammate of FRANCE" in m.body for m in accepted.outgoing)
    assert "FRANCE     played, teammates: bob" in reply(mail("x@example.org", "LIST dn"))

    refused = mail("bob@example.org", "SIGNON bob@dn bobpw\nORDERS\nA PAR - BUR\nEND")
    assert "a teammate orders only when the player AUTHORIZEs it" in reply(refused)
    authorized = as_power("FRANCE", "AUTHORIZE bob")
    assert "bob may now submit and change your orders" in reply(authorized)
    assert authorized.outgoing[0].to == ["bob@example.org"]
    sent = mail("bob@example.org", "SIGNON bob@dn bobpw\nORDERS\nA PAR - BUR\nEND")
    assert "A PAR - BUR" in reply(sent)
    as_power("FRANCE", "ORDERS\nA PAR - BUR\nA MAR - SPA\nF BRE - MAO\nEND")
    mail(
        "bob@example.org", "SIGNON bob@dn bobpw\nORDERS\nA PAR - PIC\nA MAR - SPA\nF BRE - MAO\nEND"
    )
    status = reply(as_power("FRANCE", "STATUS"))  # which orders, and by whom
    assert "A PAR - PIC" in status and "(by bob," in status and "(by france," not in status

    as_power("FRANCE", "REVOKE bob")
    again = mail("bob@example.org", "SIGNON bob@dn bobpw\nCLEAR")
    assert "a teammate orders only when the player AUTHORIZEs it" in reply(again)
    assert Seat.get(Seat.name == "bob").role == "teammate" and game.variant == "diplonomic"


def test_a_teammate_may_not_be_a_contestant_or_another_contestants_teammate() -> None:
    diplonomic()
    contestant = as_power("FRANCE", f"TEAMMATE ADD {address('ENGLAND')}")
    assert "is a contestant in dn; a teammate may not be one" in reply(contestant)
    add_bob("FRANCE")
    taken = as_power("GERMANY", "TEAMMATE ADD bob@example.org")
    assert "already another contestant's teammate" in reply(taken)
    mail("bob@example.org", "ACCEPT dn bobpw")
    assert "already another contestant's teammate" in reply(
        as_power("GERMANY", "TEAMMATE ADD bob@example.org")
    )
    teammate_adds = mail("bob@example.org", "SIGNON bob@dn bobpw\nTEAMMATE ADD eve@example.org")
    assert "only a contestant of a Diplonomic game names teammates" in reply(teammate_adds)
    nobody = mail("eve@example.org", "ACCEPT dn evepw")
    assert "nobody has named eve@example.org as a teammate" in reply(nobody)


def test_a_removed_teammate_is_announced_and_can_no_longer_sign_on() -> None:
    diplonomic()
    add_bob()
    mail("bob@example.org", "ACCEPT dn bobpw AS robert")
    removed = as_power("FRANCE", "TEAMMATE REMOVE robert")
    assert "robert is no longer your teammate" in reply(removed)
    news = [m for m in removed.outgoing if "robert is no longer a teammate of FRANCE" in m.body]
    assert len(news) == 8  # the seven contestants and the master
    (goodbye,) = [m for m in removed.outgoing if m.to == ["bob@example.org"]]
    assert "FRANCE has removed you from its team" in goodbye.body
    assert "wrong password" in reply(mail("bob@example.org", "SIGNON robert@dn bobpw"))
    again = as_power("GERMANY", "TEAMMATE ADD bob@example.org")  # free to join another team
    assert "is asked to be your teammate (robert)" in reply(again)


# Rule-change proposals.


def propose(power: str, text: str) -> int:
    ctx = as_power(power, f"PROPOSAL RULES\n{text}\nEND")
    assert "received" in reply(ctx), reply(ctx)
    return Proposal.select().order_by(Proposal.number.desc()).first().number


def vote(power: str, number: int, choice: str = "FOR") -> Context:
    return as_power(power, f"VOTE PROPOSAL {number} {choice}")


def next_turn(game: Game, now: datetime = NOW) -> list[Outgoing]:
    """Process every phase of the current turn (no orders: everyone holds)."""
    mails: list[Outgoing] = []
    while True:
        done = process(game, now)
        mails += done.notices
        if get_game(game.name).phase.endswith("M") or get_game(game.name).state != "active":
            return mails


@pytest.mark.parametrize(
    ("contestants", "votes", "enacted"),
    [(7, 3, False), (7, 4, True), (6, 3, False), (6, 4, True), (5, 2, False), (5, 3, True)],
)
def test_enacted_with_more_votes_in_favour_than_half_the_contestants(
    contestants: int, votes: int, enacted: bool
) -> None:
    game = diplonomic()
    for power in POWERS[contestants:]:
        eject(game, power)  # a vacant power has no contestant
    number = propose("AUSTRIA", "SET VICTORY 16")
    published = next_turn(game)
    assert f"Proposal {number}:\nSET VICTORY 16" in everything(published)
    voters = POWERS[:contestants]
    for power in voters[:votes]:
        assert "is recorded" in reply(vote(power, number))
    for power in voters[votes:]:
        vote(power, number, "AGAINST")
    resolved = everything(next_turn(game))
    needed = contestants // 2 + 1
    assert f"{votes} votes in favour, of {contestants} contestants ({needed} needed)" in resolved
    assert ("Enacted." in resolved) is enacted
    assert Proposal.get(Proposal.number == number).state == ("enacted" if enacted else "failed")
    assert get_game("dn").victory_count == (16 if enacted else 18)


def test_a_withdrawn_vote_does_not_count_and_votes_are_taken_in_the_next_turn_only() -> None:
    game = diplonomic()
    number = propose("AUSTRIA", "SET VICTORY 17")
    early = vote("ENGLAND", number)
    assert "not open for votes" in reply(early) and "none is open this turn" in reply(early)
    next_turn(game)
    for power in POWERS[:4]:
        vote(power, number)
    assert "withdrawn" in reply(vote("GERMANY", number, "WITHDRAW"))
    assert "3 votes in favour, of 7" in everything(next_turn(game))
    late = vote("ITALY", number)
    assert "not open for votes" in reply(late)


def test_no_mail_names_a_proposals_author_or_a_voter() -> None:
    game = diplonomic()
    add_bob("TURKEY")
    mail("bob@example.org", "ACCEPT dn bobpw")
    sent: list[Outgoing] = []
    proposing = as_power("TURKEY", "PROPOSAL RULES Quiet seas\nSET RULE +NO_PRESS\nEND")
    assert "published without your name" in reply(proposing)
    sent += proposing.outgoing
    sent += next_turn(game)
    for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY"):
        sent += vote(power, 1).outgoing
    sent += next_turn(game)
    text = everything(sent)
    assert "Quiet seas" in text and "4 votes in favour" in text
    for who in [*POWERS, "turkey", "bob", "austria", "england", "france", "germany"]:
        assert who not in text and who.lower() not in text.lower().replace("dn", "")


def test_a_setting_change_takes_effect_when_enacted() -> None:
    game = diplonomic()
    before = as_power("ENGLAND", "PRESS TO FRANCE\nShall we?\nENDPRESS")
    assert "ERROR" not in reply(before).split("\n", 1)[0].upper()
    number = propose("ITALY", "SET RULE +NO_PRESS\nSET TIMING MOVE 2D AT 18:00 UTC")
    next_turn(game)
    for power in POWERS[:4]:
        vote(power, number)
    next_turn(game)
    game = get_game("dn")
    assert "NO_PRESS" in game.rules and game.timing.startswith("MOVE 2D")
    after = as_power("ENGLAND", "PRESS TO FRANCE\nShall we?\nENDPRESS")
    assert "this game has NO_PRESS" in reply(after)


def test_a_text_amendment_makes_a_new_version_and_the_new_text_is_published() -> None:
    game = diplonomic()
    number = propose(
        "FRANCE",
        "AMEND RULE 7 APPEND {\nA contestant CAN authorize a teammate to submit orders.\n}\n"
        'AMEND RULE 22 REPLACE "If a player" WITH "If a country"',
    )
    next_turn(game)
    for power in POWERS[:5]:
        vote(power, number)
    resolved = everything(next_turn(game))
    assert "Enacted." in resolved and "The new text (version 2) follows" in resolved
    assert "22. If a country fails to order a retreat" in resolved
    assert "A contestant CAN authorize a teammate" in resolved
    assert [b.version for b in Rulebook.select().order_by(Rulebook.version)] == [1, 2]
    old = reply(mail("anyone@example.org", "RULES dn 1"))
    assert "22. If a player fails" in old and "the current version is 2" in old
    assert "22. If a country fails" in reply(mail("anyone@example.org", "RULES dn"))


def test_an_enacted_amendment_that_cannot_apply_fails_with_the_reason() -> None:
    game = diplonomic()
    number = propose("FRANCE", 'SET VICTORY 12\nAMEND RULE 22 REPLACE "a robot" WITH "a human"')
    next_turn(game)
    for power in POWERS:
        vote(power, number)
    resolved = everything(next_turn(game))
    assert (
        "It had the votes but fails: amendment 2 cannot apply: rule 22 does not contain" in resolved
    )
    assert get_game("dn").victory_count == 18  # all of it or nothing
    assert Rulebook.select().count() == 1


def test_a_proposal_the_judge_cannot_read_is_refused_at_once() -> None:
    diplonomic()
    ctx = as_power("FRANCE", "PROPOSAL RULES\nLet us be friends\nEND")
    assert "'Let us be friends' is not an amendment" in reply(ctx)
    bad_rule = as_power("FRANCE", "PROPOSAL RULES\nSET RULE +NO_SUCH_RULE\nEND")
    assert "NO_SUCH_RULE" in reply(bad_rule)
    teammate = as_master("PROPOSAL RULES\nSET VICTORY 3\nEND")
    assert "only contestants (players) may propose rule changes" in reply(teammate)
    assert Proposal.select().count() == 0


def test_the_rulebook_is_the_masters_before_start_only() -> None:
    game = create_game("rb", "gm@example.org", "gmpw", variant="diplonomic")
    loaded = as_master(f"RULEBOOK\n{RULES_TEXT}END", game="rb")
    assert "rules version 1 stored: 4 rules, 1 to 22" in reply(loaded)
    game = diplonomic("dn")
    late = as_master("RULEBOOK\n1. New rules.\nEND")
    assert "after START the rules change only by enacted proposals" in reply(late)
    assert rc.latest(game).version == 1


# Rule 9: three static years, and the draw with two days' notice.


def test_three_years_without_a_change_of_owner_tell_the_master_who_may_declare_a_draw() -> None:
    game = diplonomic()
    add_bob("ITALY")
    mail("bob@example.org", "ACCEPT dn bobpw")
    notices: list[Outgoing] = []
    for _ in range(4):  # 1901 and 1902: too early
        notices += next_turn(game)
    assert not [m for m in notices if "changed owner" in m.subject]
    early = as_master("DECLARE DRAW")
    assert "that is not so after 1902" in reply(early)
    notices = next_turn(game) + next_turn(game)  # 1903 ends: S1904M begins
    (told,) = [m for m in notices if "no centre changed owner" in m.subject]
    assert told.to == ["gm@example.org"] and "1901 to 1903" in told.body
    declared = as_master("DECLARE DRAW")
    assert "the draw is declared" in reply(declared)
    assert len(declared.outgoing) == 9 and "2026-11-23 12:00" in declared.outgoing[0].body
    deadlines.tick(NOW + timedelta(days=1))
    assert get_game("dn").state == "active"  # two days' notice
    ended = deadlines.tick(NOW + timedelta(days=2, minutes=1))
    game = get_game("dn")
    assert game.state == "finished"
    assert game.outcome == f"DRAW {' '.join(POWERS)} with teammates bob"
    assert len([m for m in ended if "the game is over" in m.subject]) == 9


def test_the_declared_draw_withdraws_the_deadline_from_every_invited_calendar() -> None:
    """Rule 9's draw ends the game two days after it is declared, on the clock: its notice
    is the one every ending sends (service/results.game_over_mails), with the current
    phase's event cancelled in each invited seat's calendar: 8 of 8 (it was 0)."""
    game = diplonomic()
    for _ in range(6):  # 1901 to 1903 without a change of owner
        next_turn(game)
    assert "the draw is declared" in reply(as_master("DECLARE DRAW"))
    ended = deadlines.tick(NOW + timedelta(days=2, minutes=1))
    assert get_game("dn").state == "finished"
    over = [m for m in ended if "the game is over" in m.subject]
    invited = {s.person.email for s in invited_seats(game)}
    assert len(invited) == 8  # the seven players and the master
    cancelled = {m.to[0] for m in over if m.calendar and b"METHOD:CANCEL" in m.calendar}
    assert cancelled == invited
    assert len(over) == 8


def test_players_do_not_vote_draws() -> None:
    diplonomic()
    ctx = as_power("FRANCE", "VOTE DRAW")
    assert "write VOTE PROPOSAL 3 FOR" in reply(ctx)


# Rule 16: a win at 18 includes the teammates unless the master rules otherwise.


@pytest.mark.parametrize(("ruled", "outcome"), [("", "WIN FRANCE with teammates bob"),
                                                 ("+NO_TEAMMATE_WINS", "WIN FRANCE")])  # fmt: skip
def test_a_win_at_18_includes_the_teammates(ruled: str, outcome: str) -> None:
    game = diplonomic(rules=f"POWER_CHOICE {ruled}".strip())
    add_bob()
    mail("bob@example.org", "ACCEPT dn bobpw")
    others = {"bel", "mos", "stp", "war", "sev"}
    france = ["hol", *[c for c in sorted(GMAP.centres) if c not in others | {"hol"}][:16]]
    owners = {c: "FRANCE" for c in france} | {c: "RUSSIA" for c in others - {"bel"}}
    game.phase, game.position = "F1905M", position("F1905M", ["FRANCE A hol"], owners)
    game.save()
    as_power("FRANCE", "A HOL - BEL")
    process(game)  # 17 centres and Belgium: 18 after the Fall
    assert get_game("dn").outcome == outcome


# Rule 24: civil disorder.

CD = EngineOptions(passive=Passive(frozenset({"AUSTRIA"}), Removal.FARTHEST))


def test_civil_disorder_units_hold_do_not_support_each_other_and_disband_when_dislodged() -> None:
    pos = position_from_dict(
        position("S1902M", ["AUSTRIA A bud", "AUSTRIA A vie", "RUSSIA A gal", "RUSSIA A rum"], {}),
        GMAP,
    )
    orders = {"AUSTRIA": ["A VIE S A BUD"], "RUSSIA": ["A GAL - BUD", "A RUM S A GAL - BUD"]}
    done = process_phase(GMAP, pos, orders, CD)
    assert [str(u) for u in done.destroyed] == ["A BUD"]  # disbanded, no retreat
    assert done.next.units["bud"].power == "RUSSIA" and str(done.next.phase) == "F1902M"
    standard = process_phase(GMAP, pos, orders)  # with its support Budapest would stand
    assert standard.next.units["bud"].power == "AUSTRIA"


def test_civil_disorder_never_builds_and_removes_farthest_then_fleets_then_by_name() -> None:
    owners = {"vie": "AUSTRIA", "bud": "AUSTRIA", "tri": "AUSTRIA", "ser": "AUSTRIA"}
    builds = position_from_dict(position("W1902A", ["AUSTRIA A vie"], owners), GMAP)
    done = process_phase(GMAP, builds, {"AUSTRIA": ["BUILD A BUD"]}, CD)
    assert list(done.next.units) == ["vie"]
    units = ["AUSTRIA A vie", "AUSTRIA A gal", "AUSTRIA A boh", "AUSTRIA F alb", "AUSTRIA A tyr",
             "AUSTRIA F gre"]  # fmt: skip
    surplus = position_from_dict(position("W1902A", units, {"vie": "AUSTRIA"}), GMAP)
    done = process_phase(GMAP, surplus, {"AUSTRIA": ["REMOVE A VIE"]}, CD)
    removed = [r.text for r in done.results if r.outcome == "civil disorder"]
    # Greece is two provinces from home; Albania, Bohemia, Galicia and Tyrolia one: the
    # fleet goes first, then the armies by province name.
    assert removed == ["F GRE D", "F ALB D", "A BOH D", "A GAL D", "A TYR D"]


def test_a_contestant_who_left_and_was_not_replaced_is_in_civil_disorder() -> None:
    game = diplonomic()
    eject(game, "AUSTRIA")
    ctx = as_master("ORDERS AUSTRIA\nA VIE - TRI\nEND")
    assert "AUSTRIA is in civil disorder (rule 24) and takes no orders" in reply(ctx)
    assert len(rc.contestants(game)) == 6


def test_the_master_may_enact_a_proposal_by_ruling() -> None:
    game = diplonomic()
    number = propose("FRANCE", "ADD RULE 30 {The master may enact a proposal.}")
    next_turn(game)
    ctx = as_master(f"ENACT {number}")
    assert "proposal 1 is enacted" in reply(ctx)
    assert len(ctx.outgoing) == 8 and "30. The master may enact" in ctx.outgoing[0].body
    assert "no proposal 1 that is not yet enacted" in reply(as_master(f"ENACT {number}"))
    assert "only the game's master" in reply(as_power("FRANCE", "ENACT 1"))


def test_teammates_receive_their_countrys_press_and_press_for_it_under_their_name() -> None:
    diplonomic()
    add_bob()
    mail("bob@example.org", "ACCEPT dn bobpw")
    to_france = as_power("ENGLAND", "PRESS TO FRANCE\nThe Channel stays empty?\nENDPRESS")
    assert sorted(m.to[0] for m in to_france.outgoing) == ["bob@example.org", address("FRANCE")]
    from_bob = mail("bob@example.org", "SIGNON bob@dn bobpw\nPRESS TO ENGLAND\nAgreed.\nENDPRESS")
    (sent,) = from_bob.outgoing
    assert sent.to == [address("ENGLAND")] and "press from FRANCE (teammate bob)" in sent.subject


def test_the_master_is_asked_to_replace_a_contestant_who_missed_the_deadline() -> None:
    game = diplonomic()  # nobody orders
    deadline = get_game("dn").deadline
    assert deadline is not None
    mails = deadlines.tick(deadline + timedelta(minutes=1))
    (told,) = [m for m in mails if m.subject.startswith("[dn] late:")]
    assert told.to == ["gm@example.org"] and "Under rule 24 you should" in told.body
    assert get_game("dn").phase == "F1901M" and game.variant == "diplonomic"  # defaults played

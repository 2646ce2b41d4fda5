"""Issue 53 point 7, line by line: what njudge's and DPjudge's veterans write that this
judge did otherwise (the corpora of tests/mail/test_veteran_corpora.py measure them all; these
say each one plainly). In-process, on SQLite, in tests/helpers/veteran_measure.py's games."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers.veteran_measure import GAME, JUDGE, MASTER, NOW, WINTER, address, set_up, signon

from mailjudge.commands.base import Context
from mailjudge.commands.run import execute, reply_text
from mailjudge.game.state import get_game
from mailjudge.store.models import Ballot, OrderLine, Seat


@pytest.fixture(autouse=True)
def games(sqlite_db: str) -> None:
    set_up()


def send(who: str, text: str) -> Context:
    sender = MASTER if who.startswith("MASTER") else address(who.removesuffix("@winter"))
    return execute(f"{signon(who)}\n{text}".lstrip("\n"), sender, JUDGE, NOW)


def said(ctx: Context) -> str:
    return " ".join(reply_text(ctx).split())


def orders(game: str, power: str, phase: str | None = None) -> list[str]:
    g = get_game(game)
    rows = OrderLine.select().where(
        (OrderLine.game == g) & (OrderLine.power == power) & (OrderLine.phase == (phase or g.phase))
    )
    return sorted(str(r.text) for r in rows)


def press_to(ctx: Context) -> set[str]:
    by_address = {address(p): p for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY",
                                          "RUSSIA", "TURKEY")} | {MASTER: "MASTER"}  # fmt: skip
    return {by_address[a] for o in ctx.outgoing if o.kind == "press" for a in o.to}


def test_all_but_leaves_out_the_master_when_m_is_named() -> None:
    ctx = send("ITALY", "PRESS TO ALL BUT FM\nNot for France nor the master.\nENDPRESS")
    assert press_to(ctx) == {"AUSTRIA", "ENGLAND", "GERMANY", "RUSSIA", "TURKEY"}
    ctx = send("ITALY", "PRESS TO ALL BUT F\nNot for France.\nENDPRESS")
    assert "MASTER" in press_to(ctx) and "FRANCE" not in press_to(ctx)


@pytest.mark.parametrize(
    ("line", "reached", "grey"),
    [
        ("PRESS WHITE TO af", {"AUSTRIA", "FRANCE"}, False),
        ("PRESS TO af WHITE", {"AUSTRIA", "FRANCE"}, False),
        ("PRESS ANONYMOUSLY TO a", {"AUSTRIA"}, True),
        ("PRESS TO -r", {"AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "TURKEY", "MASTER"}, False),
        ("PRESS +frg", {"FRANCE", "RUSSIA", "GERMANY"}, False),
        ("PRESS TO Austria,Turkey,Master", {"AUSTRIA", "TURKEY", "MASTER"}, False),
        ("PRESS TO a QUIET", {"AUSTRIA"}, False),
        ("BROADCAST GREY", {"AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY",
                            "MASTER"}, True),
    ],
)  # fmt: skip
def test_press_options_are_never_read_as_recipients(line: str, reached: set[str],
                                                    grey: bool) -> None:  # fmt: skip
    ctx = send("ITALY", f"{line}\nA word.\nENDPRESS")
    assert press_to(ctx) == reached, said(ctx)
    texts = [o.body for o in ctx.outgoing if o.kind == "press"]
    assert all(("from someone (grey press)" in t) == grey for t in texts), texts


def test_more_builds_than_owed_the_last_ones_stand() -> None:
    """njudge's syntax file: 'if you submit more build orders than you can use, the last
    one(s) received will be honored' (France owes three)."""
    ctx = send("FRANCE@winter", "Build A Par\nBuild A Mar\nBuild F Bre\nBuild F Mar")
    assert orders(WINTER, "FRANCE") == ["A PAR B", "F BRE B", "F MAR B"]
    assert "replaced by the later ones" in said(ctx) and "A MAR B" in said(ctx)
    send("FRANCE@winter", "Build A Mar")  # a later mail: the last given for Marseilles
    assert orders(WINTER, "FRANCE") == ["A MAR B", "A PAR B", "F BRE B"]


def test_dpjudges_nmr_clears_the_orders_above_it() -> None:
    send("FRANCE", "A PAR - BUR\n(NMR)\nA MAR - SPA")
    assert orders(GAME, "FRANCE") == ["A MAR - SPA"]
    send("FRANCE", "A PAR - PIC\nNMR\nF BRE - MAO")
    assert orders(GAME, "FRANCE") == ["F BRE - MAO"]


def test_dpjudges_create_example_is_read_whole() -> None:
    """DPjudge's e-mail page: its CREATE example, line for line."""
    text = ("CREATE mygamename masterPassword\nprivate privacyPassword\n"
            "desc A standard game on the standard map.\nmap standard\ntiming move 2d\n"
            "Rule no_press coastal_Convoy\nrule power_choice\nform\nSignoff")  # fmt: skip
    ctx = execute(text, "newmaster@example.org", JUDGE, NOW)
    game = get_game("mygamename")
    assert set(str(game.rules).split()) == {"NO_PRESS", "POWER_CHOICE"}
    assert game.private and "MOVE 2D" in game.timing
    answer = said(ctx)
    assert "COASTAL_CONVOY" in answer and "no description is kept" in answer
    assert "privacyPassword" not in answer and "no game called" not in answer
    assert "left alone" not in answer


def test_help_before_signon_ends_the_mail_as_on_njudge() -> None:
    ctx = execute(f"HELP\n{signon('FRANCE')}\nA PAR - BUR", address("FRANCE"), JUDGE, NOW)
    assert "nothing after it was read" in said(ctx)
    assert orders(GAME, "FRANCE") == ["A MAR H", "A PAR H", "F BRE H"]
    # After a SIGNON, HELP is only the help: the rest of the mail is done.
    send("FRANCE", "HELP\nA PAR - BUR")
    assert "A PAR - BUR" in orders(GAME, "FRANCE")


def test_set_wait_after_a_phase_line_sets_no_wait_now() -> None:
    ctx = send("FRANCE", "PHASE Fall 1901 Movement\nA PAR - BUR\nSET WAIT")
    france = Seat.get((Seat.game == get_game(GAME)) & (Seat.name == "france"))
    assert not france.wait and "would be for F1901M" in said(ctx)
    assert orders(GAME, "FRANCE", "F1901M") == ["A PAR - BUR"]


def test_njudges_conditional_orders_as_its_syntax_file_writes_them() -> None:
    send("GERMANY", "PHASE Fall 1901 Movement\nIF NOT Fr Bur THEN\nA Mun - Bur\n"
                    "ELSE IF A Par\nA Mun - Ruh\nELSE\nA Mun H\nENDIF")  # fmt: skip
    assert orders(GAME, "GERMANY", "F1901M") == [
        "IF FRANCE BUR AND A PAR: A MUN - RUH",
        "IF FRANCE BUR AND NOT A PAR: A MUN H",
        "IF NOT FRANCE BUR: A MUN - BUR",
    ]


def test_other_judges_commands_in_any_case_are_answered_with_ours() -> None:
    for line, ours in [("purge vets masterpw", "DECLARE DRAW"),
                       ("monitor nosy@vets peeping", "OBSERVE name@game password"),
                       ("Observer loudMouth@vets pw", "OBSERVE name@game password")]:  # fmt: skip
        answer = said(send("MASTER", line))
        assert "ERROR" in answer and ours in answer and "left alone" not in answer, answer
    # Small talk with the same first word is still small talk.
    assert "left alone" in said(send("FRANCE", "Purge the weak, I say."))


@pytest.mark.parametrize(
    ("line", "twin"),
    [
        ("SET NO DIAS", "SET RULE +NO_DIAS"),
        ("SET NMR", "SET RULE +CIVIL_DISORDER"),
        ("SET NO NMR", "SET RULE -CIVIL_DISORDER"),
        ("SET PRESS NONE", "SET RULE +NO_PRESS"),
        ("SET NO PARTIAL", "SET RULE +PUBLIC_PRESS"),
        ("SET MANUAL START", "SET RULE +START_MASTER"),
        ("SET MOVES NEXT 48.0", "SET TIMING MOVE"),
    ],
)
def test_their_set_forms_name_the_twin_rule_here(line: str, twin: str) -> None:
    answer = said(send("MASTER", line))
    assert twin in answer and "ERROR" in answer
    assert "-NO_PRESS" not in answer or twin.endswith("-NO_PRESS")  # never the opposite


def test_their_dates_for_absence_and_deadline() -> None:
    send("FRANCE", "SET ABSENCE 24 DEC TO 6 JAN")
    france = Seat.get((Seat.game == get_game(GAME)) & (Seat.name == "france"))
    assert "-12-24T00:00" in france.absence and "-01-06T23:59" in france.absence
    send("MASTER", "SET DEADLINE Tue 18:00")
    deadline = get_game(GAME).deadline
    assert deadline is not None and deadline.weekday() == 1 and deadline.hour == 18
    assert timedelta(0) < deadline - NOW <= timedelta(days=7)


def test_a_power_in_front_as_dpjudge_writes_it() -> None:
    send("ENGLAND", "ENGLAND: F EDI - NWG\nE) F LON - NTH")
    assert {"F EDI - NWG", "F LON - NTH"} <= set(orders(GAME, "ENGLAND"))
    send("MASTER", "[AUSTRIA]\nA VIE - GAL\nA BUD - SER")
    assert {"A VIE - GAL", "A BUD - SER"} <= set(orders(GAME, "AUSTRIA"))
    answer = said(send("FRANCE", "ENGLAND: F EDI - NWG"))
    assert "written for ENGLAND" in answer and "F EDI - NWG" not in orders(GAME, "FRANCE")


def test_the_master_writing_set_draw_is_told_of_declare_draw() -> None:
    answer = said(send("MASTER", "SET DRAW"))
    assert "DECLARE DRAW" in answer and Ballot.select().count() == 0


def test_map_with_a_picture_format_sends_the_picture() -> None:
    ctx = send("ITALY", "MAP vets gif")
    assert "follows in its own mail" in said(ctx) and "MAP vets" in said(ctx)
    assert len(ctx.outgoing) == 1

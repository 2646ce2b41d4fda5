"""Issue 53 point 6: answers a player can read. Every mail template of templates/ is
rendered with representative data (long enough that the judge's refilling of lines
breaks them) and passed through that refilling as the mail would be; then:

- no order is broken across two lines ("A PAR -" at the end of one, "BUR" at the start
  of the next);
- a line that begins a statement in the template (a verdict "ok:" or "ERROR:", an item
  "- ...", a label "still without orders: ...", a rules flag "NAME: ...") still begins a
  line of the mail, never run onto the end of the line above;
- no "1 units", no "a adjustment";
- no line longer than 78 characters but a single word that cannot be broken.

The answers themselves (reply.txt.j2) are made by the real commands in a real game: a
long echo, NO_CHECK's several orders with what is still missing and the warnings, HELP
RULES, a CLEAR of many orders."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace as N
from typing import Any

import pytest
from helpers.joining import execute_confirming

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.run import reply_text
from mailjudge.config.paths import TEMPLATES_DIR
from mailjudge.outbound.message import MAX_LINE, wrapped
from mailjudge.render import environment, render
from mailjudge.render.ready_block import PowerBlock, UnitLines, ready_block
from mailjudge.store.health import Problem

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
ORDERS = ("A PAR - BUR, A MAR S A PAR - BUR, F BRE - MAO, A MUN - RUH, F KIE - DEN, "
          "F STP/SC - BOT, A WAR - GAL, F SEV - BLA, A VIE - TRI")  # fmt: skip
LONG = ("the deadline and its grace have passed and the judge waits for the orders of "
        "these powers, which are long in coming: A PAR - BUR and F BRE - MAO are the last "
        "the master saw")  # fmt: skip
GAME = N(name="longgamename", phase="S1901M", variant="standard")
SEAT = N(name="france", powers="FRANCE", role="player", centre="par")
DEADLINE = ["Deadline: Mon 2026-12-14 12:00 UTC (in your zone: Mon 2026-12-14 13:00 CET)",
            "The grace period after it runs to Tue 2026-12-15 12:00 UTC."]  # fmt: skip
READY = ready_block("france@longgamename", "Spring 1901 movement", [
    PowerBlock("FRANCE", (
        UnitLines(("A PAR - BUR",), False, "A PAR: H, - BUR, - PIC, - GAS, S A MAR - BUR"),
        UnitLines(("F BRE H",), True, "F BRE: H, - MAO, - ENG, - PIC, - GAS"),
    ), ("1 build due: A PAR B, F BRE B or WAIVE",)),
])  # fmt: skip
WARNING = N(words=f"A MAR S A PAR - BUR: A PAR is not ordered to move to BUR (it is ordered to "
            f"hold), so the support will not count; also {ORDERS}")  # fmt: skip
PROPOSAL = N(number=2, text="\n".join(ORDERS.split(", ")), power="FRANCE")
RULEBOOK = N(version=3, text=f"1. Orders are written as {ORDERS}.\n2. {LONG}.")
RESULT = N(
    by_power={"FRANCE": ["A PAR - BUR", "F BRE - MAO (bounces)"], "GERMANY": ["A MUN - BUR"]},
    reasons=[f"A PAR - MUN: illegal: A PAR cannot reach Munich (MUN): not adjacent; {ORDERS}"],
    removed_by_rule={"CIVIL_DISORDER": ["F KIE D", "A BER D"]},
    dislodged=["A BUR (GERMANY), from MUN: may retreat to RUH, KIE, BER, SIL, BOH, TYR"],
    destroyed=["F DEN (GERMANY)"], changes=["BEL: GERMANY -> FRANCE"],
    centres=[("FRANCE", 1, "PAR", ""), ("GERMANY", 7, "BER KIE MUN HOL BEL DEN SWE", "")],
    adjustments=["FRANCE: 1 build", "GERMANY: 1 removal"], ending="", winners=[],
    pending=LONG, next_phase="Fall 1901 movement", fog=True,
)  # fmt: skip

# Representative data for each mail template (the web's pages are not mail).
CONTEXTS: dict[str, dict[str, Any]] = {
    "answers_paused.txt.j2": dict(judge="judge@example.org", limit=10, minutes=60,
                                  until="2026-12-07 13:00 UTC"),
    "bad_signon.txt.j2": dict(game=GAME, now=NOW, seat=SEAT, sender="someone@example.org"),
    "bounce_notice.txt.j2": dict(count=1, game=GAME, seat=SEAT, who="france@players.test",
                                 failure=N(recipient="france@players.test", status="5.1.1",
                                           diagnostic=f"550 {LONG}")),
    "calendar_event.txt.j2": dict(
        attendee=N(powers=["FRANCE", "ENGLAND"], seat="france"), warn=["24 hours", "2 hours"],
        event=N(cancelled="", game="longgamename", phase_label="Spring 1901 movement",
                judge="judge@example.org", link="https://judge.example.org/game/x")),
    "clock_held.txt.j2": dict(game=GAME, when="2026-12-07 12:00 UTC"),
    "confirm_address.txt.j2": dict(game=GAME, judge="judge@example.org", seat=SEAT,
                                   token="abcdef", new="new@example.org"),
    "deadline_extended.txt.j2": dict(deadline=DEADLINE, game=GAME, length="1D"),
    "deadline_outage.txt.j2": dict(began="Mon 2026-12-07 10:00 UTC",
                                   ended="Mon 2026-12-07 11:00 UTC", deadline=DEADLINE, game=GAME),
    "deadline_set.txt.j2": dict(deadline=DEADLINE, game=GAME),
    "delivery_grace.txt.j2": dict(civil=True, game=GAME, until="Tue 2026-12-15 12:00 UTC",
                                  excused={"FRANCE": LONG, "ITALY": "mail bounced"}),
    "democratic/citizen_placed.txt.j2": dict(centre="par", game=GAME, power="FRANCE",
                                             why="you are now a citizen"),
    "democratic/comment.txt.j2": dict(author="alice", game=GAME, text=ORDERS,
                                      what="order set 2"),
    "democratic/diplomats.txt.j2": dict(diplomats={"FRANCE": "alice", "ITALY": None},
                                        game=GAME, power="FRANCE", stages=[LONG, "alice: 3"]),
    "democratic/nomination.txt.j2": dict(game=GAME, nominee="alice", number=1, power="FRANCE",
                                         why=LONG),
    "democratic/orders_count.txt.j2": dict(chosen=PROPOSAL, chosen_number=2, game=GAME,
                                           power="FRANCE", stages=[LONG]),
    "democratic/proposal_orders.txt.j2": dict(game=GAME, number=2, proposal=PROPOSAL),
    "diplonomic/advisor_news.txt.j2": dict(added=True, advisor="bob", game=GAME, help=LONG,
                                           powers="FRANCE"),
    "diplonomic/assignments.txt.j2": dict(began="Mon 2026-12-07", deadline=DEADLINE[0],
                                          game=GAME, rows=[("FRANCE", "alice"), ("ITALY", "bob")]),
    "diplonomic/contestant_left.txt.j2": dict(game=GAME, powers="FRANCE", who="alice"),
    "diplonomic/draw_notice.txt.j2": dict(game=GAME, when=DEADLINE[0], winners="alice, bob"),
    "diplonomic/rulebook.txt.j2": dict(game=GAME, rulebook=RULEBOOK),
    "diplonomic/rules_enacted.txt.j2": dict(game=GAME, proposal=PROPOSAL, rulebook=RULEBOOK),
    "diplonomic/rules_published.txt.j2": dict(game=GAME, proposals=[PROPOSAL]),
    "diplonomic/rules_resolved.txt.j2": dict(
        game=GAME, majority=lambda n: n // 2 + 1, rulebook=RULEBOOK,
        resolutions=[N(proposal=PROPOSAL, votes_for=1, contestants=5, enacted=True,
                       problem=LONG)]),
    "diplonomic/static_ownership.txt.j2": dict(first=1901, game=GAME, last=1903, teammates=True),
    "diplonomic/teammate_invite.txt.j2": dict(contestant=SEAT, game=GAME, seat=SEAT),
    "diplonomic/teammate_news.txt.j2": dict(game=GAME, joined=True, powers="FRANCE",
                                            teammate=N(name="bob")),
    "double/double_joint_vote.txt.j2": dict(game=GAME, solo=18, vote=N(
        opened="Fall 1905", players=["alice", "bob"], centres=9)),
    "double/double_sync.txt.j2": dict(game=GAME, power="FRANCE", mismatches=[N(
        unit="A PAR", ordered=[("alice", "A PAR - BUR"), ("bob", "A PAR - PIC")],
        result="A PAR H")]),
    "double/double_tiebreak.txt.j2": dict(game=GAME, players="alice and bob", solo=18),
    "game_over.txt.j2": dict(game=GAME, outcome=f"a draw of FRANCE, ITALY; {LONG}"),
    "game_paused.txt.j2": dict(game=GAME),
    "game_resumed.txt.j2": dict(deadline=DEADLINE, game=GAME),
    "game_started.txt.j2": dict(country="FRANCE", deadline=DEADLINE, game=GAME,
                                joined_as="alice", ready=READY, seat=SEAT),
    "late_master.txt.j2": dict(defaults=False, game=GAME,
                               late=["FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY", "AUSTRIA"]),
    "limit_error.txt.j2": dict(judge="judge@example.org", reason=LONG),
    "map.txt.j2": dict(game=GAME, phase_name="Spring 1901 movement", png=True),
    "openings_new.txt.j2": dict(judge="judge@example.org", page="https://j.example.org/openings",
                                opening=N(title="FRANCE", game="longgamename", variant="standard",
                                          phase="Spring 1901 movement", reason=LONG,
                                          centres=["PAR", "MAR", "BRE", "BEL", "SPA", "POR"],
                                          units=ORDERS.replace(" - ", " ").split(", "),
                                          takeover="TAKEOVER france@longgamename password")),
    "openings_reopened.txt.j2": dict(game=GAME, powers=["FRANCE"]),
    "openings_replaced.txt.j2": dict(game=GAME, phase="S1901M", powers=["FRANCE"]),
    "multiseat.txt.j2": dict(game=GAME, pairs=[[
        f"FRANCE and ENGLAND: the same Message-ID host {LONG[:60]}.example.org",
        "  and the same client (Thunderbird 115.3.1), from one network (198.51.100.0/24)",
    ]]),
    "openings_taken.txt.j2": dict(deadline=DEADLINE, game=GAME, mine=False, moved="1D",
                                  powers=["FRANCE"], taker="someone",
                                  undo="UNDO TAKEOVER FRANCE", ready=READY),
    "openings_undone.txt.j2": dict(game=GAME, powers=["FRANCE"]),
    "order_warnings.txt.j2": dict(warnings=[WARNING, WARNING]),
    "password_reset.txt.j2": dict(game=GAME, now=NOW, seat=SEAT),
    "press.txt.j2": dict(answerable=True, body=f"Shall we? {ORDERS}\n", game=GAME,
                         sender="FRANCE", to_line="ENGLAND, GERMANY"),
    "proposal.txt.j2": dict(game=GAME, proposal=N(text=f"a draw; {LONG}")),
    "reminder.txt.j2": dict(deadline=DEADLINE, frozen=True, game=GAME, grace_end=DEADLINE[1],
                            kind="late", powers=["FRANCE", "GERMANY"], ready=READY),
    "results.txt.j2": dict(deadline=DEADLINE, game=GAME, header=[":: Judge: X  Game: Y"],
                           phase="S1901M", pictured=True, r=RESULT, ready=READY,
                           reprocessed=True, seat=SEAT, web_link="https://j.example.org/g"),
    "results_body.txt.j2": dict(r=RESULT),
    "rolled_back.txt.j2": dict(deadline=DEADLINE, game=GAME, phase="S1901M", ready=READY),
    "seat_removed.txt.j2": dict(game=GAME, powers=["FRANCE"], why="ejected"),
    "stalemate_asked.txt.j2": dict(deadline=DEADLINE, first=1901, game=GAME, last=1903,
                                   powers=["FRANCE", "ITALY"], seat_name="france", voter=True,
                                   years=3),
    "stalemate_refused.txt.j2": dict(game=GAME),
    "survive/survive_outcome.txt.j2": dict(forced=["ITALY"], game=GAME, is_vote=True,
                                           phase="F1903M", victor="", voted=["FRANCE"],
                                           winner=""),
    "survive/survive_victor_round.txt.j2": dict(
        candidates=["FRANCE", "ITALY"], deadline=DEADLINE, game=GAME, master_votes=True,
        phase="F1903M", voters=["GERMANY"]),
    "operator_alert.txt.j2": dict(
        judge="judge@example.org", when="2026-12-07 10:00 UTC", show=str,
        started=[Problem("relay", "the relay refuses mail", "look at outbound.host",
                         "451 4.3.0 try again later")],
        ended=[N(summary="the disk is full", started_at="2026-12-07 09:00")]),
    "operator_outage.txt.j2": dict(judge="judge@example.org", host="judge1", role="worker-0",
                                   reason="PostgreSQL cannot be used (Connection refused)",
                                   seconds=75),
    "answers_held.txt.j2": dict(judge="judge@example.org", limit=10, proven=False, same=False,
                                until="Mon 2026-12-07 11:00 UTC"),
    "calendar_note.txt.j2": dict(judge="judge@example.org",
                                 note="I am away that week, can we move it to Friday?"),
    "resigned_master.txt.j2": dict(game=GAME, power="FRANCE", powers=["FRANCE"], seat=SEAT),
    "help_choices.txt.j2": {},
    "help_standin.txt.j2": {},
}  # fmt: skip

# The words of an order, which no line may end between: those that join two parts of
# it, and those that end it.
_PROVINCE = re.compile(r"[A-Z]{3}(/[A-Z]{2})?$")
_JOINING = {"-", "->", "S", "C", "R", "VIA"}
_ENDING = {"H", "B", "D"}
# A raw line that begins a statement: a verdict, an item, an echo, or a short label
# ("still without orders:", "warnings (...):", a rules flag "NO_PRESS:").
_STATEMENT = re.compile(r"^\s*(ok\b|ERROR\b|- |>|([A-Z][A-Z_0-9]+|[a-z]+( [a-z]+){0,3})"
                        r"( \([^)]*\))?: )")  # fmt: skip
_WRONG_WORDS = re.compile(r"\b1 (units|centres|builds|removals|players|powers|phases|votes)\b"
                          r"|\ba (adjustment|army|order|hour)\b")  # fmt: skip


def _broken(above: str, below: str) -> bool:
    """Whether an order runs from the end of ``above`` into ``below``."""
    if not above.split() or not below.split():
        return False
    last, words = above.split()[-1], below.split()
    first, second = words[0], (words[1] if len(words) > 1 else "")
    province = _PROVINCE.match(first.rstrip(",;:.)")) is not None
    if last in ("A", "F") or last in _JOINING:
        return province or (last in _JOINING and first in ("A", "F"))
    if _PROVINCE.match(last):  # no comma after it: the order may go on
        if first == "-":  # an item "- A MAR ..." begins no part of an order
            return _PROVINCE.match(second.rstrip(",;:.)")) is not None
        return first in _JOINING | _ENDING
    return False


def shape_problems(raw: str) -> list[str]:
    """What is wrong with ``raw`` as the mail shows it, once refilled."""
    text = wrapped(raw)
    lines = text.split("\n")
    problems = [f"an order broken across lines: {a!r} / {b!r}"
                for a, b in pairwise(lines) if _broken(a, b)]  # fmt: skip
    starts = {line.strip()[:24] for line in lines}
    for line in raw.split("\n"):
        if _STATEMENT.match(line) and line.strip()[:24] not in starts:
            problems.append(f"a statement run onto the line above it: {line.strip()[:60]!r}")
    problems += [f"words: {m.group(0)!r}" for m in _WRONG_WORDS.finditer(text)]
    problems += [f"a line too long: {line!r}" for line in lines
                 if len(line) > MAX_LINE and " " in line.strip()]  # fmt: skip
    return problems


def mail_templates() -> list[str]:
    return sorted(str(p.relative_to(TEMPLATES_DIR)) for p in Path(TEMPLATES_DIR).rglob("*.txt.j2"))


def test_every_mail_template_has_representative_data() -> None:
    missing = set(mail_templates()) - set(CONTEXTS) - {"reply.txt.j2"}
    assert not missing, f"give these templates data in CONTEXTS: {sorted(missing)}"
    assert environment().get_template("reply.txt.j2")  # made from real answers below


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_a_template_reads_well_once_refilled(name: str) -> None:
    raw = render(name, **CONTEXTS[name])
    assert not shape_problems(raw), "\n".join([*shape_problems(raw), wrapped(raw)])


def test_the_checks_find_what_the_old_refill_did() -> None:
    """The checks themselves: each shape the issue found is caught."""
    assert _broken("ok: orders withdrawn: A PAR -", "BUR, A MAR H")
    assert _broken("the support of A", "PAR - BUR")
    assert _broken("the support of A PAR", "- BUR")
    assert not _broken("orders withdrawn: A PAR - BUR,", "A MAR H")
    assert not _broken("    F KIE D", "    A BER D")
    assert not _broken("  ... A VIE - TRI", "  - A MAR S A PAR - BUR")
    run_on = "> PRESS TO ALL BUT FM " + "x " * 40 + "\nok: press sent\n"
    assert not shape_problems(run_on)
    assert "words: '1 units'" in shape_problems("FRANCE: 1 SC, 1 units\n")
    assert "words: 'a adjustment'" in shape_problems("this is a adjustment phase\n")


pytestmark = pytest.mark.usefixtures("sqlite_db")
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


def _send(text: str, sender: str = "gm@example.org") -> str:
    # A JOIN from a new address waits for its CONFIRM (issue 52): answered at once.
    context = execute_confirming(text, sender, "judge@example.org", datetime.now(UTC))
    return reply_text(context)


def _game(name: str, rules: str) -> None:
    _send(f"CREATE {name} secret RULES {rules}")
    for n, power in enumerate(POWERS):
        _send(f"JOIN {name} pw{n} {power}", f"p{n}@example.org")


def test_the_answers_read_well_once_refilled() -> None:
    """Real answers: a long echo and its verdict, NO_CHECK's several orders for a unit with
    the units still without orders and the warnings, HELP RULES, a CLEAR of many orders,
    an order refused in an adjustment phase's words."""
    _game("nocheck", "POWER_CHOICE NO_CHECK")
    _game("plain", "POWER_CHOICE")
    france = "p2@example.org"
    answers = [
        _send("SIGNON france@nocheck pw2\nA PAR - BUR\nA PAR - PIC\nA MAR S A PAR - GAS", france),
        _send("SIGNON france@plain pw2\nPRESS TO ALL BUT FM " + "GREY " * 14
              + "\nNot for you two.\nENDPRESS", france),
        _send("SIGNON france@plain pw2\nHELP RULES", france),
        _send("SIGNON france@plain pw2\nA PAR - BUR, A MAR S A PAR - BUR, F BRE - MAO\nCLEAR",
              france),
        _send("SIGNON france@plain pw2\nA MAR S A PAR - BUR\nA PAR H", france),
        _send("SIGNON england pw1\nF LON - NTH", "p1@example.org"),
    ]  # fmt: skip
    for answer in answers:
        assert not shape_problems(answer), "\n".join([*shape_problems(answer), wrapped(answer)])
    nocheck, press, rules, clear, warned, signon = (wrapped(a) for a in answers)
    for line in ("still without orders: F BRE", "warnings (", "- F BRE has no order"):
        assert re.search(rf"\n +{re.escape(line)}", nocheck), nocheck
    assert "\nok: press sent to" in press
    assert re.search(r"\n +NO_PRESS: ", rules) and re.search(r"\n +NO_CHECK: ", rules)
    assert "A PAR - BUR, A MAR S A PAR - BUR" in " ".join(clear.split())
    assert re.search(r"\n +warnings \(", warned)
    assert "SIGNON england@game password" in signon and "'ngland'" not in signon

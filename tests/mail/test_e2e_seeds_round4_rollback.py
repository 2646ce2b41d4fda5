"""Issue 59, point 3, by mail on SQLite and on PostgreSQL: a ROLLBACK puts back everything
the phases after it changed, and nothing else: orders sent ahead with PHASE, each Double
partner's own orders, Survive's votes and who was voted out, Diplonomic's enacted rules
text and its versions. A ROLLFORWARD then replays the phases as they were."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, POWERS, Harness, player, seated, secret, text_of

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import OrderLine


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def master(h: Harness, game: str, text: str) -> str:
    return flat(h.command(MASTER, f"SIGNON M{game} masterpw\n{text}"))


def say(h: Harness, game: str, power: str, text: str) -> str:
    return flat(h.command(player(power), f"SIGNON {power.lower()}@{game} {secret(power)}\n{text}"))


def _ahead(game: str, phase: str) -> dict[str, list[str]]:
    rows = OrderLine.select().where((OrderLine.game == get_game(game)) & (OrderLine.phase == phase))
    found: dict[str, list[str]] = {}
    for row in rows.order_by(OrderLine.power, OrderLine.line):
        found.setdefault(row.power, []).append(row.text)
    return found


def test_orders_sent_ahead_come_back_with_a_rollback(harness_any_db: Harness) -> None:
    """SPEC 6: "Every processed phase is kept (position, orders, who submitted them,
    results), so ROLLBACK to any earlier phase and ROLLFORWARD ... are exact", and seed
    001, SOLITAIRE: "Use ROLLBACK and ROLLFORWARD to undo and redo phases". France's
    orders for the Fall, sent ahead in the Spring with PHASE, were on file when the Spring
    was processed: a ROLLBACK to the Spring puts them back, so the Fall played again
    starts with them, as the first time."""
    h = harness_any_db
    table = seated(h, "ahead")
    table.sign_on("POWER_CHOICE ALWAYS_WAIT")
    sent = say(h, "ahead", "FRANCE", "A PAR - BUR\nPHASE Fall 1901 Movement\nA MAR - PIE")
    assert "ERROR" not in sent, sent
    assert _ahead("ahead", "F1901M") == {"FRANCE": ["A MAR - PIE"]}
    assert "processed" in master(h, "ahead", "PROCESS!")
    h.wait_until(lambda: get_game("ahead").phase == "F1901M")
    assert "rolled back to S1901M" in master(h, "ahead", "ROLLBACK")
    assert _ahead("ahead", "F1901M") == {"FRANCE": ["A MAR - PIE"]}
    assert _ahead("ahead", "S1901M") == {"FRANCE": ["A PAR - BUR"]}
    assert "processed" in master(h, "ahead", "PROCESS!")
    h.wait_until(lambda: get_game("ahead").phase == "F1901M")
    status = say(h, "ahead", "FRANCE", "STATUS")
    assert "A MAR - PIE" in status, status


RING = [f"pair{i}" for i in range(7)]


def _double_game(h: Harness, name: str) -> dict[str, str]:
    """A plain Double game (ALWAYS_WAIT: the master processes); its seat -> address."""
    assert "created" in h.command(
        MASTER, f"CREATE {name} masterpw VARIANT double RULES ALWAYS_WAIT"
    )
    for who in RING:
        assert "you joined" in h.command(f"{who}@players.test", f"JOIN {name} pw-{who} AS {who}")
    h.wait_until(lambda: get_game(name).state == "active")
    started = f"[{name}] the game has started"
    h.wait_until(lambda: len([m for m in h.sink.mails if m.subject == started]) == 8)
    at: dict[str, str] = {}
    for mail in h.sink.mails:
        told = re.search(rf"Sign on with: SIGNON ([\w-]+)@{name}", text_of(mail.message))
        if mail.subject == started and told:
            at[told.group(1)] = mail.rcpt_tos[0]
    return at


def test_each_double_partner_gets_their_own_orders_back(harness_any_db: Harness) -> None:
    """Seed 004: "there are always two sets of orders for each power submitted ... The GM
    will only execute those orders which 'synchronize'. ... First he will 'sync' all the
    orders, giving all units not in sync the hold order." The two sets are the players';
    the synchronised result is the GM's. A ROLLBACK gives each partner back their own set
    (england-turkey's F LON - NTH, austria-england's F LON - ENG), not the result (F LON
    H); when austria-england then agrees, F LON - NTH is in sync and moves."""
    h = harness_any_db
    at = _double_game(h, "dbl4")

    def as_seat(seat: str, text: str) -> str:
        who = at[seat]
        return flat(h.command(who, f"SIGNON {seat}@dbl4 pw-{who.split('@')[0]}\n{text}"))

    assert "F LON - NTH" in as_seat("england-turkey", "F LON - NTH")
    assert "F LON - ENG" in as_seat("austria-england", "F LON - ENG")
    assert "processed" in master(h, "dbl4", "PROCESS!")
    h.wait_until(lambda: get_game("dbl4").phase == "F1901M")
    assert "rolled back to S1901M" in master(h, "dbl4", "ROLLBACK")
    mine = as_seat("england-turkey", "STATUS")
    theirs = as_seat("austria-england", "STATUS")
    assert "F LON - NTH" in mine and "F LON - ENG" not in mine, mine
    assert "F LON - ENG" in theirs and "F LON - NTH" not in theirs, theirs
    assert "F LON H" not in mine + theirs
    assert "F LON - NTH" in as_seat("austria-england", "F LON - NTH")
    assert "processed" in master(h, "dbl4", "PROCESS!")
    h.wait_until(lambda: get_game("dbl4").phase == "F1901M")
    units = {u["loc"] for u in get_game("dbl4").position["units"] if u["power"] == "ENGLAND"}
    assert "nth" in units and "lon" not in units, units


def _survive_at_f1902(h: Harness, name: str) -> None:
    assert "created" in h.command(
        MASTER, f"CREATE {name} masterpw VARIANT survive RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {name} {secret(power)} {power}")
    h.wait_until(lambda: get_game(name).state == "active")
    game = get_game(name)
    start = game.position
    game.phase = "F1902M"
    game.position = {**start, "phase": "F1902M"}
    game.save()


def _hold_all(h: Harness, name: str) -> None:
    game = get_game(name)
    for power in POWERS:
        units = [u for u in game.position["units"] if u["power"] == power]
        holds = "\n".join(f"{u['type']} {u['loc'].upper()} H" for u in units)
        assert "ERROR" not in say(h, name, power, holds)


BALLOTS = {
    "AUSTRIA": "VOTE OUT TURKEY 3",
    "ENGLAND": "VOTE OUT TURKEY 3",
    "FRANCE": "VOTE OUT TURKEY 3",
    "GERMANY": "VOTE OUT TURKEY 3",
    "ITALY": "VOTE OUT TURKEY 3",
    "RUSSIA": "VOTE OUT TURKEY 4",
    "TURKEY": "VOTE OUT RUSSIA 3",
}


def test_a_rollback_across_a_survive_vote_holds_the_vote_again(harness_any_db: Harness) -> None:
    """Seed 002, rules 1 and 3: "At the end of every even year (F1902, F1904, etc.) during
    adjustments, players will vote one power out of the game." and "Players distribute
    their votes ... via 'press to m'". A ROLLBACK to F1902M undoes the W1902A vote and
    Turkey's going out: when F1902M is played again the adjustments wait for new ballots
    (the old ones are not counted again at the first mail), Turkey plays on until then,
    and the new vote puts Russia out instead."""
    h = harness_any_db
    name = "surv4"
    _survive_at_f1902(h, name)
    _hold_all(h, name)
    h.wait_until(lambda: get_game(name).phase == "W1902A")
    for power, ballot in BALLOTS.items():
        assert "vote-out ballot recorded" in say(h, name, power, ballot)
    h.wait_until(lambda: get_game(name).phase == "S1903M", what="the vote")
    assert "TURKEY is out of the game" in say(h, name, "TURKEY", "A CON H")
    assert "rolled back to F1902M" in master(h, name, "ROLLBACK F1902M")
    # The first new mail, Turkey's (it plays again): every order is on file again, so
    # F1902M is played at once...
    assert "ERROR" not in say(h, name, "TURKEY", "A CON H")
    h.wait_until(lambda: get_game(name).phase == "W1902A")
    # ... and the vote waits for ballots of its own.
    status = say(h, name, "FRANCE", "STATUS")
    assert get_game(name).phase == "W1902A", status
    assert "ERROR" not in say(h, name, "TURKEY", "VOTE OUT RUSSIA 3")
    assert get_game(name).phase == "W1902A"
    for power in POWERS:
        if power not in ("RUSSIA", "TURKEY"):
            assert "vote-out ballot recorded" in say(h, name, power, "VOTE OUT RUSSIA 3")
    assert "vote-out ballot recorded" in say(h, name, "RUSSIA", "VOTE OUT TURKEY 4")
    h.wait_until(lambda: get_game(name).phase == "S1903M", what="the vote held again")
    assert "RUSSIA is out of the game" in say(h, name, "RUSSIA", "A MOS H")
    assert "ERROR" not in say(h, name, "TURKEY", "A CON H")
    notices = [m for m in h.sink.mails if m.subject == f"[{name}] vote-out W1902A"]
    assert "RUSSIA is voted out." in text_of(notices[-1].message)


NOMIC_RULES = """\
1. Contestants play the standard map.

7. Contestants may seek the assistance of non-Contestants.
"""
AMENDMENT = "AMEND RULE 1 APPEND {Press is public.}"


def test_a_rollback_across_an_enacted_rule_puts_the_old_rules_back(
    harness_any_db: Harness,
) -> None:
    """Seed 003, rule 8: "The judge CAN and SHALL resolve all proposals on which voting
    closed at the end of the previous turn, before the next turn, but only after resolving
    moves and unit adjustments for that turn. ... If the text of the rules changes, the
    Judge SHALL publish the new rules text". The proposal enacted when F1901 was resolved
    is undone by a ROLLBACK to F1901M: the rules are version 1 again, the vote is open as
    it stood, and a contestant who changes their vote there leaves the proposal failed."""
    h = harness_any_db
    name = "nomic4"
    assert "created" in h.command(
        MASTER, f"CREATE {name} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    assert "rules version 1 stored" in master(h, name, f"RULEBOOK\n{NOMIC_RULES}END")
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {name} {secret(power)} {power}")
    h.wait_until(lambda: get_game(name).state == "active")
    assert "proposal 1 received" in say(h, name, "FRANCE", f"PROPOSAL RULES\n{AMENDMENT}\nEND")
    assert "processed" in master(h, name, "PROCESS")
    h.wait_until(lambda: get_game(name).phase == "F1901M")
    for power in ("ENGLAND", "FRANCE", "GERMANY", "ITALY"):
        assert "is recorded" in say(h, name, power, "VOTE PROPOSAL 1 FOR")
    assert "processed" in master(h, name, "PROCESS")
    h.wait_until(lambda: get_game(name).phase == "S1902M")
    rules = flat(h.command("anyone@example.test", f"RULES {name}"))
    assert "version 2" in rules and "Press is public." in rules, rules

    assert "rolled back to F1901M" in master(h, name, "ROLLBACK F1901M")
    rules = flat(h.command("anyone@example.test", f"RULES {name}"))
    assert "version 1" in rules and "Press is public." not in rules, rules
    assert "has rules versions 1 to 1, not 2" in flat(
        h.command("anyone@example.test", f"RULES {name} 2")
    )
    # ROLLFORWARD replays the Fall: the game is back where it was, the rule in force.
    assert "rolled forward 1 phase" in master(h, name, "ROLLFORWARD")
    rules = flat(h.command("anyone@example.test", f"RULES {name}"))
    assert "version 2" in rules and "Press is public." in rules, rules
    assert "rolled back to F1901M" in master(h, name, "ROLLBACK F1901M")
    assert "is recorded" in say(h, name, "ITALY", "VOTE PROPOSAL 1 AGAINST")
    assert "processed" in master(h, name, "PROCESS")
    h.wait_until(lambda: get_game(name).phase == "S1902M")
    rules = flat(h.command("anyone@example.test", f"RULES {name}"))
    assert "version 1" in rules and "Press is public." not in rules, rules
    resolved = [m for m in h.sink.mails if "rule changes resolved" in m.subject]
    again = flat(text_of(resolved[-1].message))
    assert "Proposal 1: 3 votes in favour, of 7 contestants (4 needed). Not enacted." in again


def test_rollforward_replays_what_the_rollback_undid(harness_any_db: Harness) -> None:
    """SPEC 6: ROLLBACK and ROLLFORWARD "are exact". After a ROLLBACK across orders sent
    ahead, ROLLFORWARD re-adjudicates the stored Spring and comes back to the Fall with
    the orders that were on file when the master rolled back (France's, sent ahead)."""
    h = harness_any_db
    table = seated(h, "fwd")
    table.sign_on("POWER_CHOICE ALWAYS_WAIT")
    assert "ERROR" not in say(h, "fwd", "FRANCE", "PHASE F1901M\nA MAR - PIE")
    assert "processed" in master(h, "fwd", "PROCESS!")
    h.wait_until(lambda: get_game("fwd").phase == "F1901M")
    assert "ERROR" not in say(h, "fwd", "ENGLAND", "F LON - NTH")
    assert "rolled back to S1901M" in master(h, "fwd", "ROLLBACK")
    assert "rolled forward 1 phase" in master(h, "fwd", "ROLLFORWARD")
    assert get_game("fwd").phase == "F1901M"
    filed = {p: [x.text for x in lines] for p, lines in orders_on_file(get_game("fwd")).items()}
    assert filed == {"FRANCE": ["A MAR - PIE"], "ENGLAND": ["F LON - NTH"]}, filed

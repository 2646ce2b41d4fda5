"""Issue 39, round three of the seeds by mail: a late Democratic JOIN mails only the one who
joined and its country's list (seed 000), NO_OBSERVATIONS and SOLITAIRE closed to watchers
(seed 001), SOLITAIRE only at creation (seed 001), and the choices the seeds leave open."""

from __future__ import annotations

import re

from e2e import MASTER, POWERS, Harness, join_by_mail, player, seated, secret

from mailjudge.demo.sink import Received
from mailjudge.service.state import get_game

DEM = "late3"
CITIZENS = [f"c{i:02d}" for i in range(22)]  # one to each home centre


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def address(name: str) -> str:
    return f"{name}@citizens.test"


def subjects(h: Harness, part: str) -> list[Received]:
    return [m for m in h.sink.mails if part in m.message["Subject"]]


def test_late_democratic_join_mails_the_joiner_and_its_list_once(harness: Harness) -> None:
    """Seed 000: "This variant allows an unlimited number of players to play", and Setup
    Rule 2: "Add each citizen to their country's mailing list or chat room." A citizen who
    joins a running game is told its country once the address is confirmed, and its
    country's list hears of it once; the other citizens get no new "has started" mail."""
    h = harness
    assert "created" in h.command(MASTER, f"CREATE {DEM} masterpw VARIANT democratic")
    for name in CITIZENS:
        assert "you joined" in join_by_mail(h, address(name), f"JOIN {DEM} pw-{name} AS {name}")
    assert "has started" in h.command(MASTER, f"SIGNON M{DEM} masterpw\nSTART")
    h.wait_until(lambda: len(subjects(h, "has started")) >= len(CITIZENS))
    started_before = len(subjects(h, "has started"))

    newcomer = address("late")
    reply = flat(h.command(newcomer, f"JOIN {DEM} pw-late AS late"))
    token = re.search(r"CONFIRM (\w+)", reply)
    assert token is not None, reply
    assert len(subjects(h, "has started")) == started_before  # nothing until it confirms
    assert "you are a citizen" in h.command(newcomer, f"CONFIRM {token.group(1)}")
    h.wait_until(lambda: subjects(h, "new citizen: late"), what="the list's one notice")
    started = subjects(h, "has started")[started_before:]
    assert [m.rcpt_tos for m in started] == [[newcomer]]
    assert "You are a citizen of" in flat(started[0].message.get_payload(decode=True).decode())
    notices = subjects(h, "new citizen: late")
    assert len(notices) == 1
    assert newcomer in notices[0].rcpt_tos and len(notices[0].rcpt_tos) >= 2


STRANGER = "stranger@elsewhere.test"


def mails_to(h: Harness, address: str) -> int:
    return sum(1 for m in h.sink.mails if address in m.rcpt_tos)


def test_no_observations_game_is_read_only_by_its_own_seats(harness: Harness) -> None:
    """Seed 001, NO_OBSERVATIONS: "If this rule is used, no observers are allowed for the
    game. Note that game masters can still observe the game as omniscient observers even if
    this rule is present." A stranger reads neither SUMMARY, HISTORY nor MAP (no board is
    mailed); the game's players and master do."""
    h = harness
    table = seated(h, "closed")
    table.sign_on("POWER_CHOICE NO_OBSERVATIONS")
    before = mails_to(h, STRANGER)
    for command in ("SUMMARY closed", "HISTORY closed", "MAP closed"):
        reply = flat(h.command(STRANGER, command))
        assert "closed is closed to watchers (NO_OBSERVATIONS)" in reply, reply
        assert "only its own seats read" in reply
    assert mails_to(h, STRANGER) == before + 3  # the three replies, and no board
    assert "no observers" in flat(h.command(STRANGER, "OBSERVE peek@closed pw-peek"))
    # A seat of another game is a stranger here too.
    other = seated(h, "open")
    other.sign_on("POWER_CHOICE")
    reply = flat(h.command(player("FRANCE"), f"{other.signon('FRANCE')}\nSUMMARY closed"))
    assert "closed to watchers" in reply
    # The game's own seats read it.
    reply = flat(table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSUMMARY closed"))
    assert "FRANCE 3 centres" in reply, reply
    before = mails_to(h, player("FRANCE"))
    reply = table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nMAP closed")
    assert "follows in its own mail" in reply
    h.wait_until(lambda: mails_to(h, player("FRANCE")) == before + 2, what="the board mail")
    reply = flat(h.command(MASTER, "SIGNON Mclosed masterpw\nHISTORY closed"))
    assert "closed: no phases played yet" in reply, reply


def test_solitaire_game_is_private_to_its_privacy_password(harness: Harness) -> None:
    """Seed 001, SOLITAIRE: "A PRIVACY password will be automatically assigned, because
    these are typically private games." The privacy password is the one the master created
    the game with: a stranger neither reads the game nor OBSERVEs it without it; whoever
    holds it may OBSERVE, and then reads it."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE sol masterpw RULES SOLITAIRE")
    for command in ("SUMMARY sol", "HISTORY sol", "MAP sol"):
        reply = flat(h.command(STRANGER, command))
        assert "sol is closed to watchers (SOLITAIRE)" in reply, reply
        assert "OBSERVE it with its privacy password" in reply
    reply = flat(h.command(STRANGER, "OBSERVE peek@sol guessed-pw"))
    assert "sol is a SOLITAIRE game, private: OBSERVE it with its privacy password" in reply
    assert "CONFIRM" not in reply
    reply = h.command(STRANGER, "OBSERVE peek@sol masterpw")
    token = re.search(r"CONFIRM (\w+)", reply)
    assert token is not None, reply
    assert "you observe sol" in h.command(STRANGER, f"CONFIRM {token.group(1)}")
    reply = flat(h.command(STRANGER, "SIGNON peek@sol masterpw\nSUMMARY sol"))
    assert "FRANCE 3 centres" in reply, reply


def test_solitaire_is_a_rule_of_game_creation(harness: Harness) -> None:
    """Seed 001, SOLITAIRE: "After allowing the game to form, all powers will become
    dummies and the game starts immediately. The FORMING phase simply gets skipped. Make
    sure to have all relevant rules in place during preparation or when creating the
    game." Set mid-game it would leave players ordering and no dummies: the master's SET
    RULE and a Diplonomic proposal are refused with the reason; nor may it be lifted."""
    h = harness
    table = seated(h, "run")
    table.sign_on("POWER_CHOICE")
    reply = flat(h.command(MASTER, "SIGNON Mrun masterpw\nSET RULE +SOLITAIRE"))
    assert "SOLITAIRE cannot be set once the game exists: it is a rule of game creation" in reply
    assert "CREATE game password RULES SOLITAIRE" in reply
    assert "SOLITAIRE" not in str(get_game("run").rules)
    assert "NO_PRESS" in flat(h.command(MASTER, "SIGNON Mrun masterpw\nSET RULE +NO_PRESS"))

    assert "created" in h.command(MASTER, "CREATE puzzle masterpw RULES SOLITAIRE")
    reply = flat(h.command(MASTER, "SIGNON Mpuzzle masterpw\nSET RULE -SOLITAIRE"))
    assert "SOLITAIRE cannot be lifted once the game exists" in reply
    assert "SOLITAIRE" in str(get_game("puzzle").rules)

    assert "created" in h.command(
        MASTER, "CREATE dip masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN dip {secret(power)} {power}")
    h.wait_until(lambda: get_game("dip").state == "active")
    reply = flat(h.command(
        player("ITALY"), f"SIGNON italy@dip {secret('ITALY')}\nPROPOSAL RULES\nSET RULE +SOLITAIRE\nEND"
    ))  # fmt: skip
    assert "SOLITAIRE cannot be set once the game exists" in reply, reply
    assert "proposal 1 received" not in reply

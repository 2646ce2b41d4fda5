"""Issue 35, point 2, played by mail through the SMTP listener: under STANDIN a player
going away sets SET STANDIN ON and SET ABSENCE, another power never orders, and at the
deadline the stand-in orders both; the results mark its orders (stand-in), and so does
HISTORY; STANDIN ORDERS shows anyone what it would order (issue 55). A game without STANDIN
refuses SET STANDIN and says why; an observer may not set it; HELP STANDIN explains it,
with how to recompute its orders."""

from __future__ import annotations

import re
from datetime import timedelta

from helpers.e2e import Harness, seated, text_of

from mailjudge.engine.maps import load_map
from mailjudge.engine.standin import standin_texts
from mailjudge.engine.state import initial_position
from mailjudge.game.state import get_game
from mailjudge.store.models import Game, Seat, utcnow

GMAP = load_map("standard")
HOLDS = {
    "AUSTRIA": ["A VIE H", "A BUD H", "F TRI H"],
    "ENGLAND": ["F LON H", "F EDI H", "A LVP H"],
    "GERMANY": ["A BER H", "A MUN H", "F KIE H"],
    "RUSSIA": ["A MOS H", "A WAR H", "F SEV H", "F STP/SC H"],
    "TURKEY": ["A CON H", "A SMY H", "F ANK H"],
}


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_stand_in_orders_an_absent_player_and_a_silent_power(harness: Harness) -> None:
    h = harness
    table = seated(h, "stood")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER STANDIN")
    deadline = get_game("stood").deadline
    today = utcnow().date()
    away = f"SET ABSENCE {today - timedelta(days=1)} TO {today + timedelta(days=3)}"
    reply = flat(
        table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSET STANDIN ON\n{away}")
    )
    assert "the stand-in orders for FRANCE" in reply and "absence noted" in reply, reply
    # With the stand-in asked for, the absence does not move the deadline.
    assert get_game("stood").deadline == deadline
    assert Seat.get((Seat.game == get_game("stood")) & (Seat.name == "france")).standin
    status = flat(table.say(table.master, "SIGNON Mstood masterpw\nSTATUS"))
    assert "FRANCE: stand-in: on" in status, status
    # Anyone may ask what it would order now: the same lines it will give (issue 55).
    now = initial_position(GMAP)
    shown = h.command("curious@fans.test", "STANDIN ORDERS stood FRANCE")
    assert "the stand-in (plays) under its STANDIN rule, stood S1901M:" in shown, shown
    for line in standin_texts(GMAP, now, ["FRANCE"], "stood")["FRANCE"]:
        assert f"    {line}" in shown, shown
    assert "seed: stood:S1901M:POWER" in shown and "ITALY" not in shown
    unknown = flat(h.command("curious@fans.test", "STANDIN ORDERS stood KLINGON"))
    assert "ERROR" in unknown and "stood has no power KLINGON" in unknown, unknown
    for power, lines in HOLDS.items():
        table.send_orders(power, lines)
    # France is away with its stand-in: only Italy, which never orders, is waited for.
    assert get_game("stood").phase == "S1901M"
    past = utcnow() - timedelta(minutes=5)
    Game.update(deadline=past, next_reminder_at=past).where(Game.name == "stood").execute()
    h.judge.clock_tick()
    h.wait_until(lambda: len(table.results("S1901M")) == 8, what="the S1901M results")
    results = flat(text_of(table.results("S1901M")[0].message))
    expected = standin_texts(GMAP, initial_position(GMAP), ["FRANCE", "ITALY"], "stood")
    for power in ("FRANCE", "ITALY"):
        assert len(expected[power]) == 3
        for order in expected[power]:
            mark = re.escape(order) + r"( \(\*[a-z ]+\*\))? \(stand-in\)"
            assert re.search(mark, results), (order, results)
    assert "F LON H (stand-in)" not in results and "F LON H" in results
    assert results.count("(stand-in)") == 6
    assert "[default]" not in results  # nobody was left to the defaults
    history = flat(h.command("reader@fans.test", "HISTORY stood S1901M"))
    assert history.count("(stand-in)") == 6, history


def test_set_standin_is_refused_without_the_rule_and_to_observers(harness: Harness) -> None:
    h = harness
    plain = seated(h, "plain")
    plain.sign_on()
    refused = flat(h.command(plain.players["ENGLAND"].address,
                             f"{plain.signon('ENGLAND')}\nSET STANDIN ON"))  # fmt: skip
    assert "ERROR" in refused and "no STANDIN rule" in refused, refused
    assert "SET RULE +STANDIN" in refused
    assert not Seat.get((Seat.game == get_game("plain")) & (Seat.name == "england")).standin

    table = seated(h, "watched")
    table.sign_on("POWER_CHOICE STANDIN")
    watcher = "watcher@fans.test"
    token = re.search(r"CONFIRM (\w+)", h.command(watcher, "OBSERVE watcher@watched secretw"))
    assert token is not None
    assert "you observe watched" in h.command(watcher, f"CONFIRM {token.group(1)}")
    denied = flat(h.command(watcher, "SIGNON watcher@watched secretw\nSET STANDIN ON"))
    assert "ERROR" in denied and "only a player with a power may have a stand-in" in denied
    wrong = flat(h.command(table.players["GERMANY"].address,
                           f"{table.signon('GERMANY')}\nSET STANDIN MAYBE"))  # fmt: skip
    assert "write SET STANDIN ON, or SET STANDIN OFF" in wrong
    off = flat(h.command(table.players["GERMANY"].address,
                         f"{table.signon('GERMANY')}\nSET STANDIN OFF"))  # fmt: skip
    assert "no stand-in" in off and "ERROR" not in off


def test_help_standin_explains_the_stand_in(harness: Harness) -> None:
    answer = flat(harness.command("curious@fans.test", "HELP STANDIN"))
    assert "The stand-in (the STANDIN rule)" in answer
    assert "never negotiates and never sends press" in answer
    assert "SET STANDIN ON" in answer and "(stand-in)" in answer
    rules = flat(harness.command("curious@fans.test", "HELP RULES"))
    assert "STANDIN: a silent power is played by the judge's stand-in" in rules
    assert "STANDIN_CARETAKER: the stand-in is a caretaker" in rules, rules
    assert 'SHA-256 of the text GAME:PHASE:POWER, for example "mygame:F1902M:FRANCE"' in answer
    assert "STANDIN ORDERS game [power] prints what it would order now" in answer

"""The words a player reads (issue 16, point 7): STATUS names the player's own builds,
adjustment results list every power, the reply's last line counts right, SIGNON, JOIN and
CREATE say what a newcomer needs to know."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from helpers.boards import position
from helpers.joining import execute_confirming

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.base import Context
from mailjudge.commands.run import reply_text
from mailjudge.game.state import get_game

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


def send(text: str, sender: str = "gm@example.org") -> Context:
    return execute_confirming(text, sender, "judge@example.org", NOW)


def winter_game() -> None:
    """A game in Winter 1901 where ITALY has one build (NAP and ROM free), FRANCE one
    removal, and the others nothing to do."""
    send("CREATE words secret RULES POWER_CHOICE")
    for i, power in enumerate(POWERS):
        send(f"JOIN words pw{i} {power}", f"p{i}@example.org")
    game = get_game("words")
    game.position = position(
        "W1901A",
        ["ITALY A ven", "ITALY F tun", "ITALY A apu", "FRANCE A par", "FRANCE A bur",
         "FRANCE F mao", "ENGLAND F lon"],
        {"ven": "ITALY", "rom": "ITALY", "nap": "ITALY", "tun": "ITALY", "par": "FRANCE",
         "bre": "FRANCE", "lon": "ENGLAND"},
    )  # fmt: skip
    game.phase = "W1901A"
    game.save()


def test_status_in_winter_names_the_players_own_builds() -> None:
    winter_game()
    italy = reply_text(send("SIGNON italy@words pw4\nSTATUS", "p4@example.org"))
    assert "missing: 1 build (A NAP B, A ROM B, or WAIVE)" in italy
    assert "PAR" not in italy and "BRE" not in italy
    france = reply_text(send("SIGNON france@words pw2\nSTATUS", "p2@example.org"))
    assert "missing: 1 removal (A BUR D, for instance)" in france


def test_adjustment_results_list_every_power() -> None:
    winter_game()
    send("SIGNON france@words pw2\nA BUR D", "p2@example.org")
    ctx = send("SIGNON Mwords secret\nPROCESS!")
    results = next(o for o in ctx.outgoing if o.kind == "results")
    assert "ITALY:\n    1 build not used (waived)" in results.body
    assert "FRANCE:\n    A BUR D" in results.body
    assert "ENGLAND:\n    no builds or removals due" in results.body
    assert "AUSTRIA:" not in results.body  # no centres and no units: out of the game


def test_the_reply_counts_errors_as_a_person_would() -> None:
    winter_game()
    one = reply_text(send("SIGNON france@words wrong", "p2@example.org"))
    assert "1 of 1" not in one and "The command had an error" in one
    two = reply_text(send("SIGNON france@words pw2\nSET ZONE Mars/Olympus", "p2@example.org"))
    assert "1 of 2 commands had errors; the others were done." in two


def test_signon_join_and_create_say_what_a_newcomer_needs() -> None:
    created = reply_text(send("CREATE fresh secret RULES POWER_CHOICE"))
    assert "JOIN fresh password FRANCE" in created and "never send them yours" in created
    signed = reply_text(send("SIGNON Mfresh secret"))
    assert "(forming)" in signed and "forming, forming" not in signed
    chosen = reply_text(send("JOIN fresh pw ITALY", "p4@example.org"))
    assert "you will play ITALY when the game starts" in chosen
    send("CREATE dealt secret")
    dealt = reply_text(send("JOIN dealt pw", "p5@example.org"))
    assert "your power is dealt when the game starts" in dealt

"""The rules flags of seed 001 as a player meets them by mail: NO_DIAS endings,
CIVIL_DISORDER (late changes, the master's PROCESS, removals by rule) and NO_CHECK."""

from __future__ import annotations

from e2e import POWERS, Harness, seated

from mailjudge.demo.table import Table
from mailjudge.service.games import get_game


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def _vote_all(table: Table, ballots: dict[str, str]) -> str:
    reply = ""
    for power, ballot in ballots.items():
        reply = table.say(table.players[power], f"{table.signon(power)}\nVOTE {ballot}")
    return flat(reply)


def test_no_dias_all_loss_is_a_draw_of_all_survivors(harness: Harness) -> None:
    """Seed 001, NO_DIAS: "Note that if all players are ever found to be voting for a result
    that does NOT include their own power, a draw shared among all surviving powers will be
    declared." """
    table = seated(harness, "nd")
    table.sign_on("POWER_CHOICE NO_DIAS")
    last = _vote_all(table, {power: "LOSS" for power in POWERS})
    assert "all votes agree: draw austria england france germany italy russia turkey" in last
    assert get_game("nd").outcome == "DRAW " + " ".join(POWERS)


def test_no_dias_mixes_of_n_solo_and_loss(harness: Harness) -> None:
    """Seed 001, NO_DIAS: "each player may vote either for the maximum size of a draw that he
    will accept which must include his power, or for a solo victory by his power, or for ANY
    result that does NOT include his power." The one result all ballots allow is shared by
    the powers not voting LOSS."""
    table = seated(harness, "mix")
    table.sign_on("POWER_CHOICE NO_DIAS")
    # Two SOLO ballots: no result is a solo of both, so the game goes on.
    ballots = {power: "LOSS" for power in POWERS} | {"FRANCE": "SOLO", "ITALY": "SOLO"}
    assert "votes are secret" in _vote_all(table, ballots)
    # Three want a draw, but Germany accepts no draw of more than two.
    ballots = {"GERMANY": "2", "FRANCE": "3", "ITALY": "3"}
    assert "votes are secret" in _vote_all(table, ballots)
    assert get_game("mix").state == "active"
    # Germany gives in to a three-way draw; everyone else voted LOSS, so they are left out.
    assert "all votes agree: draw france germany italy" in _vote_all(table, {"GERMANY": "3"})

    lone = seated(harness, "lone")
    lone.sign_on("POWER_CHOICE NO_DIAS")
    # Russia is the only power not voting LOSS: the result without everyone else is its win,
    # though Russia asked only for a draw of up to four that includes it.
    ballots = {power: "LOSS" for power in POWERS} | {"RUSSIA": "4"}
    assert "all votes agree: win russia" in _vote_all(lone, ballots)
    assert get_game("lone").outcome == "WIN RUSSIA"

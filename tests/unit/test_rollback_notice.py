"""Issue 53 point 6: the ROLLBACK notice gives the players the deadline and their ready
block, and the phase rolled back to runs to a deadline of its own length (a movement phase
rolled back to from an adjustment phase used to keep the adjustment's one day)."""

from __future__ import annotations

from datetime import timedelta

from helpers.veteran_measure import JUDGE, MASTER, NOW, WINTER, address, set_up

from mailjudge.commands.run import execute, reply_text
from mailjudge.game import schedule
from mailjudge.game.state import get_game


def test_rollback_gives_the_phase_its_own_deadline_and_tells_it(sqlite_db: str) -> None:
    set_up()  # WINTER is at W1901A, whose deadline is an adjustment's (one day)
    game = get_game(WINTER)
    timing = schedule.timing_of(game)
    assert timing.move > timing.adjust
    ctx = execute(f"SIGNON M{WINTER} masterpw\nROLLBACK F1901M", MASTER, JUDGE, NOW)
    answer = " ".join(reply_text(ctx).split())
    assert "rolled back to F1901M" in answer and "deadline:" in answer
    game = get_game(WINTER)
    assert game.phase == "F1901M" and game.deadline is not None
    assert game.deadline - NOW >= timing.move - timedelta(minutes=1)
    (notice,) = [o for o in ctx.outgoing if address("FRANCE") in o.to]
    assert "rolled it back to the start of F1901M" in notice.body
    assert "Deadline:" in notice.body, notice.body
    assert f"SIGNON france@{WINTER}" in notice.body and "ORDERS FRANCE" in notice.body

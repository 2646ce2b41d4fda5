"""An order mail reads each of its order lines once: the steps after the first (laying
the lines over the orders on file, checking them, finding the units left without one, the
warnings, whether the game is ready) take the mail's readings (engine/readings.Readings),
passed along, instead of reading the line again. A three-order mail read each line six
times before."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.run import execute, reply_text
from mailjudge.engine import reader
from mailjudge.engine.maps import GameMap
from mailjudge.engine.orders import Syntax
from mailjudge.game.state import get_game
from mailjudge.service.seats import seat_for_power
from unit.test_service_rules import EMAILS, game_with

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, tzinfo=UTC)
ORDERS = ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"]


@pytest.mark.parametrize(
    "body", ["\n".join(ORDERS), "ORDERS\n" + "\n".join(ORDERS) + "\nEND"], ids=["bare", "block"]
)
def test_a_three_order_mail_reads_each_line_once(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_with("", "g")
    email = seat_for_power(get_game("g"), "FRANCE").person.email
    reads: Counter[str] = Counter()
    # Every reading of order text passes here (read_order is its memo's front).
    real = reader._read_cached

    def counted(text: str, gmap: GameMap, phase_type: str) -> Syntax:
        reads[text] += 1
        return real(text, gmap, phase_type)

    monkeypatch.setattr(reader, "_read_cached", counted)
    ctx = execute(f"SIGNON france@g pw{EMAILS.index(email)}\n{body}\n", email,
                  "judge@example.org", NOW)  # fmt: skip
    answer = reply_text(ctx)
    assert all(f"    {order}" in answer for order in ORDERS), answer
    assert reads == Counter(ORDERS)  # three reads, one a line

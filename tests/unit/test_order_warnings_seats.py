"""Whose orders the warnings read (commands/order_warnings.py): in Double a player's own
lines for a shared power and never the partner's, even where STATUS shows the partner's
(DOUBLE_SHOW_PARTNER); a master's STATUS warns on every power it lists; a power nobody
orders (Survive's outcast) gets none."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from helpers.boards import position

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.run import execute
from mailjudge.game.state import get_game
from mailjudge.service import processing
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Seat
from mailjudge.variants import double
from mailjudge.variants.survive import vote_out

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"
EDI_FOR_NTH = "F EDI S F LON - NTH: F LON is not ordered to move to NTH"


def send(text: str, sender: str) -> str:
    ctx = execute(text, sender, JUDGE, NOW)
    return "\n".join(line for a in ctx.answers for line in a.lines)


def double_game(rules: str = "") -> dict[str, Seat]:
    create_game("twin", "gm@example.org", "secret", variant="double", rules=rules)
    game = get_game("twin")
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", name=f"p{i}", rng=random.Random(5))
    return {s.name: s for s in double.ring_seats(get_game("twin"))}


def signon(seat: Seat) -> str:
    return f"SIGNON {seat.name}@twin pw{seat.person.email[1]}"


@pytest.mark.parametrize("rules", ["", "+DOUBLE_SHOW_PARTNER"])
def test_a_double_player_is_warned_on_their_own_orders_only(rules: str) -> None:
    seats = double_game(rules)
    a, b = seats["england-turkey"], seats["austria-england"]
    # The partner moves London to the North Sea; the player supports that move but gave
    # London no order: the player's own set does not make the move, so they are warned.
    submit_orders(get_game("twin"), b, "ENGLAND", ["F LON - NTH", "F EDI H", "A LVP H"])
    answer = send(f"{signon(a)}\nORDERS ENGLAND\nF EDI S F LON - NTH\nEND", a.person.email)
    assert EDI_FOR_NTH in answer and "(it has no order, so it holds)" in answer
    status = send(f"{signon(a)}\nSTATUS", a.person.email)
    assert EDI_FOR_NTH in status and "F LON has no order: it will hold" in status
    # The partner's own set fits together: London moves, and the partner is not warned
    # of the player's support.
    partner = send(f"{signon(b)}\nSTATUS", b.person.email)
    assert "is not ordered" not in partner and "- F EDI S" not in partner
    assert "- A VIE has no order: it will hold" in partner  # Austria, the partner's other


def test_a_players_second_power_is_read_for_supports_of_its_units() -> None:
    seats = double_game()
    a = seats["england-turkey"]
    send(f"{signon(a)}\nORDERS ENGLAND\nF LON - NTH\nF EDI S F LON - NTH\nA LVP H\nEND",
         a.person.email)  # fmt: skip
    status = send(f"{signon(a)}\nSTATUS", a.person.email)
    assert "F LON is not ordered" not in status
    assert "A CON has no order: it will hold" in status  # Turkey's units, also theirs


def test_the_masters_status_warns_on_every_power() -> None:
    create_game("ruled", "gm@example.org", "secret", rules="POWER_CHOICE")
    for i, power in enumerate(["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA",
                               "TURKEY"]):  # fmt: skip
        join(get_game("ruled"), f"p{i}@example.org", f"pw{i}", power=power)
    answer = send("SIGNON Mruled secret\nORDERS FRANCE\nA PAR H\nA MAR S A PAR - BUR\nEND",
                  "gm@example.org")  # fmt: skip
    assert "A MAR S A PAR - BUR: A PAR is not ordered to move to BUR" in answer
    status = send("SIGNON Mruled secret\nSTATUS", "gm@example.org")
    assert "A MAR S A PAR - BUR: A PAR is not ordered" in status
    assert "F KIE has no order: it will hold" in status


def test_a_survive_outcast_is_not_warned_and_the_powers_in_play_are() -> None:
    powers = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    game = create_game("sv", "gm@example.org", "pw", variant="survive", rules="POWER_CHOICE")
    for power in powers:
        join(game, f"{power.lower()}@example.org", "pw", power=power)
    game = get_game("sv")
    game.phase = "W1902A"
    game.position = position(
        "W1902A",
        ["FRANCE A par", "FRANCE A mar", "TURKEY A con", "TURKEY F ank", "ENGLAND F lon"],
        {"par": "FRANCE", "mar": "FRANCE", "con": "TURKEY", "ank": "TURKEY", "lon": "ENGLAND"},
    )  # fmt: skip
    game.deadline, game.sequence = NOW + timedelta(days=1), 10
    game.save()
    for power, ballot in [("FRANCE", "TURKEY 2"), ("TURKEY", "FRANCE 2"), ("ENGLAND", "TURKEY 1")]:
        vote_out.vote_out(game, seat_for_power(game, power), ballot.split())
    processing.process(game, force=True, now=NOW)
    game = get_game("sv")
    assert game.phase == "S1903M"
    turkey = send("SIGNON turkey@sv pw\nSTATUS", "turkey@example.org")
    france = send("SIGNON france@sv pw\nSTATUS", "france@example.org")
    assert "TURKEY:" in turkey and "warnings" not in turkey
    assert "- A PAR has no order: it will hold" in france

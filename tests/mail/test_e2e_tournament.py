"""A tournament played by mail (service/tournaments.py): a master organises it, seven
players register, two rounds are dealt and played (each board ended by its master's
DECLARE DRAW), the powers rotate between rounds, the standings come by mail and on the web
(anonymous until the end), and by each scoring rule they are what the boards' results
make them. The deal's avoidance of repeat meetings is checked where it can be avoided."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from helpers.e2e import MASTER, Harness
from starlette.testclient import TestClient

from mailjudge.service import tournaments
from mailjudge.store.tournament_models import TournamentSeat
from mailjudge.web.app import make_app

NAMES = ["Ada", "Brun", "Cleo", "Dax", "Eve", "Finn", "Gus"]


def player(n: int) -> str:
    return f"t{n}@players.test"


def powers_by_round(round_: int) -> dict[str, str]:
    rows = TournamentSeat.select().where(TournamentSeat.round == round_)
    return {str(r.player.shown): str(r.powers) for r in rows}


def test_two_rounds_by_mail(harness: Harness) -> None:
    h = harness
    made = h.command(MASTER, "TOURNAMENT CREATE cup masterpw ROUNDS 2 SCORING SUM_OF_SQUARES "
                             "ANONYMOUS")  # fmt: skip
    assert "tournament cup created: 2 rounds on standard, scored by SUM_OF_SQUARES" in made
    for n, name in enumerate(NAMES):
        assert "you are registered for cup" in h.command(
            player(n), f"TOURNAMENT JOIN cup pw-{n}-x AS {name}")  # fmt: skip
    assert "only the master" in h.command(player(0), "TOURNAMENT ROUND cup masterpw")
    assert "board cup-1-1 has started" in h.command(MASTER, "TOURNAMENT ROUND cup masterpw")
    first = powers_by_round(1)
    assert sorted(first.values()) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY",
                                      "RUSSIA", "TURKEY"]  # fmt: skip
    # Each player signs on to their board with their tournament password.
    for n, name in enumerate(NAMES):
        power = first[name].lower()
        assert "signed on" in h.command(player(n), f"SIGNON {power}@cup-1-1 pw-{n}-x")
    assert "still has boards in play" in h.command(MASTER, "TOURNAMENT ROUND cup masterpw")
    running = h.command(player(3), "TOURNAMENT STANDINGS cup")
    assert "player 1" in running and "Ada" not in running  # anonymous while it runs
    assert "the game ends" in h.command(MASTER, "SIGNON Mcup-1-1 masterpw\nDECLARE DRAW")

    assert "board cup-2-1 has started" in h.command(MASTER, "TOURNAMENT ROUND cup masterpw")
    second = powers_by_round(2)
    assert all(second[name] != first[name] for name in NAMES)  # the powers rotated
    assert "the game ends" in h.command(MASTER, "SIGNON Mcup-2-1 masterpw\nDECLARE DRAW")
    assert "has played its 2 rounds" in h.command(MASTER, "TOURNAMENT ROUND cup masterpw")

    # Both boards drawn by all seven at the opening's centres (Russia 4, the others 3).
    russia = {first_ for first_, p in first.items() if p == "RUSSIA"} | {
        name for name, p in second.items() if p == "RUSSIA"}  # fmt: skip

    def by(rule: str) -> dict[str, Fraction]:
        return {s.name: s.total for s in tournaments.standings("cup", rule)}

    assert by("DRAW_SIZE") == dict.fromkeys(NAMES, Fraction(2, 7))
    assert by("WINNER_TAKES_ALL") == dict.fromkeys(NAMES, Fraction(0))
    assert by("CENTRES") == {n: Fraction(7 if n in russia else 6) for n in NAMES}
    assert by("SUM_OF_SQUARES") == {
        n: Fraction(100 * (16 + 9), 70) if n in russia else Fraction(100 * 18, 70) for n in NAMES
    }
    table = h.command(player(5), "TOURNAMENT STANDINGS cup")
    assert "cup: round 2 of 2, by SUM_OF_SQUARES" in table
    leaders = sorted(russia)
    assert f"1. {leaders[0]}: 35.7143 (2 board(s))" in table  # names once it is over
    with TestClient(make_app()) as client:
        page = client.get("/tournaments/cup").text
    assert all(name in page for name in NAMES) and "players.test" not in page


def test_a_deal_avoids_meeting_again_where_it_can() -> None:
    """Nine players on boards of three: round 2 can be dealt with nobody meeting again."""
    rng = random.Random(5)
    first = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    met: Counter[frozenset[int]] = Counter(
        frozenset((a, b)) for t in first for a in t for b in t if a < b)  # fmt: skip
    second = tournaments.deal(list(range(1, 10)), 3, met, Counter(), rng)
    assert sorted(len(t) for t in second) == [3, 3, 3]
    assert all(met[frozenset((a, b))] == 0 for t in second for a in t for b in t if a < b)
    played = {1: Counter({"A": 1}), 2: Counter({"B": 1}), 3: Counter({"C": 1})}
    turned = tournaments.rotate([1, 2, 3], ["A", "B", "C"], played)
    assert all(turned[p] not in played[p] for p in (1, 2, 3))


def test_a_registration_waits_for_its_address_to_answer(harness: Harness) -> None:
    """A TOURNAMENT JOIN in a stranger's name (a forged From) registers nobody: the token
    goes to that address, and only a CONFIRM from it registers the player."""
    from mailjudge.demo.sink import text_of
    from mailjudge.store.tournament_models import TournamentPlayer

    h = harness
    assert "created" in h.command(MASTER, "TOURNAMENT CREATE shield masterpw ROUNDS 1")
    victim = "victim@players.test"
    asked = str(text_of(h.reply(h.send(victim, "TOURNAMENT JOIN shield pw-v-x AS Vic"))))
    assert "CONFIRM" in asked and "you are registered" not in asked
    token = asked.split("CONFIRM ", 1)[1].split()[0]
    waiting = TournamentPlayer.get(TournamentPlayer.token == token)
    assert waiting.person.email == victim
    # The token from another address does nothing; the round would deal nobody.
    other = str(text_of(h.reply(h.send("attacker@players.test", f"CONFIRM {token}"))))
    assert "you are registered" not in other
    assert "you are registered for shield" in h.command(victim, f"CONFIRM {token}")
    assert TournamentPlayer.get(TournamentPlayer.id == waiting.id).token is None

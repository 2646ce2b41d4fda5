"""Skill ratings (service/ratings.py): games ended through the judge's own ending path
(service/results.game_over_mails) move each player's rating exactly as OpenSkill's
Plackett-Luce model does when handed, by hand, the same teams and scores; the SCORING
rule chosen decides the scores; each map and press kind is rated apart; a game is rated
once; RATING mails a player their own, HELP RATING the formula; the ladder shows only those
who made their record public."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from openskill.models import PlackettLuce

from mailjudge.commands.run import execute
from mailjudge.game.options import set_option
from mailjudge.game.scores import scores
from mailjudge.game.state import finish_game, get_game
from mailjudge.service import ratings, records
from mailjudge.service.games import create_game, start_game
from mailjudge.service.results import game_over_mails
from mailjudge.service.seats import join
from mailjudge.store.models import Person, Seat, utcnow
from mailjudge.store.stats_models import Rating

pytestmark = pytest.mark.usefixtures("any_db")
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
# The centres each power starts with: the scores of a sum-of-squares draw at the start.
START = {"AUSTRIA": 3, "ENGLAND": 3, "FRANCE": 3, "GERMANY": 3, "ITALY": 3, "RUSSIA": 4,
         "TURKEY": 3}  # fmt: skip


def play(
    name: str, seats: dict[str, str], outcome: str, rules: str = "", scoring: str = ""
) -> None:
    game = create_game(name, "gm@example.org", "pw",
                       rules=f"START_MASTER POWER_CHOICE {rules}".strip())  # fmt: skip
    if scoring:
        set_option(game, "SCORING", scoring)
    for power, person in seats.items():
        join(game, person, "pw", power=power)
    start_game(get_game(name), random.Random(1))
    game = get_game(name)
    finish_game(game, outcome)
    game_over_mails(get_game(name), outcome)


def rating(person: str, press: str = "press") -> tuple[float, float, int]:
    row = Rating.get((Rating.person == Person.get(Person.email == person))
                     & (Rating.press == press))  # fmt: skip
    return row.mu, row.sigma, row.games


def test_ratings_follow_the_library_game_by_game() -> None:
    model = PlackettLuce()
    people = [f"p{n}@players.test" for n in range(7)]
    first = dict(zip(POWERS, people, strict=True))
    play("one", first, "DRAW FRANCE GERMANY")
    # By hand: the teams in power order, everyone new; a two-way draw by draw size.
    fresh = {p: model.rating() for p in people}
    draw = [Fraction(1, 2) if p in ("FRANCE", "GERMANY") else 0 for p in POWERS]
    after = model.rate([[fresh[first[p]]] for p in POWERS], scores=[float(s) for s in draw])
    now = {first[p]: team[0] for p, team in zip(POWERS, after, strict=True)}
    for person in people:
        assert rating(person) == pytest.approx((now[person].mu, now[person].sigma, 1))

    second = dict(zip(POWERS, people[3:] + people[:3], strict=True))  # powers rotated
    play("two", second, "DRAW", scoring="SUM_OF_SQUARES")
    total = sum(c * c for c in START.values())
    assert total == 70  # six powers of 3 centres, Russia 4
    squares = [START[p] ** 2 / total for p in POWERS]
    after = model.rate([[now[second[p]]] for p in POWERS], scores=squares)
    now = {second[p]: team[0] for p, team in zip(POWERS, after, strict=True)}
    for person in people:
        assert rating(person) == pytest.approx((now[person].mu, now[person].sigma, 2))

    play("three", first, "WIN ENGLAND", rules="NO_PRESS")  # rated apart: no press
    after = model.rate([[model.rating()] for _ in POWERS],
                       scores=[float(p == "ENGLAND") for p in POWERS])  # fmt: skip
    england = after[POWERS.index("ENGLAND")][0]
    assert rating(first["ENGLAND"], "no press") == pytest.approx((england.mu, england.sigma, 1))
    assert rating(first["ENGLAND"]) == pytest.approx((now[first["ENGLAND"]].mu,
                                                      now[first["ENGLAND"]].sigma, 2))  # fmt: skip

    game_over_mails(get_game("one"), "DRAW FRANCE GERMANY")  # told again: rated once only
    assert rating(people[0])[2] == 2


def test_the_scoring_rules() -> None:
    powers = ["A", "B", "C"]
    centres = {"A": 10, "B": 6, "C": 2}
    assert scores("WIN A", "SUM_OF_SQUARES", centres, powers, powers) == {
        "A": 1, "B": 0, "C": 0}  # fmt: skip
    assert scores("DRAW A B", "DRAW_SIZE", centres, powers, powers) == {
        "A": Fraction(1, 2), "B": Fraction(1, 2), "C": 0}  # fmt: skip
    assert scores("DRAW A B", "SUM_OF_SQUARES", centres, powers, powers) == {
        "A": Fraction(100, 140), "B": Fraction(36, 140), "C": Fraction(4, 140)}  # fmt: skip
    assert scores("DRAW", "DRAW_SIZE", centres, powers, ["A", "C"]) == {
        "A": Fraction(1, 2), "B": 0, "C": Fraction(1, 2)}  # fmt: skip


def test_rating_by_mail_and_the_public_ladder() -> None:
    people = [f"q{n}@players.test" for n in range(7)]
    play("mailed", dict(zip(POWERS, people, strict=True)), "WIN TURKEY")
    answer = execute("RATING", people[6], "judge@example.org", utcnow())
    text = "\n".join(line for a in answer.answers for line in a.lines)
    mu, sigma, _ = rating(people[6])
    assert (
        f"standard, press: {mu - 3 * sigma:.2f} (mu {mu:.2f}, sigma {sigma:.2f}; 1 game(s))" in text
    )
    helped = execute("HELP RATING", "x@players.test", "judge@example.org", utcnow())
    assert "Plackett-Luce" in "\n".join(line for a in helped.answers for line in a.lines)
    new = execute("RATING", "nobody@players.test", "judge@example.org", utcnow())
    assert "no rating yet" in "\n".join(line for a in new.answers for line in a.lines)
    records.set_public(people[6], "Sultan")
    ladder = ratings.ladder()
    assert [name for name, _ in ladder[("standard", "press")]] == ["Sultan"]


def test_a_gunboat_game_is_rated_as_no_press() -> None:
    people = [f"g{n}@players.test" for n in range(7)]
    game = create_game("boat", "gm@example.org", "pw", rules="START_MASTER POWER_CHOICE",
                       variant="gunboat")  # fmt: skip
    for power, person in zip(POWERS, people, strict=True):
        join(game, person, "pw", power=power)
    start_game(get_game("boat"), random.Random(1))
    finish_game(get_game("boat"), "WIN ITALY")
    game_over_mails(get_game("boat"), "WIN ITALY")
    assert rating(people[4], "no press")[2] == 1
    assert not Rating.select().where(Rating.press == "press").exists()


def test_a_democratic_powers_citizens_are_one_team() -> None:
    """Citizens hold no power of their own: each is rated with the country that owns their
    supply centre at the end, all its citizens as one team."""
    game = create_game("demo", "gm@example.org", "pw", variant="democratic",
                       rules="START_MASTER")  # fmt: skip
    people = [f"c{n}@players.test" for n in range(14)]
    for person in people:
        join(game, person, "pw")
    start_game(get_game("demo"), random.Random(2))
    game = get_game("demo")
    citizens = list(Seat.select().where((Seat.game == game) & (Seat.role == "citizen")))
    teams = ratings.teams(game)
    assert sum(len(t) for t in teams.values()) == len(citizens) == 14
    finish_game(game, "WIN FRANCE")
    game_over_mails(get_game("demo"), "WIN FRANCE")
    model = PlackettLuce()
    order = sorted(teams)
    after = model.rate([[model.rating() for _ in teams[p]] for p in order],
                       scores=[float(p == "FRANCE") for p in order])  # fmt: skip
    for power, team in zip(order, after, strict=True):
        for person, rated in zip(teams[power], team, strict=True):
            row = Rating.get(Rating.person == person)
            assert (row.mu, row.sigma) == pytest.approx((rated.mu, rated.sigma))

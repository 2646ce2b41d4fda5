"""STALEMATE_DRAW (service/stalemate.py) and the static years it shares with Diplonomic's
rule 9 (game/stalemate.py): asked after n static years and not before, not in a game that
takes no draws by vote (Diplonomic keeps its master's DECLARE DRAW) or has no deadline,
the phase kept open until its deadline, and the draw at it. The mail-played story is
tests/mail/test_e2e_stalemate.py."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from mailjudge.game import options
from mailjudge.game.stalemate import static_since, year_just_ended
from mailjudge.game.state import get_game
from mailjudge.render.outgoing import Outgoing
from mailjudge.service import processing, stalemate
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store.models import Game, StalemateQuestion

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
pytestmark = pytest.mark.usefixtures("sqlite_db")


def new_game(name: str, variant: str = "standard", rules: str = "", years: str = "1") -> Game:
    game = create_game(name, "gm@example.org", "pw", variant=variant, rules=f"START_MASTER {rules}")
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", rng=random.Random(i))
    start_game(get_game(name), random.Random(1), now=NOW)
    options.set_option(get_game(name), "STALEMATE_DRAW", years)
    return get_game(name)


def a_year(name: str) -> list[Outgoing]:
    """Every phase of the current game year processed, nobody ordering (all hold)."""
    mails: list[Outgoing] = []
    year = get_game(name).phase[1:5]  # type: ignore[index]
    while get_game(name).phase[1:5] == year and get_game(name).state == "active":  # type: ignore[index]
        done = processing.process(get_game(name), force=True, now=NOW)
        assert done is not None
        mails += done.notices
    return mails


def asked(mails: list[Outgoing]) -> list[Outgoing]:
    return [m for m in mails if "a draw unless someone refuses" in m.subject]


def test_the_year_that_ended_and_the_static_count() -> None:
    assert year_just_ended("S1903M") == 1902
    assert year_just_ended("F1903M") is None and year_just_ended("W1903A") is None
    new_game("count")
    a_year("count")
    assert static_since(get_game("count"), 1901, 1) == 1901
    assert static_since(get_game("count"), 1901, 2) is None  # the game is younger
    assert static_since(get_game("count"), 1901, 0) is None


def test_asked_after_n_static_years_and_not_before() -> None:
    new_game("two", years="2")
    assert asked(a_year("two")) == []
    mails = asked(a_year("two"))
    assert len(mails) == 8  # seven players and the master
    assert "from 1901 to 1902" in mails[0].body
    [question] = StalemateQuestion.select()
    assert question.phase == "S1903M" and question.refused_at is None


def test_the_phase_waits_for_its_deadline_then_the_draw() -> None:
    new_game("wait")
    a_year("wait")
    game = get_game("wait")
    assert game.deadline is not None
    early = game.deadline - timedelta(hours=1)
    assert "STALEMATE_DRAW" in processing.readiness(game, early).reason
    assert stalemate.settle(game, early) == []
    over = stalemate.settle(game, game.deadline)
    game = get_game("wait")
    assert game.state == "finished" and game.outcome == "DRAW " + " ".join(POWERS)
    assert len([m for m in over if "the game is over" in m.subject]) == 8


def test_not_asked_without_a_deadline_nor_when_off() -> None:
    new_game("nodead", rules="NO_DEADLINE")
    assert asked(a_year("nodead")) == []
    new_game("off", years="OFF")
    assert asked(a_year("off")) == []


def test_diplonomic_keeps_its_rule_nine() -> None:
    """Diplonomic takes no draws by vote (only the master's DECLARE DRAW after three static
    years): STALEMATE_DRAW asks nobody there."""
    new_game("dn", variant="diplonomic", years="1")
    mails = a_year("dn")
    assert asked(mails) == [] and StalemateQuestion.select().count() == 0


def test_a_rollback_past_the_question_asks_again_when_the_year_is_played_anew() -> None:
    new_game("back")
    assert len(asked(a_year("back"))) == 8
    game = get_game("back")
    processing.rollback(game, "F1901M")
    assert stalemate.open_question(get_game("back")) is None  # not this phase's question
    done = processing.process(get_game("back"), force=True, now=NOW)
    assert done is not None and len(asked(done.notices)) == 8
    assert StalemateQuestion.select().count() == 1


def test_at_the_deadline_the_clock_draws_and_tells_nobody_they_are_late() -> None:
    from mailjudge.service import deadlines

    new_game("clock")
    a_year("clock")
    deadline = get_game("clock").deadline
    assert deadline is not None
    sent = deadlines.tick(deadline)
    assert get_game("clock").state == "finished"
    subjects = {m.subject for m in sent}
    assert subjects == {"[clock] the game is over: draw " + " ".join(POWERS).lower()}, subjects
    assert len(sent) == 8

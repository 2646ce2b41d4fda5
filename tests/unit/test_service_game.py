"""A whole game through the service layer, on SQLite and PostgreSQL, against the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mailjudge.engine.interchange import position_to_dict
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import EngineOptions, process_phase, result_rows
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import initial_position
from mailjudge.game.state import current_position, get_game
from mailjudge.service import processing
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Game, PhaseRecord

MAP = load_map("standard")
PLAYERS = [f"player{i}@example.org" for i in range(7)]


def new_game(name: str = "alpha", rules: str = "", seed: int = 1) -> Game:
    game = create_game(name, "master@example.org", "master-pw", rules=rules)
    rng = random.Random(seed)
    for i, email in enumerate(PLAYERS):
        join(game, email, f"pw{i}", rng=rng)
    return get_game(name)


def play_years(game: Game, seed: int, until_year: int) -> list[dict[str, list[str]]]:
    """Play random legal orders through the service; keep the engine's own game beside it."""
    rng = random.Random(seed)
    engine_pos = initial_position(MAP)
    played = []
    while game.state == "active" and current_position(game).phase.year < until_year:
        pos = current_position(game)
        assert position_to_dict(pos) == position_to_dict(engine_pos)
        orders = random_orders(MAP, pos, rng)
        for power, lines in orders.items():
            report = submit_orders(game, seat_for_power(game, power), power, lines)
            assert not report.errors, report.errors
        done = processing.process(game, force=True)
        assert done is not None
        engine = process_phase(MAP, engine_pos, orders, EngineOptions(victory_centres=18))
        assert done.results == result_rows(engine)
        engine_pos = engine.next
        played.append(orders)
        if engine.winners:
            assert game.state == "finished"
            break
    assert position_to_dict(current_position(game)) == position_to_dict(engine_pos)
    return played


def test_ten_years_match_the_engine(any_db: str) -> None:
    game = new_game()
    assert game.state == "active"
    assert sorted(p for s in game.seats if s.role == "player" for p in s.powers) == list(
        MAP.power_names
    )
    played = play_years(game, seed=4, until_year=1911)
    assert current_position(game).phase.year >= 1911
    assert len(played) >= 30  # 20 movement phases, and the retreats and adjustments between
    assert PhaseRecord.select().where(PhaseRecord.game == game).count() == len(played)


def _stored(game: Game) -> list[tuple[Any, ...]]:
    return [
        (r.phase, r.sequence, r.position, r.orders, r.results)
        for r in PhaseRecord.select().where(PhaseRecord.game == game).order_by(PhaseRecord.sequence)
    ]


def test_rollback_then_rollforward_reproduces_history(sqlite_db: str) -> None:
    game = new_game("beta")
    play_years(game, seed=9, until_year=1906)
    before = _stored(game)
    final = (game.phase, game.position, game.sequence)
    processing.rollback(game, "S1903M")
    assert game.phase == "S1903M"
    assert current_position(game).phase.year == 1903
    # The orders that were on file for S1903M are back on file.
    assert processing.orders_on_file(game)
    done = processing.rollforward(game)
    start = next(seq for phase, seq, *_ in before if phase == "S1903M")
    assert len(done) == sum(1 for _, seq, *_ in before if seq >= start)
    assert _stored(game) == before
    assert (game.phase, game.position, game.sequence) == final


def test_new_orders_after_rollback_replace_the_old_future(sqlite_db: str) -> None:
    game = new_game("gamma")
    play_years(game, seed=3, until_year=1903)
    processing.rollback(game, "S1902M")
    for power in MAP.power_names:
        seat = seat_for_power(game, power)
        submit_orders(game, seat, power, [f"{u} H" for u in current_position(game).units_of(power)])
    processing.process(game, force=True)
    phases = [r.phase for r in PhaseRecord.select().where(PhaseRecord.game == game)]
    assert phases[-1] == "S1902M" and "F1902M" not in phases
    with pytest.raises(Exception, match="no stored later phases"):
        processing.rollforward(game)

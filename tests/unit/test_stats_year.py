"""/stats counts what happened (service/stats.py): a simulated judge year (mailjudge bench
year: games played through the judge's command runner and clock, players missing phases
and using the levers at set rates) gives the figures the simulation counted itself, to the
seat-phase: over all games, by phase kind, by month, by game, the abandoned games and the
reliable players."""

from __future__ import annotations

import pytest

from mailjudge.benchmarks.year import Rates, simulate, with_tokens
from mailjudge.config import settings as settings_module
from mailjudge.game.state import get_game
from mailjudge.service import processing, stats
from mailjudge.store.models import GameState

pytestmark = pytest.mark.usefixtures("any_db")


def test_a_simulated_year_is_counted_to_the_seat_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_module, "_CURRENT",
                        with_tokens(settings_module.current_settings()))  # fmt: skip
    rates = Rates(miss=0.2, replace=0.05, abandon=0.34, standin=0.5, extend=0.3)
    year = simulate(games=3, years=2, seed=3, rates=rates)
    found = stats.stats()
    assert found.as_json() == year.expected.as_json()
    total = found.total
    # The simulation used every lever and every cover, so each figure was really checked.
    assert total.nmr > total.standin > 0 and total.replacement > 0
    assert all(n > 0 for n in total.levers.values())
    assert {"movement", "adjustment"} <= set(found.by_kind) and len(found.by_month) == 2
    assert 0 < found.abandoned < found.games and 0 < found.reliable < found.players


def test_a_rolled_back_phase_leaves_the_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ROLLBACK takes its phases out of /stats as out of the records; played again, they
    count as played the second time."""
    monkeypatch.setattr(settings_module, "_CURRENT",
                        with_tokens(settings_module.current_settings()))  # fmt: skip
    simulate(games=1, years=1, seed=3, rates=Rates(abandon=0, standin=0))
    game = get_game("year0")
    game.state = GameState.ACTIVE  # the simulation ended it in a draw: play on
    game.save()
    before = stats.stats()
    first = processing.history(game)[0]
    processing.rollback(game, first.phase)
    assert stats.stats().total.owed == 0 and stats.stats().games == 0
    processing.rollforward(get_game("year0"))
    assert stats.stats().as_json() == before.as_json()

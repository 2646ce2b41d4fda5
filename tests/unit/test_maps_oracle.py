"""Random games on every map adjudicated by the judge and by MILA agree phase by phase
(tests/helpers/maps_oracle.py says how). The default run plays a short game or two on each map
but the giant ones (tests/helpers/map_sizes.py), which the soak (``pytest -m soak -k
maps_oracle``) adds; the soak also plays thousands of phases on every map."""

from __future__ import annotations

import pytest
from helpers.map_sizes import sized
from helpers.maps_oracle import Tally, run

from mailjudge.engine.map_convert import MAPS
from mailjudge.engine.starts import STARTS

ALL = ["standard", *MAPS, "chaos", *STARTS]


@pytest.mark.parametrize("name", sized(ALL))
def test_random_games_agree_with_mila(name: str) -> None:
    tally = run(name, range(2), 14, Tally())
    assert tally.disagreements == []
    assert tally.phases >= 20 and tally.movement >= 8 and tally.adjustment >= 1


def test_mila_breaks_civil_disorder_ties_by_code() -> None:
    """DATC 6.J: equally far fleets are removed in the order of their provinces' names; in
    W0902A of this game Spain must remove one of F STA (Sea of Tangiers) and F SJT (Straits
    of Jebel Tarik), both one move from home. The judge removes Sea of Tangiers, MILA SJT;
    the phase is counted apart and nothing else differs."""
    tally = run("known_world_901", range(167, 168), 48, Tally())
    assert tally.disagreements == []
    assert tally.tie_by_code == 1


def test_mila_lets_a_dummy_win_the_judge_does_not() -> None:
    """Known World 901's neutral states (a dummy power, 49 centres at the start) reach the
    victory count of 55 in this game; MILA ends the game, the judge plays on: nobody plays
    a dummy. Up to then the two agree."""
    tally = run("known_world_901", range(107, 108), 60, Tally())
    assert tally.disagreements == []
    assert tally.dummy_at_count == 1 and tally.phases > 10


@pytest.mark.soak
@pytest.mark.parametrize("name", ALL)
def test_random_games_agree_with_mila_soak(name: str) -> None:
    tally = Tally()
    seed = 100
    while tally.phases < 3000 and not tally.disagreements:
        run(name, range(seed, seed + 1), 60, tally)
        seed += 1
    print(f"\n{name}: {seed - 100} games, {tally}")
    assert tally.disagreements == []

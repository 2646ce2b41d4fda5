"""Random games on every map adjudicated by the judge and by MILA agree phase by phase
(tests/maps_oracle.py says how). The default run plays a short game or two per map; the
soak (``pytest -m soak -k maps_oracle``) plays thousands of phases per map."""

from __future__ import annotations

import pytest
from maps_oracle import Tally, run

from mailjudge.engine.map_convert import MAPS

ALL = ["standard", *MAPS, "chaos"]


@pytest.mark.parametrize("name", ALL)
def test_random_games_agree_with_mila(name: str) -> None:
    tally = run(name, range(2), 14, Tally())
    assert tally.disagreements == []
    assert tally.phases >= 20 and tally.movement >= 8 and tally.adjustment >= 1


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

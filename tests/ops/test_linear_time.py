"""No text on the mail path costs more than linear time in its length (issue 38, points 1
and 7): for each text function a mail passes through (mailjudge/benchmarks/text.py lists
them, and the worst shapes of input we know of), the time for 10n bytes is at most 20 times
the time for n bytes.

A quadratic function shows a ratio near 100, a linear one near 10; the bound leaves room
for timing noise. Each time is the least CPU time of a few runs. The test measures at
n = SIZE, less than the benchmark's N, to keep the run short; a function over the bound
there is measured again at N before it fails, so that a burst of noise on a busy machine
does not fail it, and a quadratic one fails at both sizes. On a slow machine with the
other test process busy beside it (CI), linear functions were seen at 20-35 for minutes at
a time: a shape still over is measured a few times more, seconds apart, and its least
ratio counts (a quadratic one never comes near the bound). Run with -s -n 0 to see the
ratios, or `mailjudge bench text` for the full size.
"""

from __future__ import annotations

import time

import pytest

from mailjudge.benchmarks.text import FUNCTIONS, RATIO, SHAPES, N, _ratio, growth

SIZE = 20_000  # bytes: a quadratic term as large as the linear one at N still shows here


def _over(ratios: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 1) for k, v in ratios.items() if v > RATIO}


def _shown(ratios: dict[str, float], size: int) -> str:
    worst = sorted(ratios.items(), key=lambda kv: -kv[1])
    return f"n={size} bytes: " + ", ".join(f"{k} {v:.1f}" for k, v in worst)


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_time_grows_at_most_linearly(function: str) -> None:
    ratios = growth(function, SIZE)
    print(f"\n{function}: time(10n)/time(n), {_shown(ratios, SIZE)}")
    if _over(ratios):
        ratios = growth(function, N)
        print(f"measured again at {_shown(ratios, N)}")
    for _ in range(4):
        if not _over(ratios):
            break
        time.sleep(2.0)  # another moment of the busy machine
        for shape in _over(ratios):
            ratios[shape] = min(ratios[shape], _ratio(FUNCTIONS[function], SHAPES[shape], N))
        print(f"over again: {_over(ratios)}")
    over = _over(ratios)
    assert not over, f"{function} grows faster than linearly on {over}"

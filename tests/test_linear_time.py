"""No text on the mail path costs more than linear time in its length (issue 38, points 1
and 7): for each text function a mail passes through (mailjudge/benchmarks/text.py lists
them, and the worst shapes of input we know of), the time for 10n bytes is at most 20 times
the time for n bytes.

A quadratic function shows a ratio near 100, a linear one near 10; the bound leaves room
for timing noise. Each time is the least CPU time of a few runs. Run with -s to see the
ratios, or `mailjudge bench text`.
"""

from __future__ import annotations

import pytest

from mailjudge.benchmarks.text import FUNCTIONS, RATIO, N, growth


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_time_grows_at_most_linearly(function: str) -> None:
    ratios = growth(function)
    shown = ", ".join(f"{k} {v:.1f}" for k, v in sorted(ratios.items(), key=lambda kv: -kv[1]))
    print(f"\n{function}: time(10n)/time(n), n={N} bytes: {shown}")
    over = {k: round(v, 1) for k, v in ratios.items() if v > RATIO}
    assert not over, f"{function} grows faster than linearly on {over}"

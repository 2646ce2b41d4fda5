"""What a player downloads, on every map of data/maps (issue 54): every public page under
300 KB as sent to a browser (they all accept gzip, and the site compresses), the pages of a
big map really sent compressed, and every results mail under 150 KB (the big boards are
mailed at a phone's size, not at 2000 px). `mailjudge bench sizes` prints the figures."""

from __future__ import annotations

import pytest
from helpers.played_maps import played_map

from mailjudge.benchmarks.sizes import main as bench_sizes
from mailjudge.engine.catalogue import map_names

PAGE_CAP = 300 * 1024
MAIL_CAP = 150 * 1024


@pytest.mark.parametrize("map_name", map_names())
def test_pages_and_results_mails_stay_light(map_name: str, cheap_scrypt: None) -> None:
    game = played_map(map_name)
    assert {p.path for p in game.pages} >= {
        "/games/sizes",
        f"/games/sizes/phases/{game.played[-1]}",
    }
    for page in game.pages:
        assert page.gzip <= PAGE_CAP, f"{page.path}: {page.gzip} bytes sent"
        if page.plain > 20 * 1024:  # a page worth compressing is sent compressed
            assert page.gzip < page.plain / 2, page
    assert game.mails, "the phases played sent results"
    largest = max(len(raw) for raw in game.mails)
    assert largest <= MAIL_CAP, f"a results mail of {largest} bytes"


def test_the_bench_prints_sizes_per_map(
    capsys: pytest.CaptureFixture[str], cheap_scrypt: None
) -> None:
    assert bench_sizes(["--maps", "pure", "--phases", "1"]) == 0
    shown = capsys.readouterr().out
    assert "pure: results mail" in shown and "/games/sizes" in shown and "gzip" in shown

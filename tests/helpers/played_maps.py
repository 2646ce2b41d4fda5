"""A short game on a map, played once per test process and kept: its pages' sizes and the
results mails it caused, for the tests that hold what players download."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mailjudge.benchmarks.sizes import PageSize, page_paths, page_sizes, played_site, queued_results

PHASES = 2  # a movement phase's results, with orders drawn


@dataclass(frozen=True)
class PlayedMap:
    pages: list[PageSize]
    mails: list[bytes]  # the results mails, as they go on the wire
    played: list[str]


@cache
def played_map(map_name: str) -> PlayedMap:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-played-"))
    with played_site(map_name, PHASES, seed=1, folder=folder) as (client, played):
        pages = list(page_sizes(client, page_paths(played)))
        return PlayedMap(pages, queued_results(), played)

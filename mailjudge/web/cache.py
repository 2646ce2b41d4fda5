"""Rendered pages kept for a few seconds, while their game's stamp stays the same.

A game page is read far more often than its game changes (a deadline brings every player
to it at once), and building it takes a dozen queries. A page is served from here when its
game's stamp (pages.game_stamp: one small query) is unchanged and it is younger than
``lifetime`` seconds; the lifetime bounds how long a change the stamp does not see (a
player joining, a teammate accepting) takes to show.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Page:
    body: str
    changed: datetime | None
    media_type: str
    etag: str


class PageCache:
    def __init__(self, lifetime: float = 5.0, size: int = 512) -> None:
        self.lifetime = lifetime
        self.size = size
        self._pages: OrderedDict[str, tuple[Any, float, Page]] = OrderedDict()

    def get(self, url: str, stamp: Any) -> Page | None:
        kept = self._pages.get(url)
        if kept is None or kept[0] != stamp or time.monotonic() - kept[1] > self.lifetime:
            return None
        self._pages.move_to_end(url)
        return kept[2]

    def put(self, url: str, stamp: Any, page: Page) -> None:
        self._pages[url] = (stamp, time.monotonic(), page)
        self._pages.move_to_end(url)
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)

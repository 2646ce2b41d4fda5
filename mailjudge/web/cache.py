"""Rendered pages kept for a few seconds, while their game's stamp stays the same.

A game page is read far more often than its game changes (a deadline brings every player
to it at once), and building it takes a dozen queries. A page is served from here when its
game's stamp (pages.game_stamp: one small query) is unchanged and it is younger than
``lifetime`` seconds; the lifetime bounds how long a change the stamp does not see (a
player joining, a teammate accepting) takes to show.

The cache is bounded twice: at most ``size`` pages and ``max_bytes`` of page text, the
least recently read going first. Its keys are made by the caller from the path and only
the query parameters the page depends on (app.cache_key), so that a visitor adding
``?x=1``, ``?x=2``... to a URL reads the one cached copy instead of filling memory.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

PAGES_KEPT = 512
BYTES_KEPT = 48 * 1024 * 1024


@dataclass(frozen=True)
class Page:
    body: str
    changed: datetime | None
    media_type: str
    etag: str


class PageCache:
    def __init__(
        self, lifetime: float = 5.0, size: int = PAGES_KEPT, max_bytes: int = BYTES_KEPT
    ) -> None:
        self.lifetime = lifetime
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._pages: OrderedDict[str, tuple[Any, float, Page]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._pages)

    def get(self, key: str, stamp: Any) -> Page | None:
        kept = self._pages.get(key)
        if kept is None or kept[0] != stamp or time.monotonic() - kept[1] > self.lifetime:
            return None
        self._pages.move_to_end(key)
        return kept[2]

    def put(self, key: str, stamp: Any, page: Page) -> None:
        old = self._pages.pop(key, None)
        if old is not None:
            self.bytes -= len(old[2].body)
        self._pages[key] = (stamp, time.monotonic(), page)
        self.bytes += len(page.body)
        while len(self._pages) > self.size or (
            self.bytes > self.max_bytes and len(self._pages) > 1
        ):
            _, (_, _, dropped) = self._pages.popitem(last=False)
            self.bytes -= len(dropped.body)

"""The guard's counters (game/guard.py): the first count of a key makes its row with the
amount, later ones add to it, and a window past starts again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mailjudge.game import guard
from mailjudge.store.models import AddressCounter

HOUR = timedelta(hours=1)
NOON = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_counts_add_up_within_the_window_and_start_again_after_it(any_db: str) -> None:
    assert guard.bump_by("bytes:a@example.org", 300, NOON, HOUR) == 300
    assert guard.bump_by("bytes:a@example.org", 200, NOON + timedelta(minutes=5), HOUR) == 500
    assert guard.bump_by("bytes:a@example.org", 50, NOON + timedelta(minutes=61), HOUR) == 50
    row = AddressCounter.get(AddressCounter.key == "bytes:a@example.org")
    assert (row.count, row.window_start) == (50, NOON + timedelta(minutes=61))
    assert AddressCounter.select().count() == 1

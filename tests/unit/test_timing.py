"""The game clock: TIMING lines, deadlines across daylight-saving changes, reminders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mailjudge.engine.timing import Timing, TimingError, parse_length, parse_when, shift_past, show

LONDON = ZoneInfo("Europe/London")


def test_parse_and_print() -> None:
    timing = Timing.parse(
        "move 2d retreat 12h adjust 1d at 12:00 Europe/London days mon-fri warn 2h,24h grace 6h"
    )
    assert timing.move == timedelta(days=2) and timing.retreat == timedelta(hours=12)
    assert timing.zone == "Europe/London" and timing.at is not None and timing.at.hour == 12
    assert timing.days == frozenset(range(5))
    assert timing.warn == (timedelta(hours=24), timedelta(hours=2))
    assert (
        str(timing)
        == "MOVE 2D RETREAT 12H ADJUST 1D AT 12:00 Europe/London DAYS MON,TUE,WED,THU,FRI WARN 1D,2H GRACE 6H"
    )
    assert Timing.parse(str(timing)) == timing
    assert Timing.parse("ZONE America/New_York").zone == "America/New_York"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("MOVE 3X", "not a length"),
        ("AT 25:00", "not a time"),
        ("AT 12:00 Mars/Olympus", "not a time zone"),
        ("DAYS FUNDAY", "not a weekday"),
        ("SOON", "not expected"),
        ("MOVE 0D", "longer than nothing"),
    ],
)
def test_bad_timing_lines(text: str, fragment: str) -> None:
    with pytest.raises(TimingError, match=fragment):
        Timing.parse(text)


def test_lengths() -> None:
    assert parse_length("1D12H") == timedelta(hours=36)
    assert parse_length("90M") == timedelta(minutes=90)


def test_deadline_keeps_wall_clock_across_autumn_change() -> None:
    timing = Timing.parse("MOVE 3D ZONE Europe/London")
    start = datetime(2026, 10, 24, 12, 0, tzinfo=LONDON)  # BST; clocks go back on the 25th
    deadline = timing.deadline_after(start, "movement")
    assert deadline.astimezone(LONDON).hour == 12
    assert deadline - start == timedelta(days=3, hours=1)  # the extra hour of that Sunday


def test_deadline_keeps_wall_clock_across_spring_change() -> None:
    timing = Timing.parse("MOVE 2D AT 18:00 Europe/London")
    start = datetime(2027, 3, 27, 9, 0, tzinfo=LONDON)  # GMT; clocks go forward on the 28th
    deadline = timing.deadline_after(start, "movement")
    assert deadline.astimezone(LONDON) == datetime(2027, 3, 29, 18, 0, tzinfo=LONDON)
    assert deadline.astimezone(UTC).hour == 17  # 18:00 BST


def test_at_and_days() -> None:
    timing = Timing.parse("MOVE 1D AT 20:00 UTC DAYS MON-FRI")
    friday = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)
    # One day later is Saturday 21:00; the next 20:00 after that is Sunday; then Monday.
    assert timing.deadline_after(friday, "movement") == datetime(2026, 11, 23, 20, 0, tzinfo=UTC)


def test_reminders_are_before_the_deadline() -> None:
    timing = Timing.parse("WARN 24H,2H ZONE Europe/London")
    deadline = datetime(2026, 10, 25, 12, 0, tzinfo=UTC)  # Sunday noon, after the change
    first, second = timing.reminders(deadline)
    assert second == deadline - timedelta(hours=2)
    # 24 wall-clock hours before, across the change: 25 real hours.
    assert deadline - first == timedelta(hours=25)


def test_absence_moves_a_deadline() -> None:
    timing = Timing.parse("MOVE 2D AT 12:00 UTC")
    deadline = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    back = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
    assert shift_past(deadline, back, timing, "movement") == datetime(
        2026, 12, 5, 12, 0, tzinfo=UTC
    )
    assert shift_past(deadline, deadline - timedelta(days=1), timing, "movement") == deadline


def test_parse_when_and_show() -> None:
    moment = parse_when("2026-07-01 12:00", "Europe/London")
    assert moment == datetime(2026, 7, 1, 11, 0, tzinfo=UTC)
    assert "BST" in show(moment, "Europe/London") and "12:00" in show(moment, "Europe/London")
    with pytest.raises(TimingError):
        parse_when("next tuesday", "UTC")

"""Dates as njudge's and DPjudge's players write them (their deadlines and absence help
files): game/dates.read_date, and SET DEADLINE and SET ABSENCE that read them."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from mailjudge.engine.timing import TimingError
from mailjudge.game.dates import read_date

# Saturday 21 November 2026, 12:00 UTC.
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
AT = time(23, 30)


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("2026-12-01 18:00", at(2026, 12, 1, 18, 0)),  # ours, as before
        ("2026-12-01", at(2026, 12, 1, 0, 0)),
        ("Dec 15", at(2026, 12, 15, 23, 30)),  # njudge: either order, the default time
        ("15 Dec", at(2026, 12, 15, 23, 30)),
        ("Dec 23:30 15", at(2026, 12, 15, 23, 30)),  # "even Jun 23:30 15 will work"
        ("Tue", at(2026, 11, 24, 23, 30)),  # the next Tuesday
        ("sat", at(2026, 11, 28, 23, 30)),  # today is Saturday: a week on
        ("28", at(2026, 11, 28, 23, 30)),  # a day of this month still to come
        ("15", at(2026, 12, 15, 23, 30)),  # ... or of the next
        ("10 Jan", at(2027, 1, 10, 23, 30)),  # the next January
        ("Feb", at(2027, 2, 28, 23, 30)),  # njudge: a month alone is its last day
        ("wed 18:00", at(2026, 11, 25, 18, 0)),
        ("FRI 20:00", at(2026, 11, 27, 20, 0)),  # DPjudge's examples
        ("1 DEC 12:00", at(2026, 12, 1, 12, 0)),
        ("1 DEC 26", at(2026, 12, 1, 23, 30)),  # a two-digit year after the month
        ("30 Nov 2026 20:00", at(2026, 11, 30, 20, 0)),
        ("23:00", at(2026, 11, 21, 23, 0)),  # a time alone: today's, still to come
        ("11:00", at(2026, 11, 22, 11, 0)),  # ... else tomorrow's
        ("Thursday 9:15", at(2026, 11, 26, 9, 15)),
        ("September 3", at(2027, 9, 3, 23, 30)),
    ],
)
def test_their_date_forms_are_read(text: str, when: datetime) -> None:
    assert read_date(text, "UTC", NOW, AT) == when


def test_a_date_is_read_in_the_games_zone() -> None:
    assert read_date("Dec 15 12:00", "Europe/Paris", NOW, AT) == at(2026, 12, 15, 11, 0)


@pytest.mark.parametrize("text", ["", "soon", "Tue 15", "32", "25:00", "Dec 15 maybe", "31 Feb"])
def test_what_is_not_a_date_is_refused_with_the_forms(text: str) -> None:
    with pytest.raises(TimingError, match="1 Dec 18:00, Dec 1, Fri 18:00"):
        read_date(text, "UTC", NOW, AT)


def test_todays_weekday_with_a_time_still_ahead_is_today() -> None:
    """`Tue 18:00` written on a Tuesday morning is that evening, not a week on; written
    after 18:00 it is the next Tuesday."""
    tuesday_morning = datetime(2026, 12, 8, 0, 1, tzinfo=UTC)
    assert read_date("Tue 18:00", "UTC", tuesday_morning, AT) == at(2026, 12, 8, 18, 0)
    tuesday_night = datetime(2026, 12, 8, 19, 0, tzinfo=UTC)
    assert read_date("Tue 18:00", "UTC", tuesday_night, AT) == at(2026, 12, 15, 18, 0)

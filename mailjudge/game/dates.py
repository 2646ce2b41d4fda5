"""A date and time of day as players write them: ours (``2026-12-01 12:00``), and
njudge's and DPjudge's (``Dec 15``, ``15 Dec 23:30``, ``Tue``, ``28``, ``fri 20:00``,
``1 DEC 26``, ``23:00``), read in a game's zone relative to now.

The rule, from their documents: the parts (a weekday, a month, a day of the month, a year,
a time ``hh:mm``) come in any order; what is left out is the next date that fits, after
now: a weekday is the next such day, a day of the month this month or the next, a month
and day this year or the next; a month alone is its last day; a time alone is today's if
it is still to come, else tomorrow's. With no time of day the caller's default stands.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, time, timedelta

from mailjudge.engine.timing import TimingError, zone_of

_MONTHS = {name.upper(): n for n, name in enumerate(calendar.month_abbr) if name}
_WEEKDAYS = {name.upper(): n for n, name in enumerate(calendar.day_abbr)}
_TIME = re.compile(r"(\d{1,2})[:.h](\d{2})$", re.IGNORECASE)
EXAMPLES = "2026-12-01 18:00, 1 Dec 18:00, Dec 1, Fri 18:00 or 18:00"


def _month(word: str) -> int | None:
    """A month by its first three letters or more (JAN, Sept, December)."""
    w = word.upper().rstrip(".,")
    n = _MONTHS.get(w[:3]) if len(w) >= 3 else None
    return n if n is not None and calendar.month_name[n].upper().startswith(w) else None


def _weekday(word: str) -> int | None:
    """A weekday by its first three letters or more (TUE, Thurs, friday)."""
    w = word.upper().rstrip(".,")
    n = _WEEKDAYS.get(w[:3]) if len(w) >= 3 else None
    return n if n is not None and calendar.day_name[n].upper().startswith(w) else None


def _refusal(text: str) -> TimingError:
    return TimingError(f"{text!r} is not a date this judge reads; write it like {EXAMPLES}")


def read_date(text: str, zone_name: str, now: datetime, default_time: time) -> datetime:
    """The moment ``text`` names, in UTC; TimingError says how to write one."""
    zone = zone_of(zone_name)
    words = text.replace(",", " ").split()
    if not words:
        raise _refusal(text)
    iso = _iso(words, zone)
    if iso is not None:
        return iso
    weekday = month = day = year = None
    at: time | None = None
    for word in words:
        clock = _TIME.match(word)
        if clock is not None and at is None:
            hour, minute = int(clock.group(1)), int(clock.group(2))
            if hour > 23 or minute > 59:
                raise _refusal(text)
            at = time(hour, minute)
        elif _month(word) is not None and month is None:
            month = _month(word)
        elif _weekday(word) is not None and weekday is None:
            weekday = _weekday(word)
        elif word.isdigit() and len(word) == 4 and year is None:
            year = int(word)
        elif word.isdigit() and 1 <= int(word) <= 31 and day is None:
            day = int(word)
        elif word.isdigit() and len(word) == 2 and month is not None and year is None:
            year = 2000 + int(word)  # DPjudge: a two-digit year after the month
        else:
            raise _refusal(text)
    local_now = now.astimezone(zone)
    today = local_now.date()
    when = at or default_time
    chosen = _day(today, weekday, month, day, year, text)
    # Today's weekday with a time still ahead today (Tue 18:00 on Tuesday morning): today,
    # as the master means; a time gone by, a week on.
    ahead_today = at is not None and datetime.combine(today, at) > local_now.replace(tzinfo=None)
    if weekday is not None and chosen == today + timedelta(days=7) and ahead_today:
        chosen = today
    if at is not None and chosen is None:
        chosen = today if datetime.combine(today, at) > local_now.replace(tzinfo=None) else (
            today + timedelta(days=1))  # fmt: skip
    if chosen is None:
        raise _refusal(text)
    return datetime.combine(chosen, when).replace(tzinfo=zone).astimezone(UTC)


def _iso(words: list[str], zone: object) -> datetime | None:
    """Our own form: 2026-12-01, or 2026-12-01 12:00."""
    try:
        day = date.fromisoformat(words[0])
    except ValueError:
        return None
    at = time()
    if len(words) > 1:
        clock = _TIME.match(words[1])
        if clock is None or len(words) > 2:
            return None
        at = time(int(clock.group(1)), int(clock.group(2)))
    return datetime.combine(day, at).replace(tzinfo=zone).astimezone(UTC)  # type: ignore[arg-type]


def _day(
    today: date, weekday: int | None, month: int | None, day: int | None, year: int | None,
    text: str,
) -> date | None:  # fmt: skip
    """The date the parts name, the next that fits from today; None when no part names one."""
    if weekday is not None:
        if month is not None or day is not None:
            raise _refusal(text)  # njudge: a weekday takes no month or day
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    if month is None and day is None:
        if year is not None:
            raise _refusal(text)
        return None
    try:
        if month is None:
            assert day is not None
            candidate = _valid(today.year, today.month, day)
            if candidate is None or candidate < today:
                nxt = today.replace(day=1) + timedelta(days=32)
                candidate = _valid(nxt.year, nxt.month, day)
            return candidate
        if day is None:
            day = calendar.monthrange(year or today.year, month)[1]  # njudge: the month's last day
        if year is not None:
            return date(year, month, day)
        candidate = date(today.year, month, day)
        return candidate if candidate >= today else date(today.year + 1, month, day)
    except ValueError:
        raise _refusal(text) from None


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None

"""A game's clock: the TIMING line, and the deadlines and reminders that follow from it.

``MOVE 3D RETREAT 1D ADJUST 1D AT 12:00 Europe/London DAYS MON-FRI WARN 24H,2H GRACE 12H``

Lengths are added in the game's wall-clock time, not in elapsed seconds: a deadline three
days after a Saturday 12:00 is Tuesday 12:00 even when the clocks change on the Sunday.
``AT`` moves the deadline on to the next time of day given (and ``DAYS`` to an allowed
weekday). Deadlines are stored in UTC; a wall-clock time that does not exist (the hour the
clocks skip) is read as the same time before the change, so it lands an hour later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT

DAY_NAMES = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
_LENGTH = re.compile(r"([0-9]+)\s*([DHM])")
# The longest length a TIMING line or a VOTE EXTEND may give: ten years is no game's pace,
# and a number of thousands of digits (or past what a timedelta holds) must be refused,
# not raised.
LONGEST = timedelta(days=3650)
# IANA zone names are short (the longest, America/Argentina/ComodRivadavia, has 32
# letters); a longer name is no zone, and the zone database would try it as a file name.
LONGEST_ZONE = 64
_KEYS = ("MOVE", "RETREAT", "ADJUST", "AT", "ZONE", "DAYS", "WARN", "GRACE")
# Diplonomic rule 15: a turn is a day of negotiation (00:00 to 24:00 UTC), then orders
# until 12:00 UTC the next day; retreats and adjustments are settled by 24:00 that day.
RULE15 = "RULE15"


class TimingError(ValueError):
    """A TIMING line or a time that cannot be read; the message says how to write it."""


def parse_length(text: str) -> timedelta:
    """``3D``, ``36H``, ``90M``, ``1D12H``."""
    cleaned = text.strip().upper()
    parts = _LENGTH.findall(cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned.replace(" ", ""):
        raise TimingError(f"{text!r} is not a length; write it like 3D, 36H, 90M or 1D12H")
    total = timedelta()
    for number, unit in parts:
        if len(number) > 7:  # ten million minutes is already beyond LONGEST
            raise _too_long(text)
        total += {"D": timedelta(days=1), "H": timedelta(hours=1), "M": timedelta(minutes=1)}[
            unit
        ] * int(number)
    if total > LONGEST:
        raise _too_long(text)
    return total


def _too_long(text: str) -> TimingError:
    shown = text if len(text) <= 24 else text[:21] + "..."
    return TimingError(f"{shown!r} is longer than {LONGEST.days} days; write a length like 3D, "
                       "36H or 90M")  # fmt: skip


def format_length(length: timedelta) -> str:
    minutes = int(length.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    out = (
        (f"{days}D" if days else "") + (f"{hours}H" if hours else "") + (f"{mins}M" if mins else "")
    )
    return out or "0M"


def known_zone(name: str) -> ZoneInfo | None:
    """The time zone of that IANA name, or None when there is none (a name too long for a
    file name made the zone database raise OSError, not the usual error)."""
    if not name or len(name) > LONGEST_ZONE:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def zone_of(name: str) -> ZoneInfo:
    zone = known_zone(name)
    if zone is None:
        shown = name if len(name) <= LONGEST_ZONE else name[:LONGEST_ZONE] + "..."
        raise TimingError(
            f"{shown!r} is not a time zone; use a name like UTC, Europe/London or America/New_York"
        )
    return zone


def _parse_days(text: str) -> frozenset[int]:
    days: set[int] = set()
    for part in text.upper().split(","):
        first, sep, last = part.partition("-")
        try:
            a = DAY_NAMES.index(first.strip()[:3])
            b = DAY_NAMES.index(last.strip()[:3]) if sep else a
        except ValueError:
            raise TimingError(
                f"{part!r} is not a weekday; write DAYS MON-FRI or DAYS SAT,SUN"
            ) from None
        day = a
        while True:
            days.add(day)
            if day == b:
                break
            day = (day + 1) % 7
    return frozenset(days)


def _format_days(days: frozenset[int]) -> str:
    return ",".join(DAY_NAMES[d] for d in sorted(days))


@dataclass(frozen=True)
class Timing:
    move: timedelta = timedelta(days=3)
    retreat: timedelta = timedelta(days=1)
    adjust: timedelta = timedelta(days=1)
    at: time | None = None
    zone: str = "UTC"
    days: frozenset[int] = field(default_factory=lambda: frozenset(range(7)))
    warn: tuple[timedelta, ...] = (timedelta(hours=24),)
    grace: timedelta = timedelta()
    preset: str = ""  # RULE15: the clock of Diplonomic rule 15 instead of lengths

    @classmethod
    def parse(cls, text: str, default_zone: str = "UTC") -> Timing:
        """Read a TIMING line; keys may come in any order, any may be left out."""
        words = text.replace("=", " ").split()
        values: dict[str, list[str]] = {}
        key = None
        preset = ""
        if words and words[0].upper() == RULE15:
            preset, words = RULE15, words[1:]
        for word in words:
            if word.upper() in _KEYS:
                key = word.upper()
                values[key] = []
            elif key is None:
                raise TimingError(
                    f"{word!r} is not expected; TIMING takes MOVE, RETREAT, ADJUST, AT, DAYS, "
                    "WARN and GRACE, like: MOVE 3D RETREAT 1D AT 12:00 Europe/London WARN 24H,2H"
                    " (or RULE15 [WARN ...] [GRACE ...] for Diplonomic rule 15)"
                )
            else:
                values[key].append(word)
        timing = cls(zone=default_zone)
        kwargs: dict[str, object] = {}
        if preset:
            clash = [k for k in values if k not in ("WARN", "GRACE")]
            if clash:
                raise TimingError(
                    f"RULE15 sets the clock itself (UTC); {', '.join(clash)} cannot go with it:"
                    " write RULE15 WARN 12H GRACE 1H, say"
                )
            kwargs.update(preset=preset, zone="UTC")
        for name in ("MOVE", "RETREAT", "ADJUST", "GRACE"):
            if name in values:
                kwargs[name.lower()] = parse_length(" ".join(values[name]))
        if "AT" in values:
            at_words = values["AT"]
            if not at_words:
                raise TimingError("write AT 12:00 (and a zone if you like: AT 12:00 Europe/London)")
            try:
                clock = at_words[0] if ":" in at_words[0] else at_words[0] + ":00"
                kwargs["at"] = time.fromisoformat(clock.zfill(5))
            except ValueError:
                raise TimingError(f"{at_words[0]!r} is not a time of day; write AT 12:00") from None
            if len(at_words) > 1:
                kwargs["zone"] = zone_of(at_words[1]).key
        if "ZONE" in values:
            if len(values["ZONE"]) != 1:
                raise TimingError("write ZONE Europe/London (one zone name)")
            kwargs["zone"] = zone_of(values["ZONE"][0]).key
        if "DAYS" in values:
            kwargs["days"] = _parse_days(",".join(values["DAYS"]))
        if "WARN" in values:
            joined = ",".join(values["WARN"])
            kwargs["warn"] = tuple(
                sorted((parse_length(w) for w in joined.split(",") if w.strip()), reverse=True)
            )
        for name, length in kwargs.items():
            if name in ("move", "retreat", "adjust") and length <= timedelta():  # type: ignore[operator]
                raise TimingError(f"{name.upper()} must be longer than nothing")
        return _replace(timing, kwargs)

    def __str__(self) -> str:
        parts = (
            [self.preset]
            if self.preset
            else [
                f"MOVE {format_length(self.move)}",
                f"RETREAT {format_length(self.retreat)}",
                f"ADJUST {format_length(self.adjust)}",
            ]
        )
        if self.preset:
            pass
        elif self.at is not None:
            parts.append(f"AT {self.at:%H:%M} {self.zone}")
        elif self.zone != "UTC":
            parts.append(f"ZONE {self.zone}")
        if len(self.days) < 7:
            parts.append(f"DAYS {_format_days(self.days)}")
        if self.warn:
            parts.append("WARN " + ",".join(format_length(w) for w in self.warn))
        if self.grace:
            parts.append(f"GRACE {format_length(self.grace)}")
        return " ".join(parts)

    def length(self, phase_type: str) -> timedelta:
        return {MOVEMENT: self.move, RETREAT: self.retreat, ADJUSTMENT: self.adjust}[phase_type]

    def deadline_after(self, start: datetime, phase_type: str) -> datetime:
        """The deadline of a phase that begins at ``start`` (aware), in UTC."""
        if self.preset == RULE15:
            return _rule15_deadline(start, phase_type)
        zone = zone_of(self.zone)
        local = start.astimezone(zone).replace(tzinfo=None)  # wall-clock time
        target = local + self.length(phase_type)
        if self.at is not None:
            candidate = datetime.combine(target.date(), self.at)
            if candidate < target:
                candidate += timedelta(days=1)
            target = candidate
        for _ in range(7):
            if target.weekday() in self.days:
                break
            target += timedelta(days=1)
        return target.replace(tzinfo=zone).astimezone(UTC)

    def reminders(self, deadline: datetime) -> list[datetime]:
        """When to remind the late, in UTC, earliest first (wall-clock hours before)."""
        zone = zone_of(self.zone)
        local = deadline.astimezone(zone).replace(tzinfo=None)
        return sorted((local - w).replace(tzinfo=zone).astimezone(UTC) for w in self.warn)


def _rule15_deadline(start: datetime, phase_type: str) -> datetime:
    """Movement: the turn begins at the first midnight UTC from ``start`` and its orders
    are due at noon the day after. Retreats are due six hours after they begin and
    adjustments at the next midnight, so both are settled before the next turn begins."""
    start = start.astimezone(UTC)
    midnight = datetime.combine(start.date(), time(), UTC)
    after = midnight + timedelta(days=1)  # the next midnight strictly after start
    if phase_type == MOVEMENT:
        return (midnight if start == midnight else after) + timedelta(hours=36)
    if phase_type == RETREAT:
        return min(start + timedelta(hours=6), after)
    return after


def _replace(timing: Timing, values: dict[str, object]) -> Timing:
    from dataclasses import replace

    return replace(timing, **values)  # type: ignore[arg-type]


def shift_past(deadline: datetime, until: datetime, timing: Timing, phase_type: str) -> datetime:
    """A deadline moved so that it falls after ``until`` (an absence's end), keeping the
    game's time of day: the phase length is counted again from the end of the absence."""
    if deadline >= until:
        return deadline
    return (
        timing.deadline_after(until, phase_type) if timing.at is None else _next_at(until, timing)
    )


def _next_at(after: datetime, timing: Timing) -> datetime:
    zone = zone_of(timing.zone)
    local = after.astimezone(zone).replace(tzinfo=None)
    assert timing.at is not None
    candidate = datetime.combine(local.date(), timing.at)
    while candidate <= local or candidate.weekday() not in timing.days:
        candidate += timedelta(days=1)
    return candidate.replace(tzinfo=zone).astimezone(UTC)


def parse_when(text: str, zone_name: str) -> datetime:
    """``2026-12-01 12:00`` or ``2026-12-01`` in a zone, to an aware UTC datetime."""
    zone = zone_of(zone_name)
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        try:
            value = datetime.combine(date.fromisoformat(text.strip()), time())
        except ValueError:
            raise TimingError(
                f"{text!r} is not a date; write 2026-12-01 or 2026-12-01 12:00"
            ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC)


def show(moment: datetime, zone_name: str) -> str:
    """A time as players read it: wall-clock time and the zone's name."""
    local = moment.astimezone(zone_of(zone_name))
    label = local.tzname()
    shown = label if label == zone_name else f"{label} ({zone_name})"  # never "UTC (UTC)"
    return f"{local:%a %Y-%m-%d %H:%M} {shown}"


def second_zone(zone_name: str, own_zone: str | None) -> tuple[str, str] | None:
    """The other zone a person reads a time in, and the words after it: their own (SET
    ZONE) when it differs from the game's; UTC when they set none and the game's is not
    UTC, so that nobody must know a far zone's offset. None when one zone says it all."""
    if own_zone:
        return (own_zone, "in your zone") if own_zone != zone_name else None
    return ("UTC", "") if zone_name != "UTC" else None  # a UTC time names its zone


def show_both(moment: datetime, zone_name: str, own_zone: str | None) -> str:
    """A time on one line: in the game's zone, then in the reader's (or UTC) in brackets."""
    text = show(moment, zone_name)
    other = second_zone(zone_name, own_zone)
    if other is not None:
        words = f"{show(moment, other[0])} {other[1]}".rstrip()
        text += f" ({words})"
    return text


def show_lines(
    moment: datetime, zone_name: str, own_zone: str | None, label: str = "Deadline"
) -> list[str]:
    """A time on two lines, for a mail: ``Deadline: ...`` in the game's zone, then
    ``In your zone: ...`` (or ``In UTC: ...``) when a second zone says more."""
    lines = [f"{label}: {show(moment, zone_name)}"]
    other = second_zone(zone_name, own_zone)
    if other is not None:
        lines.append(f"{other[1].capitalize() or 'In UTC'}: {show(moment, other[0])}")
    return lines

"""A phase's deadline as an iCalendar event (RFC 5545), for the players' calendars.

Two forms: an invitation to one seat (iTIP, RFC 5546: ``METHOD:REQUEST``, or ``CANCEL``
when the deadline no longer holds), sent by mail as iMIP (RFC 6047), and the game's feed
on the web (``METHOD:PUBLISH``, no attendee), which a calendar subscribes to. The icalendar
library writes the text (line folding, escaping, the UTC times). This module takes data and
returns the calendar's bytes; game/calendar.py gathers the data from a game.

One event a phase, with the same UID in every form and every mail, so that a client
updates the event it has rather than adding another: a moved deadline is the same UID with
a higher SEQUENCE (Game.deadline_sequence). The event starts at the deadline and lasts
EVENT_LENGTH (an event with no end is shown as a whole day by Google Calendar and
Evolution); it is TRANSPARENT, so it never makes the player look busy. Its alarms ring at
the game's WARN times before the deadline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from icalendar import Alarm, Calendar, Event, vCalAddress, vDuration

from mailjudge.render import render

PRODID = "-//mailjudge//Diplomacy deadlines//EN"
EVENT_LENGTH = timedelta(minutes=15)
# How often a subscribed calendar should fetch the feed again (RFC 7986; Outlook's own).
FEED_REFRESH = timedelta(hours=1)


class Method(StrEnum):
    """The iTIP method of a calendar (RFC 5546 1.4)."""

    REQUEST = "REQUEST"  # a deadline set or moved
    CANCEL = "CANCEL"  # a deadline that no longer holds
    PUBLISH = "PUBLISH"  # the web's feed


@dataclass(frozen=True)
class DeadlineEvent:
    """One phase's deadline, as every form of its event shows it."""

    uid: str  # event_uid()
    game: str
    phase: str  # S1901M
    phase_label: str  # Spring 1901 movement
    deadline: datetime | None  # UTC; None when unknown (the CANCEL of a phase gone)
    warn: tuple[timedelta, ...]  # the reminders, this long before the deadline
    sequence: int  # Game.deadline_sequence when the event was last changed
    judge: str  # the judge's address: where orders go, and the organizer
    judge_name: str = ""
    link: str | None = None  # the game's page, when the web is public
    cancelled: str = ""  # why the deadline no longer holds ("" while it does)


@dataclass(frozen=True)
class Attendee:
    """The person in a seat, invited to the deadlines of the seat's powers."""

    address: str
    seat: str  # the seat's name, for SIGNON: france
    powers: tuple[str, ...]


def event_uid(game: str, created: datetime, phase: str, domain: str) -> str:
    """The event's UID, the same for a phase in every mail and feed: the game's name and
    creation time (a later game of the same name is another game) and the phase, on the
    judge's domain (RFC 5545 3.8.4.7)."""
    return f"{game}-{created.astimezone(UTC):%Y%m%dT%H%M%SZ}-{phase}@{domain.lower()}"


def summary(event: DeadlineEvent) -> str:
    return f"Diplomacy game {event.game}: orders for {event.phase_label} due"


def invitation(event: DeadlineEvent, attendee: Attendee, method: Method, stamp: datetime) -> bytes:
    """The calendar mailed to one seat: REQUEST (the deadline, set or moved) or CANCEL.
    Only the seat's own address is an attendee: no player learns another's."""
    if method not in (Method.REQUEST, Method.CANCEL):
        raise ValueError(f"an invitation is a REQUEST or a CANCEL, not {method}")
    if method == Method.REQUEST and (event.deadline is None or event.cancelled):
        raise ValueError("a REQUEST needs a deadline that holds")
    calendar = _calendar(method)
    vevent = _event(event, stamp, alarms=method == Method.REQUEST)
    person = vCalAddress(f"mailto:{attendee.address}")
    person.params["cn"] = " ".join(attendee.powers) or attendee.seat.upper()
    person.params["cutype"] = "INDIVIDUAL"
    person.params["role"] = "REQ-PARTICIPANT"
    person.params["rsvp"] = "FALSE"  # the judge takes orders, not answers to this
    vevent.add("attendee", person)
    vevent.add("description", _description(event, attendee))
    calendar.add_component(vevent)
    return bytes(calendar.to_ical())


def feed(
    game: str, events: Sequence[DeadlineEvent], stamp: datetime, judge_name: str = ""
) -> bytes:
    """The game's deadlines for the web, for a calendar to subscribe to: the current
    phase's while the game is under way (cancelled while it is paused), none otherwise."""
    calendar = _calendar(Method.PUBLISH)
    calendar.add("name", f"Diplomacy game {game}")
    calendar.add("x-wr-calname", f"Diplomacy game {game}")
    calendar.add("refresh-interval", FEED_REFRESH, parameters={"value": "DURATION"})
    calendar.add("x-published-ttl", vDuration(FEED_REFRESH))
    for event in events:
        vevent = _event(event, stamp, alarms=not event.cancelled)
        vevent.add("description", _description(event, None))
        calendar.add_component(vevent)
    return bytes(calendar.to_ical())


def _calendar(method: Method) -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", method.value)
    return calendar


def _event(event: DeadlineEvent, stamp: datetime, alarms: bool) -> Event:
    """The VEVENT every form shares; the attendee and description are the caller's."""
    vevent = Event()
    vevent.add("uid", event.uid)
    vevent.add("dtstamp", stamp.astimezone(UTC).replace(microsecond=0))
    vevent.add("sequence", event.sequence)
    vevent.add("summary", summary(event))
    if event.deadline is not None:
        start = event.deadline.astimezone(UTC).replace(microsecond=0)
        vevent.add("dtstart", start)
        vevent.add("dtend", start + EVENT_LENGTH)
    vevent.add("status", "CANCELLED" if event.cancelled else "CONFIRMED")
    vevent.add("transp", "TRANSPARENT")
    organizer = vCalAddress(f"mailto:{event.judge}")
    if event.judge_name:
        organizer.params["cn"] = event.judge_name
    vevent.add("organizer", organizer)
    if event.link:
        vevent.add("url", event.link)
    if alarms and event.deadline is not None:
        for before in sorted(event.warn, reverse=True):
            vevent.add_component(_alarm(event, before))
    return vevent


def _alarm(event: DeadlineEvent, before: timedelta) -> Alarm:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -before)  # before the start, which is the deadline
    alarm.add("description", f"{summary(event)} in {in_words(before)}")
    return alarm


def in_words(length: timedelta) -> str:
    """A WARN time as a reader says it: ``1 day``, ``2 hours``, ``1 day 12 hours``."""
    minutes = int(length.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{n} {unit}{'' if n == 1 else 's'}"
             for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute")) if n]  # fmt: skip
    return " ".join(parts) or "0 minutes"


def _description(event: DeadlineEvent, attendee: Attendee | None) -> str:
    return render(
        "calendar_event.txt.j2", event=event, attendee=attendee,
        warn=[in_words(w) for w in sorted(event.warn, reverse=True)],
    ).strip()  # fmt: skip

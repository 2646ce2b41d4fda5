"""A validator for the judge's calendars, for the tests: the text as RFC 5545 writes it,
and each method's required and forbidden properties as RFC 5546 3.2 tables them for a
VEVENT (PUBLISH 3.2.1, REQUEST 3.2.2, CANCEL 3.2.5). No network: icalendar parses, and
the rules are checked here, so a calendar a client would refuse fails a test."""

from __future__ import annotations

from email.message import EmailMessage

from icalendar import Calendar, Component

# Per method: properties each VEVENT must have exactly once, and those it must not have.
# SEQUENCE "MUST be present if value is greater than 0" (RFC 5546 3.2.2): a judge's event
# is always above 0 (game.deadline_sequence counts the scheduling itself), so required.
REQUIRED = {
    "PUBLISH": ("DTSTAMP", "DTSTART", "ORGANIZER", "SUMMARY", "UID"),
    "REQUEST": ("DTSTAMP", "DTSTART", "ORGANIZER", "SEQUENCE", "SUMMARY", "UID"),
    "CANCEL": ("DTSTAMP", "ORGANIZER", "SEQUENCE", "UID"),
}
FORBIDDEN = {
    "PUBLISH": ("ATTENDEE", "REQUEST-STATUS"),
    "REQUEST": ("REQUEST-STATUS",),
    "CANCEL": ("REQUEST-STATUS",),
}
# At most once in a VEVENT (RFC 5545 3.6.1, eventprop).
ONCE = ("CLASS", "CREATED", "DESCRIPTION", "DTSTART", "GEO", "LAST-MODIFIED", "LOCATION",
        "ORGANIZER", "PRIORITY", "SEQUENCE", "STATUS", "SUMMARY", "TRANSP", "URL",
        "RECURRENCE-ID", "DTEND", "DURATION", "DTSTAMP", "UID")  # fmt: skip
STATUSES = {"TENTATIVE", "CONFIRMED", "CANCELLED"}


def check_text(data: bytes) -> None:
    """RFC 5545 3.1: CRLF line ends, no line longer than 75 octets, UTF-8."""
    data.decode("utf-8")
    assert data.endswith(b"\r\n"), "the last line must end with CRLF"
    lines = data.split(b"\r\n")[:-1]
    assert all(b"\n" not in line and b"\r" not in line for line in lines), "a bare LF or CR"
    long = [line for line in lines if len(line) > 75]
    assert not long, f"lines longer than 75 octets: {long[:2]}"


def calendar_of(part: EmailMessage) -> bytes:
    """A mail's text/calendar part as the calendar file it carries (its lines end with
    CRLF, as on the wire)."""
    assert part.get_content_type() == "text/calendar", part.get_content_type()
    text = part.get_content()
    assert isinstance(text, str)
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def check_itip(data: bytes, method: str) -> Calendar:
    """The calendar ``data``, checked as an iTIP object of ``method``; returned parsed."""
    check_text(data)
    calendar = Calendar.from_ical(data)
    assert calendar.name == "VCALENDAR", calendar.name
    assert str(calendar.get("VERSION")) == "2.0", "VERSION:2.0 is required"
    assert calendar.get("PRODID"), "PRODID is required"
    assert str(calendar.get("METHOD")) == method, calendar.get("METHOD")
    events = calendar.walk("VEVENT")
    if method != "PUBLISH":
        assert events, f"a {method} carries at least one VEVENT"
        assert len({str(e["UID"]) for e in events}) == 1, "one UID in an iTIP message"
    for event in events:
        check_event(event, method)
    return calendar


def _count(component: Component, name: str) -> int:
    value = component.get(name)
    if value is None:
        return 0
    return len(value) if isinstance(value, list) else 1


def check_event(event: Component, method: str) -> None:
    for name in REQUIRED[method]:
        assert _count(event, name) == 1, f"{method}: {name} must appear once"
    for name in FORBIDDEN[method]:
        assert _count(event, name) == 0, f"{method}: {name} must not appear"
    for name in ONCE:
        assert _count(event, name) <= 1, f"{name} more than once"
    assert not ("DTEND" in event and "DURATION" in event), "DTEND and DURATION both"
    if "DTEND" in event:
        assert event.decoded("DTEND") > event.decoded("DTSTART"), "DTEND not after DTSTART"
    if "STATUS" in event:
        assert str(event["STATUS"]) in STATUSES
    if method == "REQUEST":
        assert _count(event, "ATTENDEE") >= 1, "REQUEST: at least one ATTENDEE"
    if method == "CANCEL":  # the whole event: "MUST include all Attendees" (3.2.5)
        assert _count(event, "ATTENDEE") >= 1, "CANCEL of an event: its ATTENDEEs"
        assert str(event.get("STATUS", "CANCELLED")) == "CANCELLED"
        assert not event.walk("VALARM"), "CANCEL: no VALARM"
    for address in _addresses(event):
        assert address.lower().startswith("mailto:"), address
    for alarm in event.walk("VALARM"):
        check_alarm(alarm)


def _addresses(event: Component) -> list[str]:
    found = []
    for name in ("ORGANIZER", "ATTENDEE"):
        value = event.get(name)
        values = value if isinstance(value, list) else [value] if value is not None else []
        found += [str(v) for v in values]
    return found


def check_alarm(alarm: Component) -> None:
    """RFC 5545 3.6.6: ACTION and TRIGGER; a DISPLAY alarm has a DESCRIPTION."""
    assert _count(alarm, "ACTION") == 1 and _count(alarm, "TRIGGER") == 1, "ACTION, TRIGGER"
    if str(alarm["ACTION"]) == "DISPLAY":
        assert _count(alarm, "DESCRIPTION") == 1, "a DISPLAY alarm needs a DESCRIPTION"

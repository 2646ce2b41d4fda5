"""Deadlines as calendar events (issue 34 point 4): the iCalendar text render/calendar.py
writes, checked by the iTIP validator in tests/helpers/itip.py; the text/calendar part of a mail
(outbound/invitation.py) read back from the bytes a relay would get; and the SEQUENCE,
which goes up with every change of a game's deadline (game/schedule.py), on a game played
through the service."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from helpers.itip import calendar_of, check_itip, check_text
from icalendar import Calendar

from mailjudge.game import schedule
from mailjudge.game.calendar import (
    Change,
    deadline_event,
    game_feed,
    invitation_ics,
    invitation_part,
    invited_seats,
)  # fmt: skip
from mailjudge.game.state import get_game
from mailjudge.outbound.invitation import add_invitation, calendar_part
from mailjudge.outbound.message import Attachment, build_message
from mailjudge.render.calendar import Attendee, DeadlineEvent, Method, event_uid, feed, invitation
from mailjudge.service import processing
from mailjudge.service.games import create_game, pause_game, resume_game
from mailjudge.service.results import results_calendar
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import GameState, Seat

DEADLINE = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
STAMP = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
FRANCE = Attendee("france@players.test", "france", ("FRANCE",))


def event(**changes: object) -> DeadlineEvent:
    values: dict[str, object] = {
        "uid": event_uid("g1", datetime(2026, 11, 30, tzinfo=UTC), "S1901M", "Judge.Test"),
        "game": "g1", "phase": "S1901M", "phase_label": "Spring 1901 movement",
        "deadline": DEADLINE, "warn": (timedelta(hours=2), timedelta(hours=24)),
        "sequence": 4, "judge": "judge@judge.test", "judge_name": "Le Juge Ä",
        "link": "https://judge.test/games/g1",
    }  # fmt: skip
    values.update(changes)
    return DeadlineEvent(**values)  # type: ignore[arg-type]


def test_a_request_validates_and_says_when_and_to_whom() -> None:
    data = invitation(event(), FRANCE, Method.REQUEST, STAMP)
    vevent = check_itip(data, "REQUEST").walk("VEVENT")[0]
    assert str(vevent["UID"]) == "g1-20261130T000000Z-S1901M@judge.test"
    assert vevent.decoded("DTSTART") == DEADLINE
    assert vevent.decoded("DTSTAMP") == STAMP.replace(microsecond=0)
    assert int(vevent["SEQUENCE"]) == 4
    assert str(vevent["STATUS"]) == "CONFIRMED" and str(vevent["TRANSP"]) == "TRANSPARENT"
    assert str(vevent["SUMMARY"]) == "Diplomacy game g1: orders for Spring 1901 movement due"
    assert str(vevent["ORGANIZER"]) == "mailto:judge@judge.test"
    assert vevent["ORGANIZER"].params["CN"] == "Le Juge Ä"
    attendee = vevent["ATTENDEE"]
    assert str(attendee) == "mailto:france@players.test" and attendee.params["RSVP"] == "FALSE"
    # One alarm for each WARN time, that long before the deadline.
    triggers = sorted(a.decoded("TRIGGER") for a in vevent.walk("VALARM"))
    assert triggers == [-timedelta(hours=24), -timedelta(hours=2)]
    description = str(vevent["DESCRIPTION"])
    assert "SIGNON france@g1 yourpassword" in description and "judge@judge.test" in description
    assert "1 day and 2 hours before" in description


def test_a_cancel_validates_and_carries_no_alarm() -> None:
    gone = event(deadline=None, cancelled="Spring 1901 movement of game g1 has been processed",
                 sequence=5)  # fmt: skip
    vevent = check_itip(invitation(gone, FRANCE, Method.CANCEL, STAMP), "CANCEL").walk("VEVENT")[0]
    assert str(vevent["STATUS"]) == "CANCELLED" and int(vevent["SEQUENCE"]) == 5
    assert "DTSTART" not in vevent and not vevent.walk("VALARM")
    assert "has been processed" in str(vevent["DESCRIPTION"])
    with pytest.raises(ValueError, match="needs a deadline"):
        invitation(gone, FRANCE, Method.REQUEST, STAMP)
    with pytest.raises(ValueError, match="REQUEST or a CANCEL"):
        invitation(event(), FRANCE, Method.PUBLISH, STAMP)


def test_the_feed_publishes_without_attendees() -> None:
    data = feed("g1", [event(), event(uid="other@judge.test", cancelled="paused")], STAMP)
    calendar = check_itip(data, "PUBLISH")
    assert str(calendar["X-WR-CALNAME"]) == "Diplomacy game g1"
    running, paused = calendar.walk("VEVENT")
    assert len(running.walk("VALARM")) == 2 and not paused.walk("VALARM")
    assert str(paused["STATUS"]) == "CANCELLED"
    check_itip(feed("g1", [], STAMP), "PUBLISH")  # a game with no deadline: no event


def test_the_validator_refuses_what_a_client_would() -> None:
    """The checks can fail: a REQUEST with no attendee, a PUBLISH with one, an alarm with
    no text, an unfolded line, a bare LF."""
    good = invitation(event(), FRANCE, Method.REQUEST, STAMP).decode()
    lines = good.splitlines(True)
    no_attendee = "".join(x for x in lines if x[:9] not in ("ATTENDEE;", " o:france")).encode()
    with pytest.raises(AssertionError, match="ATTENDEE"):
        check_itip(no_attendee, "REQUEST")
    published = good.replace("METHOD:REQUEST", "METHOD:PUBLISH").encode()
    with pytest.raises(AssertionError, match="ATTENDEE must not appear"):
        check_itip(published, "PUBLISH")
    silent = Calendar.from_ical(good)
    del silent.walk("VALARM")[0]["DESCRIPTION"]
    with pytest.raises(AssertionError, match="DISPLAY alarm needs a DESCRIPTION"):
        check_itip(silent.to_ical(), "REQUEST")
    with pytest.raises(AssertionError, match="longer than 75"):
        check_text(good.replace("\r\n ", "").encode())
    with pytest.raises(AssertionError, match="bare LF"):
        check_text(good.replace("\r\n", "\n", 3).encode())


def read_back(message: EmailMessage) -> EmailMessage:
    """The mail as the relay gets it, parsed again."""
    raw = message.as_bytes(policy=policy.SMTP)
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed


@pytest.mark.parametrize("form", ["plain", "html", "attachment"])
def test_the_invitation_is_the_last_alternative_of_the_text(form: str) -> None:
    """RFC 6047: an inline text/calendar part with the method as a parameter, beside the
    mail's text (as Outlook and Gmail send theirs), never a .ics attachment."""
    html = "<p>Orders are due.</p>" if form == "html" else None
    svg = [Attachment("board.svg", b"<svg/>", "image/svg+xml")] if form == "attachment" else []
    message = build_message(
        sender="judge@judge.test", to=[FRANCE.address], subject="[g1] x",
        text="Orders are due.", html=html, attachments=svg,
    )  # fmt: skip
    data = invitation(event(), FRANCE, Method.REQUEST, STAMP)
    add_invitation(message, calendar_part(data))
    mail = read_back(message)
    alternative = next(p for p in mail.walk() if p.get_content_type() == "multipart/alternative")
    parts = list(alternative.iter_parts())
    assert parts[0].get_content_type() == "text/plain"
    calendar = parts[-1]
    assert calendar.get_content_type() == "text/calendar"
    assert calendar.get_param("method") == "REQUEST"
    assert str(calendar.get_content_charset()) == "utf-8"
    assert calendar.get("Content-Disposition") is None
    check_itip(calendar_of(calendar), "REQUEST")
    assert Calendar.from_ical(calendar.get_content()).walk("VEVENT")[0]["UID"] == event().uid


def started_game(name: str = "cal") -> tuple[object, Seat]:
    game = create_game(name, "master@example.org", "master-pw", rules="POWER_CHOICE")
    rng = random.Random(1)
    for i in range(7):
        join(game, f"player{i}@example.org", f"pw{i}", rng=rng)
    game = get_game(name)
    assert game.state == "active" and game.deadline is not None
    return game, seat_for_power(game, "FRANCE")


def whole(moment: datetime) -> datetime:
    """A deadline as the calendar shows it: to the second, never later than it is."""
    return moment.replace(microsecond=0)


def sequence_and_uid(part: EmailMessage | None, method: str) -> tuple[int, str, object]:
    assert part is not None and part.get_param("method") == method
    vevent = check_itip(calendar_of(part), method).walk("VEVENT")[0]
    start = vevent.decoded("DTSTART") if "DTSTART" in vevent else None
    return int(vevent["SEQUENCE"]), str(vevent["UID"]), start


def test_every_change_of_the_deadline_raises_the_sequence(sqlite_db: str) -> None:
    game, france = started_game()
    first, uid, start = sequence_and_uid(invitation_part(game, france, Change.NEW), "REQUEST")
    assert start == whole(game.deadline) and uid.endswith("-S1901M@" + uid.rpartition("@")[2])
    seen = [first]
    now = game.started_at
    schedule.set_deadline(game, game.deadline + timedelta(days=1), now)  # SET DEADLINE
    seen.append(sequence_and_uid(invitation_part(game, france, Change.MOVED), "REQUEST")[0])
    before = game.deadline
    france = seat_for_power(game, "FRANCE")
    around = (before - timedelta(hours=1), before + timedelta(days=1))
    schedule.set_absence(france, *(f"{t:%Y-%m-%d %H:%M}" for t in around), now=now)
    game = get_game("cal")
    assert game.deadline > before  # the absence moved it
    seen.append(sequence_and_uid(invitation_part(game, france, Change.MOVED), "REQUEST")[0])
    schedule.set_timing(game, "MOVE 5D WARN 12H", now)  # a new TIMING
    seen.append(sequence_and_uid(invitation_part(game, france, Change.MOVED), "REQUEST")[0])
    pause_game(game)
    seen.append(sequence_and_uid(invitation_part(game, france, Change.PAUSED), "CANCEL")[0])
    resume_game(game)
    seq, same_uid, start = sequence_and_uid(invitation_part(game, france, Change.MOVED), "REQUEST")
    seen.append(seq)
    assert same_uid == uid and start == whole(game.deadline)
    assert seen == sorted(set(seen)), f"the SEQUENCE must grow with every change: {seen}"
    # Processed: the phase's event is cancelled with a SEQUENCE above all it had, and the
    # next phase's is a new event.
    processing.process(game, force=True, now=now)
    game = get_game("cal")
    gone = sequence_and_uid(invitation_part(game, france, Change.GONE, phase="S1901M"), "CANCEL")
    assert gone[0] > max(seen) and gone[1] == uid and gone[2] is None
    new = sequence_and_uid(invitation_part(game, france, Change.NEW), "REQUEST")
    assert new[1] != uid and new[1].split("@")[0].endswith("-F1901M")
    assert deadline_event(game).warn == (timedelta(hours=12),)


def test_no_request_without_a_deadline_and_the_feed_follows_the_game(sqlite_db: str) -> None:
    game, france = started_game("nodl")
    check_itip(game_feed(game), "PUBLISH")
    assert len(Calendar.from_ical(game_feed(game)).walk("VEVENT")) == 1
    pause_game(game)
    assert invitation_part(game, france, Change.NEW) is None  # paused: no REQUEST
    paused = Calendar.from_ical(game_feed(game)).walk("VEVENT")
    assert [str(e["STATUS"]) for e in paused] == ["CANCELLED"]
    vacant = Seat(game=game, role="player", name="x", person=None)
    assert invitation_part(game, vacant, Change.NEW) is None
    resume_game(game)
    part = invitation_part(game, france, Change.NEW, now=STAMP)
    stored = invitation_ics(game, france, Change.NEW, now=STAMP)  # as the outbox keeps it
    assert part is not None and stored is not None and calendar_of(part) == stored
    watcher = Seat(game=game, role="observer", name="w", person=france.person)
    assert invitation_part(game, watcher, Change.NEW) is None
    master = Seat.get((Seat.game == game) & (Seat.role == "master"))
    assert invitation_part(game, master, Change.NEW) is not None
    assert {s.role for s in invited_seats(game)} == {"player", "master"}
    pause_game(game)
    forming = create_game("forming", "master@example.org", "master-pw")
    assert Calendar.from_ical(game_feed(forming)).walk("VEVENT") == []


def test_a_second_parser_reads_the_same_events() -> None:
    """ical, written apart from the icalendar that writes them, reads each form and
    finds the same UID, times, SEQUENCE, status and alarms."""
    from ical.calendar_stream import IcsCalendarStream

    request = invitation(event(), FRANCE, Method.REQUEST, STAMP)
    gone = event(deadline=None, cancelled="the phase has been processed", sequence=9)
    cancel = invitation(gone, FRANCE, Method.CANCEL, STAMP)
    published = feed("g1", [event()], STAMP)
    for data, method in ((request, "REQUEST"), (cancel, "CANCEL"), (published, "PUBLISH")):
        calendar = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
        assert (
            calendar.method == method and calendar.prodid == "-//mailjudge//Diplomacy deadlines//EN"
        )
        (read,) = calendar.events
        assert read.uid == event().uid and read.dtstamp == STAMP.replace(microsecond=0)
        if method == "CANCEL":
            assert read.status == "CANCELLED" and read.sequence == 9 and not read.alarm
            continue
        assert read.dtstart == DEADLINE and read.dtend == DEADLINE + timedelta(minutes=15)
        assert read.sequence == 4 and read.status == "CONFIRMED"
        assert sorted(a.trigger for a in read.alarm) == [-timedelta(hours=24), -timedelta(hours=2)]
        expected = [("mailto:france@players.test", False)] if method == "REQUEST" else []
        assert [(a.uri, a.rsvp) for a in read.attendees] == expected
        assert read.organizer is not None and read.organizer.uri == "mailto:judge@judge.test"


def test_the_results_carry_the_next_deadline_or_withdraw_an_early_ending(sqlite_db: str) -> None:
    """A phase's results invite to the next deadline; a game that ended on a phase processed
    before its deadline withdraws that deadline instead (there is no next one to send)."""
    game, _ = started_game("early")
    s1901 = event_uid("early", game.created_at, "S1901M", "example.org").split("@")[0]
    done = processing.process(game, force=True, now=game.deadline - timedelta(hours=1))
    assert done is not None and done.early
    game = get_game("early")
    france = seat_for_power(game, "FRANCE")
    ics = results_calendar(game, france, done)
    assert ics is not None
    event = check_itip(ics, "REQUEST").walk("VEVENT")[0]
    assert str(event["UID"]).split("@")[0].endswith("-F1901M")
    game.state = GameState.FINISHED  # as if that phase had ended the game
    ics = results_calendar(game, france, done)
    assert ics is not None
    event = check_itip(ics, "CANCEL").walk("VEVENT")[0]
    assert str(event["UID"]).split("@")[0] == s1901
    game = get_game("early")
    late = processing.process(game, force=True, now=game.deadline + timedelta(minutes=1))
    assert late is not None and not late.early

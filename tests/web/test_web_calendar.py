"""/games/NAME/deadlines.ics, read with Starlette's test client over a game played by mail
through the SMTP listener: the feed parses with icalendar and validates as iTIP PUBLISH,
its event is the game's deadline with an alarm at each WARN time, a deadline the master
moves by mail is the same event with a higher SEQUENCE, a paused game's is cancelled, an
unchanged feed is a 304, and a game not public has none."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from helpers.e2e import MASTER as MASTER_ADDRESS
from helpers.e2e import Harness, seated
from helpers.itip import check_itip
from icalendar import Calendar, Component
from starlette.testclient import TestClient

from mailjudge.config.settings import current_settings
from mailjudge.game.state import get_game
from mailjudge.store.models import utcnow
from mailjudge.web.app import make_app

MASTER = "SIGNON Mcal masterpw\n"


@pytest.fixture
def web(harness: Harness) -> Iterator[TestClient]:
    with TestClient(make_app(cache_seconds=0)) as client:
        yield client


def the_event(web: TestClient, game: str = "cal") -> Component | None:
    got = web.get(f"/games/{game}/deadlines.ics")
    assert got.status_code == 200
    assert got.headers["content-type"] == "text/calendar; charset=utf-8"
    events = check_itip(got.content, "PUBLISH").walk("VEVENT")
    assert len(events) <= 1
    return events[0] if events else None


def test_the_deadlines_feed_follows_the_game_by_mail(harness: Harness, web: TestClient) -> None:
    table = seated(harness, "cal")
    table.sign_on()
    table.say(table.master, MASTER + "SET TIMING MOVE 2D RETREAT 1D ADJUST 1D WARN 24H,2H", "2H")
    event = the_event(web)
    assert event is not None
    game = get_game("cal")
    assert game.deadline is not None
    assert event.decoded("DTSTART") == game.deadline.replace(microsecond=0)
    uid, sequence = str(event["UID"]), int(event["SEQUENCE"])
    assert uid.startswith("cal-") and "-S1901M@" in uid and "ATTENDEE" not in event
    triggers = sorted(alarm.decoded("TRIGGER") for alarm in event.walk("VALARM"))
    assert triggers == [-timedelta(hours=24), -timedelta(hours=2)]
    assert str(event["STATUS"]) == "CONFIRMED"
    assert "Spring 1901 movement" in str(event["SUMMARY"])
    # The game page links the feed.
    assert 'href="/games/cal/deadlines.ics"' in web.get("/games/cal").text

    # Unchanged: a 304, though each answer has its own DTSTAMP.
    tag = web.get("/games/cal/deadlines.ics").headers["etag"]
    assert web.get("/games/cal/deadlines.ics", headers={"If-None-Match": tag}).status_code == 304
    assert "last-modified" not in web.get("/games/cal/deadlines.ics").headers

    # The master moves the deadline by mail: the same event, a higher SEQUENCE.
    when = (utcnow() + timedelta(days=3)).replace(second=0, microsecond=0)
    table.say(table.master, MASTER + f"SET DEADLINE {when:%Y-%m-%d %H:%M} UTC", "player(s) told")
    moved = the_event(web)
    assert moved is not None and str(moved["UID"]) == uid
    assert moved.decoded("DTSTART") == when and int(moved["SEQUENCE"]) > sequence
    assert web.get("/games/cal/deadlines.ics", headers={"If-None-Match": tag}).status_code == 200

    # Paused: the event stays, cancelled, with no alarm; resumed, it is back.
    table.say(table.master, MASTER + "PAUSE", "")
    paused = the_event(web)
    assert paused is not None and str(paused["STATUS"]) == "CANCELLED"
    assert not paused.walk("VALARM") and int(paused["SEQUENCE"]) > int(moved["SEQUENCE"])
    table.say(table.master, MASTER + "RESUME", "")
    resumed = the_event(web)
    assert resumed is not None and str(resumed["STATUS"]) == "CONFIRMED"
    assert int(resumed["SEQUENCE"]) > int(paused["SEQUENCE"])

    # The phase played: the next phase's event, a new UID.
    table.play_phase({"FRANCE": ["A PAR - BUR"]})
    following = the_event(web)
    assert following is not None and str(following["UID"]) != uid
    assert "-F1901M@" in str(following["UID"])


def test_no_feed_for_a_game_not_public_and_none_before_it_starts(
    harness: Harness, web: TestClient
) -> None:
    seated(harness, "hidden").sign_on(rules="POWER_CHOICE NO_OBSERVATIONS")
    assert "created" in harness.command(MASTER_ADDRESS, "CREATE soon masterpw")
    hidden = get_game("hidden")  # a game with a deadline, but not on the web
    assert hidden.state == "active" and hidden.deadline is not None
    assert web.get("/games/hidden/deadlines.ics").status_code == 404
    assert web.get("/games/nosuch/deadlines.ics").status_code == 404
    assert the_event(web, "soon") is None  # forming: an empty calendar, still valid
    assert Calendar.from_ical(web.get("/games/soon/deadlines.ics").content).get("METHOD")


def test_the_event_links_the_game_page_of_the_judges_base_url(harness: Harness) -> None:
    """The event's URL is the game's page under web.base_url, never made from the
    request's Host header; without a base_url there is none (a calendar needs a whole URL)."""
    table = seated(harness, "linked")
    table.sign_on()
    plain = current_settings()
    configured = replace(plain, web=replace(plain.web, base_url="https://dip.example.org/"))
    for settings, link in ((configured, "https://dip.example.org/games/linked"), (plain, None)):
        with TestClient(make_app(settings=settings)) as client:
            got = client.get("/games/linked/deadlines.ics", headers={"Host": "evil.example"})
            (event,) = check_itip(got.content, "PUBLISH").walk("VEVENT")
            assert (str(event["URL"]) if "URL" in event else None) == link
            assert b"evil" not in got.content

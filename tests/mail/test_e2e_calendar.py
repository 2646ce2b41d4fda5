"""The deadline reaches the players' calendars by mail: the mail that starts the game, each
phase's results and the master's SET DEADLINE carry a calendar invitation (iMIP: an inline
text/calendar part, the last alternative of the text), played through the SMTP listener and
read from the mails the sink caught."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import JUDGE, MASTER, Harness, player, seated, text_of
from helpers.itip import calendar_of, check_itip
from icalendar import Calendar

from mailjudge.demo import mailroom
from mailjudge.game.state import get_game
from mailjudge.store.models import utcnow


@pytest.fixture
def quiet_harness(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge whose operator turned the calendar invitations off."""
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE,
                                outbound_calendar_invitations="false") as h:  # fmt: skip
        yield Harness(h.judge, h.sink)


def invitation_of(message: EmailMessage, method: str = "REQUEST") -> Calendar:
    """The one text/calendar part of a judge's mail, checked as an iTIP ``method``, after a
    text part that still comes first."""
    parts = [p for p in message.walk() if p.get_content_type() == "text/calendar"]
    assert len(parts) == 1, [p.get_content_type() for p in message.walk()]
    assert parts[0].get_param("method") == method
    alternative = next(p for p in message.walk() if p.get_content_type() == "multipart/alternative")
    kinds = [p.get_content_type() for p in alternative.iter_parts()]
    assert kinds[0] == "text/plain" and kinds[-1] == "text/calendar", kinds
    assert message.get_body(preferencelist=("plain",)) is not None
    return check_itip(calendar_of(parts[0]), method)  # type: ignore[arg-type]


def event_of(calendar: Calendar) -> tuple[str, int, object]:
    event = calendar.walk("VEVENT")[0]
    return str(event["UID"]), int(event["SEQUENCE"]), event.decoded("DTSTART")


def mail_to(harness: Harness, address: str, subject: str) -> EmailMessage:
    """The one mail of ``subject`` to ``address``, once the sink has it."""

    def found() -> list[EmailMessage]:
        return [m.message for m in harness.sink.mails
                if m.rcpt_tos == [address] and m.message["Subject"] == subject]  # fmt: skip

    harness.wait_until(lambda: bool(found()), what=f"{subject} to {address}")
    assert len(found()) == 1, (subject, len(found()))
    return found()[0]


def test_start_results_and_set_deadline_carry_the_deadline(harness: Harness) -> None:
    table = seated(harness, "dates")
    table.sign_on()
    france = player("FRANCE")
    started = mail_to(harness, france, "[dates] the game has started")
    assert "dates" in text_of(started)
    first_uid, first_sequence, _ = event_of(invitation_of(started))

    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR H", "F BRE - MAO"]})
    results = mail_to(harness, france, "[dates] results S1901M")
    assert results.get_body(preferencelist=("plain",)) is not None
    uid, sequence, _ = event_of(invitation_of(results))
    assert uid != first_uid and sequence > first_sequence  # F1901M's own event
    master_results = mail_to(harness, MASTER, "[dates] results S1901M")
    assert event_of(invitation_of(master_results))[0] == uid  # the master keeps it too

    when = (utcnow() + timedelta(days=5)).replace(hour=12, minute=0, second=0, microsecond=0)
    table.say(table.master, f"SIGNON Mdates masterpw\nSET DEADLINE {when:%Y-%m-%d} 12:00 UTC",
              "player(s) told")  # fmt: skip
    subject = "[dates] new deadline for F1901M"
    moved_uid, moved_sequence, start = event_of(invitation_of(mail_to(harness, france, subject)))
    assert moved_uid == uid and moved_sequence > sequence
    assert start == when


def test_pause_resume_and_rollback_move_the_event(harness: Harness) -> None:
    """PAUSE cancels the phase's event, RESUME sends it again, ROLLBACK sends the event of
    the phase rolled back to and SET TIMING moves it, each a notice to the players with a
    higher SEQUENCE."""
    table = seated(harness, "halt")
    table.sign_on()
    france, master = player("FRANCE"), "SIGNON Mhalt masterpw\n"
    uid, sequence, _ = event_of(
        invitation_of(mail_to(harness, france, "[halt] the game has started"))
    )
    table.say(table.master, master + "PAUSE", "players told")
    paused = mail_to(harness, france, "[halt] the game is paused")
    cancel = invitation_of(paused, "CANCEL").walk("VEVENT")[0]
    assert str(cancel["UID"]) == uid and int(cancel["SEQUENCE"]) > sequence
    assert str(cancel["STATUS"]) == "CANCELLED"
    table.say(table.master, master + "RESUME", "players told")
    resumed = mail_to(harness, france, "[halt] the game is running again")
    again_uid, again, _ = event_of(invitation_of(resumed))
    assert again_uid == uid and again > int(cancel["SEQUENCE"])

    table.play_phase({"FRANCE": ["A PAR - BUR"]})
    table.say(table.master, master + "ROLLBACK S1901M", "players told")
    rolled = mail_to(harness, france, "[halt] rolled back to S1901M")
    back_uid, back, _ = event_of(invitation_of(rolled))
    assert back_uid == uid and back > again
    table.say(table.master, master + "SET TIMING MOVE 4D", "player(s) told")
    timed = mail_to(harness, france, "[halt] new deadline for S1901M")
    timed_uid, timed_sequence, _ = event_of(invitation_of(timed))
    assert timed_uid == uid and timed_sequence > back
    to_master = [m for m in harness.sink.mails if m.rcpt_tos == [MASTER]
                 and m.message["Subject"] == "[halt] the game is paused"]  # fmt: skip
    assert not to_master  # the master has the answer, not a notice


def test_an_operator_may_turn_invitations_off(quiet_harness: Harness) -> None:
    """outbound.calendar_invitations = false: the start mail is its text alone."""
    seated(quiet_harness, "plain").sign_on()
    started = mail_to(quiet_harness, player("FRANCE"), "[plain] the game has started")
    assert started.get_content_type() == "text/plain"


def test_a_draw_withdraws_the_deadline(harness: Harness) -> None:
    """The game ended by the master's DECLARE DRAW: the notice that it is over cancels the
    current phase's event, by the UID the start mail gave it."""
    table = seated(harness, "drawn")
    table.sign_on()
    france = player("FRANCE")
    uid, sequence, _ = event_of(
        invitation_of(mail_to(harness, france, "[drawn] the game has started"))
    )
    table.say(table.master, "SIGNON Mdrawn masterpw\nDECLARE DRAW")
    outcome = str(get_game("drawn").outcome).lower()
    over = mail_to(harness, france, f"[drawn] the game is over: {outcome}")
    cancel = invitation_of(over, "CANCEL").walk("VEVENT")[0]
    assert str(cancel["UID"]) == uid and int(cancel["SEQUENCE"]) >= sequence

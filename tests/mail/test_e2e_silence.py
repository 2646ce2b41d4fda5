"""Issue 53 point 5 by mail: a word where one is due. Orders in a Subject, a player's
RESIGN (the master is told), a takeover (the newcomer gets the ready block), a note typed
into a calendar's Decline, and answers held by an address's caps or by the same text sent
too often (each was silence before)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import (
    HARNESSES,
    JUDGE,
    MASTER,
    Harness,
    last_mail_to,
    player,
    seated,
    set_up_game,
    takeover_by_mail,
    text_of,
    wire,
)
from icalendar import Calendar, Event, vCalAddress

from mail.test_calendar_answers import calendar_part_of
from mailjudge.config.settings import SecuritySettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.outbound.invitation import add_invitation

CAPS = SecuritySettings()


def flat(text: str) -> str:
    return " ".join(text.split())


def test_orders_or_a_command_in_the_subject_get_a_word(harness: Harness) -> None:
    h = harness
    set_up_game(h, "subj")
    table = seated(h, "subj")
    signon = table.signon("FRANCE")
    answer = flat(text_of(h.reply(h.send(player("FRANCE"), signon, subject="A PAR - BUR"))))
    assert "(your Subject: A PAR - BUR) ERROR: not read: the judge reads only the text" in answer
    assert "write the orders in the text" in answer
    assert orders_on_file(get_game("subj")).get("FRANCE", []) == []
    answer = flat(text_of(h.reply(h.send(player("FRANCE"), "", subject="Re: HELP"))))
    assert "(your Subject: HELP) ERROR: not read" in answer and "write the command" in answer
    # A Subject that is a Subject, or orders the text holds too: no word.
    for subject, text in (("Re: [subj] the game has started", f"{signon}\nA PAR - BUR"),
                          ("Orders", f"{signon}\nA PAR - BUR"),
                          ("A PAR - BUR", f"{signon}\nA PAR - BUR")):  # fmt: skip
        answer = text_of(h.reply(h.send(player("FRANCE"), text, subject=subject)))
        assert "Subject" not in answer, (subject, answer)


def test_a_resignation_is_told_to_the_master_and_the_newcomer_gets_the_block(
    harness: Harness,
) -> None:
    h = harness
    set_up_game(h, "quit")
    table = seated(h, "quit")
    assert "you left quit" in h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nRESIGN")
    told = text_of(last_mail_to(h, MASTER, "resigned"))
    assert "france resigned from game quit in S1901M: France has no player now" in flat(told)
    assert "TAKEOVER france@quit password" in told
    newcomer = "newcomer@players.test"
    answer = takeover_by_mail(h, newcomer, "TAKEOVER france@quit pw-new")
    assert "you now play FRANCE in quit" in answer, answer
    welcome = text_of(last_mail_to(h, newcomer, "has a new player"))
    assert "You now play France in game quit" in welcome
    assert "SIGNON france@quit YOUR-PASSWORD" in welcome and "ORDERS FRANCE S1901M" in welcome


def _calendar_answer(note_in: str) -> EmailMessage:
    """A Decline with a note as Google Calendar writes it (X-RESPONSE-COMMENT on the
    attendee) or as RFC 5546 lets any client (COMMENT)."""
    calendar = Calendar()
    calendar.add("prodid", "-//Google Inc//Google Calendar 70.9054//EN")
    calendar.add("version", "2.0")
    calendar.add("method", "REPLY")
    event = Event()
    event.add("uid", "g1-20261130T000000Z-S1901M@example.test")
    event.add("dtstamp", datetime(2026, 12, 1, tzinfo=UTC))
    event.add("dtstart", datetime(2026, 12, 4, 12, tzinfo=UTC))
    event.add("organizer", vCalAddress(f"mailto:{JUDGE}"))
    attendee = vCalAddress(f"mailto:{player('FRANCE')}")
    attendee.params["partstat"] = "DECLINED"
    if note_in == "google":
        attendee.params["X-RESPONSE-COMMENT"] = "Away till Friday\\; can we wait?"
    else:
        event.add("comment", "Away till Friday; can we wait?")
    event.add("attendee", attendee)
    calendar.add_component(event)
    mail = EmailMessage()
    mail["From"], mail["To"] = player("FRANCE"), JUDGE
    mail["Subject"] = "Declined: Diplomacy game g1: orders for Spring 1901 movement due"
    mail["Message-ID"] = make_msgid(domain="players.test")
    mail.set_content(f"{player('FRANCE')} has declined this invitation with a note.")
    data = bytes(calendar.to_ical())
    add_invitation(mail, calendar_part_of(data, "REPLY"))
    return mail


@pytest.mark.parametrize("note_in", ["google", "comment"])
def test_a_note_typed_into_a_calendar_decline_is_answered(harness: Harness, note_in: str) -> None:
    """The note reaches nobody (nobody reads a calendar's answer): its writer is told so,
    with the note and how to reach the master. A Decline without a note stays unanswered
    (tests/mail/test_calendar_answers.py)."""
    mail = _calendar_answer(note_in)
    harness.deliver(player("FRANCE"), wire(mail))
    answer = flat(text_of(harness.reply(str(mail["Message-ID"]))))
    assert "Away till Friday; can we wait?" in answer, answer
    assert "It reached nobody" in answer and "PRESS TO M" in answer, answer


@pytest.fixture(params=["sqlite", "postgresql"])
def capped(
    request: pytest.FixtureRequest, tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> Iterator[Harness]:
    """A judge with the shipped caps for an address it has not heard back from, on SQLite
    and on PostgreSQL (the counters' windows are the database's)."""
    extra = {}
    if request.param == "postgresql":
        extra["database_url"] = request.getfixturevalue("postgres_url")
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE,
                       security_unproven_per_hour=str(CAPS.unproven_per_hour),
                       security_same_mail_answers=str(CAPS.same_mail_answers), **extra) as h:  # fmt: skip
        HARNESSES.append(h)
        yield h


def test_answers_held_by_the_caps_are_announced_once(capped: Harness) -> None:
    """A new address reading HELP topics: its answers stop at the hour's cap, and one
    notice says so, until when, and that a Reply lifts it; a Reply to the notice does."""
    h = capped
    master = "new-master@players.test"
    topics = ["RULES", "ORDERS", "PRESS", "SET", "MAPS", "DRAW", "VOTE", "JOIN", "LIST",
              "STATUS", "TAKEOVER", "HISTORY"]  # fmt: skip
    sent = [h.send(master, f"HELP {topic}") for topic in topics]
    h.wait_until(lambda: [m for m in h.sink.mails if m.message["Subject"] == "answers held"])
    h.wait_until(lambda: len([m for m in h.sink.mails if master in m.rcpt_tos]) >= 11)
    mine = [m.message for m in h.sink.mails if master in m.rcpt_tos]
    held = [m for m in mine if m["Subject"] == "answers held"]
    assert len(held) == 1 and len(mine) == CAPS.unproven_per_hour + 1
    notice = flat(text_of(held[0]))
    assert f"({CAPS.unproven_per_hour})" in notice and "only the answers are held, until" in notice
    assert "Reply to this mail" in notice
    assert not h.replies_to(sent[-1])
    proof = h.mail(master, "thanks", subject="Re: answers held",
                   in_reply_to=str(held[0]["Message-ID"]))  # fmt: skip
    h.deliver(master, wire(proof))
    assert "SIGNON" in h.command(master, "HELP")  # answered again


def test_the_same_text_too_often_is_announced_once(capped: Harness) -> None:
    h = capped
    sender = "repeats@players.test"
    sent = [h.send(sender, "LIST") for _ in range(CAPS.same_mail_answers + 3)]
    h.wait_until(lambda: [m for m in h.sink.mails if m.message["Subject"] == "answers held"])
    mine = [m.message for m in h.sink.mails if sender in m.rcpt_tos]
    held = [m for m in mine if m["Subject"] == "answers held"]
    assert len(held) == 1, [m["Subject"] for m in mine]
    notice = flat(text_of(held[0]))
    assert f"more than {CAPS.same_mail_answers} times within an hour" in notice
    assert "That text is answered again from" in notice and "any other text" in notice
    assert not h.replies_to(sent[-1])

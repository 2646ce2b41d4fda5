"""A player's calendar answering the judge's invitation to a deadline (the "Yes" of Gmail,
Outlook's "Accept", a proposed new time) gets no answer from the judge: the deadline is the
judge's, the invitation asks for none (RSVP=FALSE), and the mail's text ("Accepted: ...")
is no command. Mail that only quotes or forwards an invitation is read as any other."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from helpers.e2e import Harness
from icalendar import Calendar, Event, vCalAddress

from mail.test_calendar import FRANCE, STAMP, event
from mailjudge.demo.mailroom import wire
from mailjudge.inbound.parse import parse_mail
from mailjudge.inbound.silence import silence_reason
from mailjudge.outbound.invitation import add_invitation, calendar_part
from mailjudge.render.calendar import Method, invitation
from mailjudge.store.models import InboundMessage

JUDGE = "judge@example.test"
PLAYER = "france@players.test"


def answer_calendar(method: str, partstat: str = "ACCEPTED") -> bytes:
    """What a client sends back (RFC 5546 3.2.3 REPLY, 3.2.7 COUNTER)."""
    calendar = Calendar()
    calendar.add("prodid", "-//Some Client//EN")
    calendar.add("version", "2.0")
    calendar.add("method", method)
    event = Event()
    event.add("uid", "g1-20261130T000000Z-S1901M@example.test")
    event.add("dtstamp", datetime(2026, 12, 1, tzinfo=UTC))
    event.add("dtstart", datetime(2026, 12, 4, 12, tzinfo=UTC))
    event.add("sequence", 3)
    event.add("organizer", vCalAddress(f"mailto:{JUDGE}"))
    attendee = vCalAddress(f"mailto:{PLAYER}")
    attendee.params["partstat"] = partstat
    event.add("attendee", attendee)
    calendar.add_component(event)
    return bytes(calendar.to_ical())


def gmail_answer(method: str = "REPLY") -> EmailMessage:
    """Gmail's form: the text, its HTML and the calendar as alternatives, and the same
    calendar attached as invite.ics."""
    mail = EmailMessage()
    mail["From"], mail["To"] = PLAYER, JUDGE
    mail["Subject"] = "Accepted: Diplomacy game g1: orders for Spring 1901 movement due"
    mail["Message-ID"] = make_msgid(domain="players.test")
    mail.set_content(f"{PLAYER} has accepted this invitation.")
    mail.add_alternative(f"<p>{PLAYER} has accepted this invitation.</p>", subtype="html")
    data = answer_calendar(method)
    add_invitation(mail, calendar_part_of(data, method))
    mail.add_attachment(data, maintype="application", subtype="ics", filename="invite.ics")
    return mail


def calendar_part_of(data: bytes, method: str) -> EmailMessage:
    if method in ("REPLY", "COUNTER"):  # calendar_part takes the judge's own methods only
        part = EmailMessage()
        part.set_content(data.decode(), subtype="calendar", charset="utf-8")
        part.set_param("method", method)
        return part
    return calendar_part(data)


def outlook_answer() -> EmailMessage:
    """Outlook's form: text and calendar as alternatives, nothing attached."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = PLAYER, JUDGE, "Accepted: Diplomacy game g1"
    mail.set_content("")
    add_invitation(mail, calendar_part_of(answer_calendar("REPLY"), "REPLY"))
    return mail


@pytest.mark.parametrize(
    "mail", [gmail_answer(), gmail_answer("COUNTER"), outlook_answer()],
    ids=["gmail-reply", "gmail-counter", "outlook-reply"],
)  # fmt: skip
def test_a_calendar_answer_is_not_answered(mail: EmailMessage) -> None:
    reason = silence_reason(parse_mail(mail.as_bytes()), JUDGE)
    assert reason is not None and "calendar's answer to an invitation" in reason


def test_mail_that_carries_an_invitation_itself_is_read() -> None:
    """A player forwarding the invitation (METHOD:REQUEST) with commands is answered."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = PLAYER, JUDGE, "Fwd: deadline"
    mail.set_content("HELP")
    add_invitation(mail, calendar_part(invitation(event(), FRANCE, Method.REQUEST, STAMP)))
    parsed = parse_mail(mail.as_bytes())
    assert parsed.calendar_method == "REQUEST" and silence_reason(parsed, JUDGE) is None
    assert parsed.text.strip() == "HELP"


def test_an_accepted_invitation_by_mail_gets_no_answer(harness: Harness) -> None:
    """Through the SMTP listener: the calendar's answer is stored and left unanswered,
    while a HELP sent after it is answered."""
    answer = gmail_answer()
    answer.replace_header("To", harness.address)
    harness.deliver(PLAYER, wire(answer))
    assert "SIGNON" in harness.command(PLAYER, "HELP")
    sent = str(answer["Message-ID"])
    harness.wait_until(
        lambda: (
            InboundMessage.select()
            .where((InboundMessage.message_id == sent) & (InboundMessage.state == "done"))
            .exists()
        ),
        what="the calendar's answer handled",
    )
    time.sleep(0.5)
    assert not harness.replies_to(sent)
    assert not [m for m in harness.sink.mails if "Accepted" in str(m.message["Subject"])]

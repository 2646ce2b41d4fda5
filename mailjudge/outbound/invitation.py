"""A calendar invitation in a mail, as iMIP (RFC 6047) has it and mail clients look for it.

The iCalendar object goes in an inline ``text/calendar`` part whose ``method`` parameter
repeats the calendar's METHOD (RFC 6047 2.4): ``text/calendar; method=REQUEST;
charset=utf-8``. Outlook, Gmail and Apple Mail offer their "add to calendar" from that part
when it is one of the alternatives of the mail's text (as their own invitations send it:
text/plain, text/html, text/calendar), and treat a ``.ics`` file attached instead as a file.
This module knows no game: it takes the calendar's bytes (render/calendar.py makes them).
"""

from __future__ import annotations

from email.message import EmailMessage, MIMEPart

from icalendar import Calendar

METHODS = ("REQUEST", "CANCEL", "PUBLISH")


def calendar_part(ics: bytes) -> EmailMessage:
    """The text/calendar part for ``ics``, its method taken from the calendar itself."""
    method = str(Calendar.from_ical(ics).get("method", "")).upper()
    if method not in METHODS:
        raise ValueError(f"an invitation's calendar needs a METHOD of {METHODS}, not {method!r}")
    # Lines end as the mail's do (CRLF on the wire, RFC 5545's own), whatever the encoding;
    # they are folded at 75 octets (RFC 5545 3.1): 7bit unless a name is not ASCII.
    text = ics.decode("utf-8").replace("\r\n", "\n")
    part = EmailMessage()
    part.set_content(
        text, subtype="calendar", charset="utf-8",
        cte="7bit" if text.isascii() else "quoted-printable",
    )  # fmt: skip
    part.set_param("method", method)
    del part["MIME-Version"]  # the mail's own header, not a part's
    return part


def add_invitation(message: EmailMessage, part: EmailMessage) -> None:
    """``part`` (calendar_part) made the last alternative of the mail's text: a plain
    mail becomes multipart/alternative, and in a multipart/mixed mail (with attachments)
    the text it starts with does."""
    alternative = _alternative_of(message)
    if alternative is None:
        text = message.get_body(preferencelist=("plain",))
        if text is None:
            raise ValueError("the mail has no text to go with the invitation")
        text.make_alternative()
        alternative = text
    alternative.attach(part)


def _alternative_of(message: EmailMessage) -> MIMEPart | None:
    for part in message.walk():
        if part.get_content_type() == "multipart/alternative":
            assert isinstance(part, MIMEPart)  # walk() of an EmailMessage
            return part
    return None

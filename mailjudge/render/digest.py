"""A country's digest in the two forms list readers know: RFC 1153 plain text, and MIME
(a table of contents, then a multipart/digest of message/rfc822 parts, RFC 2046 5.1.5).

Pure formatting: what goes in a digest is decided in variants/democratic/digests.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

# RFC 1153: the preamble ends with 70 hyphens, messages are separated by 30.
PREAMBLE_END = "-" * 70
SEPARATOR = "-" * 30


@dataclass(frozen=True)
class DigestItem:
    author: str  # shown, never an address: "alice", "FRANCE", "the judge"
    date: datetime
    subject: str
    body: str


@dataclass(frozen=True)
class DigestHeading:
    name: str  # "ivory-france"
    number: int  # the issue, counting from 1 for each list
    address: str  # the list's address, shown in each item's From
    date: datetime

    @property
    def title(self) -> str:
        return f"{self.name} Digest #{self.number}"


def topics(heading: DigestHeading, items: Sequence[DigestItem]) -> str:
    """The head of either form: the digest's name and date, then one line per item."""
    lines = [f"{heading.title}    {format_datetime(heading.date)}", "", "Today's Topics:", ""]
    lines += [f"  {n:>3}. {item.subject} ({item.author})" for n, item in enumerate(items, 1)]
    return "\n".join(lines) + "\n"


def _escaped(body: str) -> str:
    """A body line that looks like a separator would split the digest there: indent it."""
    out = []
    for line in body.rstrip("\n").split("\n"):
        stripped = line.rstrip()
        out.append(" " + line if stripped and set(stripped) == {"-"} else line)
    return "\n".join(out)


def _from(heading: DigestHeading, item: DigestItem) -> str:
    return formataddr((item.author, heading.address))


def rfc1153(heading: DigestHeading, items: Sequence[DigestItem]) -> str:
    """The RFC 1153 digest: topics, 70 hyphens, each message's Date, From and Subject
    and body, 30 hyphens after each, then the trailer."""
    parts = [topics(heading, items), PREAMBLE_END, ""]
    for item in items:
        parts += [
            f"Date: {format_datetime(item.date)}",
            f"From: {_from(heading, item)}",
            f"Subject: {' '.join(item.subject.split())}",
            "",
            _escaped(item.body),
            "",
            SEPARATOR,
            "",
        ]
    trailer = f"End of {heading.title}"
    parts += [trailer, "*" * len(trailer)]
    return "\n".join(parts) + "\n"


def mime_parts(heading: DigestHeading, items: Sequence[DigestItem]) -> list[EmailMessage]:
    """Each item as a mail of its own, for a multipart/digest."""
    messages = []
    for item in items:
        message = EmailMessage()
        message["From"] = _from(heading, item)
        message["Date"] = format_datetime(item.date)
        message["Subject"] = " ".join(item.subject.split())
        # Quoted-printable keeps the digest 7-bit whatever the item's language.
        message.set_content(item.body, cte="7bit" if item.body.isascii() else "quoted-printable")
        messages.append(message)
    return messages

"""A mail the judge will send besides a reply, before it is queued: who it goes to, its
words and parts. Made by the layers above (render/outgoing.py has the helpers) and turned
into a message and an outbox row by the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage


@dataclass
class Outgoing:
    """A mail the judge will send besides the reply (press, results, notices)."""

    to: list[str]
    subject: str
    body: str
    kind: str  # press, results, notice, list
    game: str | None = None
    phase: str | None = None
    role: str | None = None  # X-Mailjudge-Role for a mail to one person
    html: str | None = None
    attachments: list[tuple[str, str, bytes]] = field(default_factory=list)  # (name, type, data)
    bcc: list[str] = field(default_factory=list)  # envelope only: a list's members
    list_id: str | None = None  # List-Id and List-Post for mail to a country's list
    list_post: str | None = None
    digest: list[EmailMessage] = field(default_factory=list)  # a MIME digest's messages
    board: int | None = None  # a stored BoardPicture: PNG shown in the HTML part, SVG attached
    reply_to: str | None = None  # where a Reply goes: the press's writer, the list

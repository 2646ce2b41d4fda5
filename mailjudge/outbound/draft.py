"""A mail the judge will send besides a reply, before it is queued: who it goes to, its
words and parts. Made by the layers above (render/outgoing.py has the helpers) and turned
into a message and an outbox row by the pipeline."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any


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
    board: int | None = None  # a stored BoardPicture: its PNG shown in the HTML part
    board_svg: bool = False  # its SVG attached too (MAP asks for it; results link the web's)
    reply_to: str | None = None  # where a Reply goes: the press's writer, the list
    # A list post's copies thread under the post (its Message-ID) and what it answered.
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    # A calendar invitation (iMIP, outbound/invitation.py): the iCalendar object, put in
    # the mail as the last alternative of its text. One per mail: clients act on the first.
    calendar: bytes | str | None = None


@dataclass(frozen=True)
class MailDraft:
    """A queued mail, as the outbox keeps it until the sender renders it: the arguments
    of build_message that can be stored as JSON (the board picture by its id, the date as
    ISO text). Every mail the judge queues is one, the answers included."""

    sender: str
    to: tuple[str, ...]
    subject: str
    text: str
    sender_name: str = ""
    html: str | None = None
    reply_to: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto_submitted: str | None = None
    list_id: str | None = None
    list_post: str | None = None
    game: str | None = None
    phase: str | None = None
    role: str | None = None
    date: str | None = None  # ISO 8601
    message_id: str | None = None
    board: int | None = None  # a stored BoardPicture
    board_svg: bool = False  # the picture's SVG attached as well as the PNG shown
    calendar: str | None = None  # an invitation's iCalendar text (kept as JSON text)

    def as_json(self) -> dict[str, Any]:
        """The stored form: only the fields that are set."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if value not in (None, "", ()) or name in ("sender", "to", "subject", "text"):
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> MailDraft:
        """A stored draft, including those queued by an earlier release (same keys)."""
        known = {k: v for k, v in stored.items() if k in cls.__dataclass_fields__}
        for name in ("to", "references"):
            if name in known:
                known[name] = tuple(known[name])
        return cls(**known)

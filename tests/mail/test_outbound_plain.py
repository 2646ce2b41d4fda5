"""The lean writer for plain-text drafts makes the same mail as build_message."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mailjudge.outbound.message import build_message, judge_headers, plain_text_bytes

HEADERS = ("From", "To", "Cc", "Reply-To", "Subject", "Date", "Message-ID", "In-Reply-To",
           "References", "Auto-Submitted", "List-Id", "List-Post", "X-Mailjudge-Game",
           "X-Mailjudge-Phase", "X-Mailjudge-Role")  # fmt: skip


def parsed(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def both(**draft: object) -> tuple[EmailMessage, EmailMessage]:
    fields = {k: v for k, v in draft.items() if k != "text"}
    lean = parsed(plain_text_bytes(judge_headers(**fields), str(draft["text"])))  # type: ignore[arg-type]
    full = parsed(build_message(**draft).as_bytes(policy=email.policy.SMTP))  # type: ignore[arg-type]
    return lean, full


def assert_same(lean: EmailMessage, full: EmailMessage) -> None:
    for name in HEADERS:
        assert str(lean.get(name, "")) == str(full.get(name, "")), name
    assert lean.get_content_type() == "text/plain"
    # Lines end in CRLF on the wire; readers see lines either way.
    assert lean.get_content().replace("\r\n", "\n") == full.get_content().replace("\r\n", "\n")
    for line in lean.as_bytes().split(b"\n"):
        assert len(line) <= 998


BASE = {
    "sender": "judge@example.org",
    "to": ["p@example.org"],
    "message_id": "<1@example.org>",
    "date": datetime(2026, 11, 21, 12, 0, tzinfo=UTC),
}


@pytest.mark.parametrize(
    "extra",
    [
        {"subject": "Re: orders", "text": "ok: done\n"},
        {
            "subject": "Résultats — été",
            "text": "Frankreich: A PAR - BUR\nÜberraschung 🎲\n",
            "game": "alpha",
            "phase": "S1901M",
            "role": "player FRANCE",
        },
        {
            "subject": "x",
            "text": "a" * 300 + "\nshort\n",
            "in_reply_to": "<q@x>",
            "references": [f"<r{i}@example.org>" for i in range(20)],
            "auto_submitted": "auto-replied",
        },
        {
            "subject": "Press from someone",
            "text": "Une lettre. Élan.\n",
            "sender_name": "Préfecture de Paris",
            "reply_to": "france@example.org",
            "list_id": "france.alpha.example.org",
            "list_post": "france@example.org",
            "cc": ["m@example.org"],
        },
    ],
)
def test_same_as_build_message(extra: dict[str, object]) -> None:
    assert_same(*both(**BASE, **extra))


@settings(max_examples=60, deadline=None)
@given(subject=st.text(max_size=120), text=st.text(max_size=2000))
@example(subject="0 ", text="")  # trailing space: once kept by one renderer only
def test_same_for_any_text(subject: str, text: str) -> None:
    subject = "".join(ch for ch in subject if ch.isprintable())
    text = "".join(ch for ch in text if ch.isprintable() or ch == "\n")
    assert_same(*both(**BASE, subject=subject, text=text))

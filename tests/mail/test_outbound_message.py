"""The judge's mails carry every header players and their mail programs rely on."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from mailjudge.outbound.message import Attachment, build_message

JUDGE = "judge@example.org"


def reparse(message: EmailMessage) -> EmailMessage:
    """What a mail program sees once the mail went over the wire."""
    parsed = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def test_an_answer() -> None:
    message = reparse(
        build_message(
            sender=JUDGE,
            sender_name="The Judge",
            to=["alice@example.com"],
            subject="Re: orders",
            text="A PAR - BUR: ok\n",
            in_reply_to="<m2@example.com>",
            references=["<m0@example.org>", "<m1@example.com>"],
            game="ivory",
            phase="S1901M",
            role="player FRANCE",
            date=datetime(2035, 3, 1, 12, 0, tzinfo=UTC),
        )
    )
    assert message["From"] == "The Judge <judge@example.org>"
    assert message["To"] == "alice@example.com"
    assert message["Subject"] == "Re: orders"
    assert message["Date"] == "Thu, 01 Mar 2035 12:00:00 +0000"
    assert message["Message-ID"].endswith("@example.org>")
    assert message["In-Reply-To"] == "<m2@example.com>"
    assert message["References"] == "<m0@example.org> <m1@example.com> <m2@example.com>"
    assert message["Auto-Submitted"] == "auto-replied"
    assert message["X-Mailjudge-Game"] == "ivory"
    assert message["X-Mailjudge-Phase"] == "S1901M"
    assert message["X-Mailjudge-Role"] == "player FRANCE"
    assert "List-Id" not in message
    assert message.get_content_type() == "text/plain"
    assert message.get_content() == "A PAR - BUR: ok\n"


def test_a_notice_is_auto_generated_and_has_a_fresh_message_id() -> None:
    first = build_message(sender=JUDGE, to=["a@example.com"], subject="Results", text="x")
    second = build_message(sender=JUDGE, to=["a@example.com"], subject="Results", text="x")
    assert first["Auto-Submitted"] == "auto-generated"
    assert "In-Reply-To" not in first and "References" not in first
    assert first["Message-ID"] != second["Message-ID"]
    assert first["Date"]
    other = build_message(
        sender=JUDGE, to=["a@example.com"], subject="x", text="x", domain="mail.example.net"
    )
    assert other["Message-ID"].endswith("@mail.example.net>")


def test_list_traffic_names_its_list() -> None:
    message = build_message(
        sender=JUDGE,
        to=["ivory-france@example.org"],
        subject="Digest",
        text="...",
        list_id="france.ivory.example.org",
        list_post="ivory-france@example.org",
        game="ivory",
        phase="F1901M",
    )
    assert message["List-Id"] == "<france.ivory.example.org>"
    assert message["List-Post"] == "<mailto:ivory-france@example.org>"
    assert message["Auto-Submitted"] == "auto-generated"


def test_html_alternative_and_pictures_are_attached() -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>'
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    message = reparse(
        build_message(
            sender=JUDGE,
            to=["a@example.com", "b@example.com"],
            cc=["master@example.com"],
            subject="Results for S1901M",
            text="Results as text\n",
            html="<p>Results as <b>HTML</b></p>",
            attachments=[
                Attachment("board.svg", svg, "image/svg+xml"),
                Attachment("board.png", png, "image/png"),
            ],
        )
    )
    assert message.get_content_type() == "multipart/mixed"
    assert message["To"] == "a@example.com, b@example.com"
    assert message["Cc"] == "master@example.com"
    body = message.get_body(("plain",))
    assert body is not None and body.get_content() == "Results as text\n"
    html = message.get_body(("html",))
    assert html is not None and "<b>HTML</b>" in html.get_content()
    files = {a.get_filename(): a for a in message.iter_attachments()}
    assert files["board.svg"].get_content_type() == "image/svg+xml"
    assert files["board.svg"].get_content() == svg
    assert files["board.png"].get_content() == png


def test_player_text_cannot_add_headers() -> None:
    message = build_message(
        sender=JUDGE,
        to=["a@example.com"],
        subject="Re: hi\r\nBcc: everyone@example.com",
        text="x",
        game="ivory\nX-Evil: 1",
    )
    wire = message.as_bytes()
    assert b"\nBcc:" not in wire and b"\nX-Evil:" not in wire
    assert reparse(message)["Subject"] == "Re: hi Bcc: everyone@example.com"


def test_non_ascii_text_and_subject_survive_the_wire() -> None:
    message = reparse(
        build_message(sender=JUDGE, to=["a@example.com"], subject="Été 1901 ✓", text="Café\n")
    )
    assert message["Subject"] == "Été 1901 ✓"
    assert message.get_content() == "Café\n"


def test_a_mail_needs_a_recipient() -> None:
    with pytest.raises(ValueError, match="recipient"):
        build_message(sender=JUDGE, to=[], subject="x", text="x")


def test_refilling_leaves_no_lone_word_on_a_line() -> None:
    """Issue 32 point 13: "propose its / orders". A sentence in brackets goes on the
    paragraph ("(a)" still starts an item), and a last lone word takes words from above."""
    from itertools import pairwise

    from mailjudge.outbound.message import wrapped

    text = (
        "While FRANCE holds it, you are one of FRANCE's citizens: you may nominate and "
        "elect its diplomat, propose its orders\n(PROPOSAL ORDERS ... END) and rank them.\n"
    )
    lines = wrapped(text).splitlines()
    assert all(len(line) <= 78 for line in lines)
    assert all(len(line.split()) > 1 for line in lines if line.strip())
    assert " ".join(wrapped(text).split()) == " ".join(text.split())
    # Filled: no line had room for the next word (but the last, which may take a few from
    # the line above so as not to stand alone).
    for above, below in pairwise(lines[:-1]):
        assert len(above) + 1 + len(below.split()[0]) > 78, (above, below)
    assert len(lines) == 3
    ends = "This is a fairly long sentence that goes on and on until it reaches the end words\n"
    assert all(len(line.split()) > 1 for line in wrapped(ends).splitlines())
    assert wrapped("a" * 70 + " b c\n(a) first item\n").splitlines()[-1] == "(a) first item"

"""Mail that reads well in every client (issue 16, point 8). Every mail any end-to-end
test's judge sends is checked by conftest with tests/helpers/mailform.py (no defect, 7bit or
quoted-printable text, lines of at most 78, the board picture inline); these tests show
that check can fail, and cover what it does not see: long lines, digests split apart."""

from __future__ import annotations

import email
import email.errors
import email.policy
from datetime import UTC, datetime

import pytest
from helpers.e2e import Harness, player, seated, set_up_game, text_of
from helpers.mailform import format_problems, parsed

from mailjudge.outbound.message import build_message, judge_headers, plain_text_bytes, wrapped
from mailjudge.render.digest import SEPARATOR, DigestHeading, DigestItem, rfc1153

LONG = ("The judge answers every mail it accepts, and a paragraph that runs on past the "
        "edge of a mail window is refilled, never cut into stubs or sent as base64. ") * 3  # fmt: skip


def test_long_lines_are_refilled_and_tables_kept() -> None:
    text = wrapped(f"{LONG}\n\n  PROCESS!          process now\n  PAUSE             hold\n")
    assert all(len(line) <= 78 for line in text.splitlines())
    assert "  PROCESS!          process now\n  PAUSE             hold" in text
    assert " ".join(text.split()) == " ".join(f"{LONG} PROCESS! process now PAUSE hold".split())


def test_text_is_never_base64_and_the_check_sees_it() -> None:
    for text in (LONG, "Grüße aus München: " + LONG):
        for raw in (
            plain_text_bytes(judge_headers(sender="judge@x.test", to=["a@x.test"], subject="s"),
                             text),
            build_message(sender="judge@x.test", to=["a@x.test"], subject="s", text=text,
                          html="<p>" + text + "</p>").as_bytes(policy=email.policy.SMTP),
        ):  # fmt: skip
            assert b"Transfer-Encoding: base64" not in raw
            assert format_problems(parsed(raw), "mail") == []
    old = email.message.EmailMessage()
    old["From"], old["To"], old["Subject"] = "judge@x.test", "a@x.test", "s"
    old.set_content(LONG, cte="base64")
    assert any("base64" in p for p in format_problems(parsed(bytes(old)), "old"))


HEAD = b"From: judge@x.test\r\nTo: a@x.test\r\nSubject: s\r\nMIME-Version: 1.0\r\n"


def test_a_mail_the_strict_policy_refuses_is_named_by_the_check() -> None:
    """The check reads the sink's own parse (email.policy.default), which notes the
    defects email.policy.strict raises at."""
    for raw, defect in (
        (HEAD + b"Content-Type: multipart/mixed\r\n\r\nno boundary\r\n",
         email.errors.NoBoundaryInMultipartDefect),
        (HEAD + b"Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\n\r\nhi\r\n",
         email.errors.CloseBoundaryNotFoundDefect),
    ):  # fmt: skip
        with pytest.raises(defect):
            email.message_from_bytes(raw, policy=email.policy.strict)
        (problem,) = format_problems(parsed(raw), "mail")
        assert "does not parse" in problem and defect.__name__ in problem


def test_a_plain_digest_splits_into_readable_entries() -> None:
    """What formail -ds does with an RFC 1153 digest: cut at the 30-hyphen separators; each
    entry must read as written (no quoted-printable soft breaks, no line over 78)."""
    now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    heading = DigestHeading("ivory-france", 3, "ivory-france@judge.test", now)
    items = [DigestItem("alice", now, "plans", LONG), DigestItem("bob", now, "reply", "Agreed.")]
    headers = judge_headers(sender="judge@judge.test", to=["ivory-france@judge.test"],
                            subject="digest #3")  # fmt: skip
    raw = plain_text_bytes(headers, rfc1153(heading, items))
    assert b"Content-Transfer-Encoding: 7bit" in raw
    body = raw.split(b"\r\n\r\n", 1)[1].decode("ascii")
    entries = body.split(f"\r\n{SEPARATOR}\r\n")
    assert len(entries) == 3  # two messages and the trailer
    for entry in entries:
        assert "=\r\n" not in entry and all(len(line) <= 78 for line in entry.split("\r\n"))
    assert " ".join(LONG.split()) in " ".join(entries[0].split())


def test_the_judges_mail_comes_from_a_named_sender(harness: Harness) -> None:
    h = harness
    set_up_game(h, "named")
    table = seated(h, "named")
    reply = h.reply(h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS"))
    assert reply["From"] == "mailjudge <judge@example.test>"
    assert "FRANCE:" in text_of(reply)

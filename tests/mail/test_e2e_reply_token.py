"""Issue 34 point 3 by mail: orders by Reply without a password. The judge's results mail
carries a token in its block's SIGNON line; a Reply keeping it files the seat's orders.

The Replies go through the SMTP listener with an Authentication-Results header on top, as
the operator's MTA (its OpenDKIM or OpenDMARC milter) would have added it before handing
the mail on. The judge trusts that header only because the operator named its authserv-id
(security.trusted_authserv_id): the same mail without it, or with the header stamped by
another id, is asked for the password."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import (
    HARNESSES,
    JUDGE,
    Harness,
    last_mail_to,
    player,
    ready_block_lines,
    seated,
    set_up_game,
    text_of,
    wire,
)
from helpers.replyforms import reply_mail

from mailjudge.config import settings
from mailjudge.demo.mailroom import running_judge
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import InboundMessage

MTA = "mx.judge.test"


@pytest.fixture
def tokened(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge whose operator trusts the Authentication-Results that MTA writes."""
    before = settings._CURRENT
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, security_trusted_authserv_id=MTA,
                       security_token_key="e2e-key-not-for-production") as h:  # fmt: skip
        HARNESSES.append(h)
        yield h
    settings.use_settings(before)  # type: ignore[arg-type]


def _reply(h: Harness, mail: EmailMessage, body: str, verdict: str | None) -> tuple[str, str]:
    """Reply from England's address; ``verdict``: the Authentication-Results on top."""
    msg = EmailMessage()
    if verdict is not None:
        msg["Authentication-Results"] = verdict
    msg["From"] = player("ENGLAND")
    msg["To"] = str(mail["Reply-To"] or mail["From"])
    msg["Subject"] = f"Re: {mail['Subject']}"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg["In-Reply-To"] = mail["Message-ID"]
    msg.set_content(body + "\n\n> (the quoted results)\n")
    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port, timeout=10) as client:
        client.sendmail(player("ENGLAND"), [msg["To"]], wire(msg))
    return str(msg["Message-ID"]), text_of(h.reply(str(msg["Message-ID"])))


def _orders() -> list[str]:
    return [line.text for line in orders_on_file(get_game("rt")).get("ENGLAND", [])]


def test_a_reply_keeping_the_token_files_orders_when_the_mta_vouches(tokened: Harness) -> None:
    h = tokened
    set_up_game(h, "rt")
    seated(h, "rt").play_phase({})
    results = last_mail_to(h, player("ENGLAND"), "results S1901M")
    block = ready_block_lines(text_of(results))
    assert block[0].startswith("SIGNON england@rt TOKEN:"), block[0]
    token = block[0].split()[2]
    edited = "\n".join("F LON - NTH" if line == "F LON H" else line for line in block)
    dkim = f"{MTA}; dkim=pass (2048-bit key) header.d=players.test header.s=mail"
    # No header from the MTA: the answer says why and asks for the password.
    _, answer = _reply(h, results, edited, None)
    assert "could not prove" in answer and "SIGNON england@rt password" in answer, answer
    assert token not in answer and _orders() == []
    # A header the sender wrote, stamped with another authserv-id, counts for nothing.
    _, answer = _reply(h, results, edited, dkim.replace(MTA, "mx.evil.test"))
    assert "could not prove" in answer and _orders() == []
    # The MTA vouches: the orders are filed, the stored copy has the token masked.
    sent, answer = _reply(h, results, edited, dkim)
    assert "ERROR" not in answer and token not in answer, answer
    assert "F LON - NTH" in _orders()
    stored = InboundMessage.get(InboundMessage.message_id == sent).raw
    assert token.encode() not in bytes(stored)
    # Anything but orders in a mail signed on by the token is refused.
    _, answer = _reply(h, results, f"{block[0]}\nPRESS TO ALL\nhello\nENDPRESS", dkim)
    assert "may only give orders" in answer and "password" in answer, answer


def test_an_outlook_thanks_with_the_tokened_copy_below_changes_nothing(
    tokened: Harness,
) -> None:
    """Outlook copies the judge's mail unquoted below its header block; the token in that
    copy must not file the block's old orders again, even when the MTA vouches."""
    h = tokened
    set_up_game(h, "rt")
    seated(h, "rt").play_phase({})
    results = last_mail_to(h, player("ENGLAND"), "results S1901M")
    block = ready_block_lines(text_of(results))
    dkim = f"{MTA}; dkim=pass (2048-bit key) header.d=players.test header.s=mail"
    edited = "\n".join("F LON - NTH" if line == "F LON H" else line for line in block)
    _reply(h, results, edited, dkim)
    assert "F LON - NTH" in _orders()
    outlook = (
        "Thanks!\n\n-----Original Message-----\n"
        f"From: {results['From']}\nSent: Wednesday, November 25, 2026 10:00 PM\n"
        f"To: {results['To']}\nSubject: {results['Subject']}\n\n{text_of(results)}"
    )
    _reply(h, results, outlook, dkim)
    assert "F LON - NTH" in _orders() and "F LON H" not in _orders()


def test_a_tokened_block_edited_in_the_copy_files_its_orders(tokened: Harness) -> None:
    """Issue 53 point 1: the token is the judge's word, so the block in the copy counts
    only once its orders were changed there: then, in Outlook's unquoted copy, Samsung's
    or a quote, the token signs on as in a block written above the copy."""
    h = tokened
    set_up_game(h, "rt")
    seated(h, "rt").play_phase({})
    results = last_mail_to(h, player("ENGLAND"), "results S1901M")
    dkim = f"{MTA}; dkim=pass (2048-bit key) header.d=players.test header.s=mail"
    for form, new in (("outlook-desktop", "F LON - NTH"), ("samsung", "F LON - ENG"),
                      ("mutt", "F LON - YOR")):  # fmt: skip
        copy = text_of(results).replace("\nF LON H\n", f"\n{new}\n", 1)
        mail = reply_mail(form, "My orders.", copy, str(results["Subject"]), player("ENGLAND"),
                          make_msgid(domain="players.test"), str(results["Message-ID"]))  # fmt: skip
        mail["Authentication-Results"] = dkim
        h.deliver(player("ENGLAND"), wire(mail))
        answer = text_of(h.reply(str(mail["Message-ID"])))
        assert "ERROR" not in answer and "by the token" in answer, (form, answer)
        assert new in _orders(), (form, answer)

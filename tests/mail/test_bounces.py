"""Bounces (issue 17, point 6): the judge's mail goes out with a VERP envelope sender; a
delivery status notification sent back to it reaches the game's master as a notice with
the player's power and the error; after outbound.bounce_limit bounces the address gets no
more mail until its player signs on again, and the mail held for it meanwhile goes out
then (issue 32, point 6)."""

from __future__ import annotations

import time

from helpers.e2e import MASTER, Harness, player, seated, set_up_game, text_of

from mailjudge.store.models import Outbox
from mailjudge.tools.status import status_report


def dsn(to_verp: str, recipient: str, status: str = "5.1.1") -> bytes:
    """A delivery status notification as Postfix writes one (RFC 3464)."""
    return f"""From: MAILER-DAEMON@relay.players.test (Mail Delivery System)
To: {to_verp}
Subject: Undelivered Mail Returned to Sender
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"
Message-ID: <dsn-{abs(hash((to_verp, status)))}@relay.players.test>

--BOUNDARY
Content-Type: text/plain; charset=us-ascii

This is the mail system at host relay.players.test. Your message could not be
delivered to one or more recipients.

--BOUNDARY
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.players.test

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: failed
Status: {status}
Diagnostic-Code: smtp; 550 {status} <{recipient}>: Recipient address rejected:
    User unknown in local recipient table

--BOUNDARY--
""".replace("\n", "\r\n").encode()


def bounce_back(h: Harness, mail_from: str, recipient: str) -> None:
    """What the far side does: mail the report to the envelope sender the judge used."""
    import smtplib

    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port, timeout=10) as client:
        client.sendmail("", [mail_from], dsn(mail_from, recipient))


def to(h: Harness, address: str) -> list[object]:
    return [m for m in h.sink.mails if m.rcpt_tos == [address]]


def held_for(address: str) -> list[Outbox]:
    return list(Outbox.select().where(Outbox.to_addrs == address, Outbox.state == "queued"))


def test_a_bounce_reaches_the_master_and_repeated_bounces_stop_the_mail(harness: Harness) -> None:
    h = harness
    set_up_game(h, "bouncy")
    table = seated(h, "bouncy")
    france = player("FRANCE")
    mine = [m for m in h.sink.mails if m.rcpt_tos == [france]]
    verp = mine[-1].mail_from
    assert verp.startswith("judge+bounce-") and verp.endswith("@example.test")
    bounce_back(h, verp, france)
    h.wait_until(lambda: [m for m in h.sink.mails if "bounces" in str(m.message["Subject"])])
    notice = next(m for m in h.sink.mails if "bounces" in str(m.message["Subject"]))
    assert notice.rcpt_tos == [MASTER]
    assert notice.message["Subject"] == "[bouncy] mail to FRANCE bounces"
    body = text_of(notice.message)
    assert "france@players.test" in body and "5.1.1" in body and "User unknown" in body
    # A forged bounce naming a mail the judge never sent changes nothing.
    bounce_back(h, "judge+bounce-1-0000000000@example.test", france)
    for _ in range(2):  # two more mails bounce: three in all, the limit
        reply = h.reply(h.send(france, "HELP"))  # no SIGNON: nothing is cleared
        bounce_back(h, next(m.mail_from for m in h.sink.mails if m.message is reply), france)
    h.wait_until(lambda: len([m for m in h.sink.mails
                              if "bounces" in str(m.message["Subject"])]) == 3)  # fmt: skip
    before = len(to(h, france))
    phase = table.play_phase({})  # results for everyone; France's is held back
    h.wait_until(lambda: len(h.results_for("bouncy", phase)) == 7)
    assert len(to(h, france)) == before
    # The sender carries its outcomes into the outbox after each batch: wait for that one.
    h.wait_until(lambda: any("bounced 3 times" in row.last_error for row in held_for(france)))
    [held] = held_for(france)
    report = status_report(str(h.judge.settings.database.url))
    assert "held       1 (their addresses bounce; sent at SIGNON)" in report
    assert held.last_error.startswith("held: ") and "signs on again" in held.last_error
    assert "all of it goes out as soon as the player signs on again" in " ".join(body.split())
    # France signs on again: mail flows to the address again, and the results held for
    # it go out (once) without waiting for the hourly look at held mail.
    table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSTATUS")
    results = f"[bouncy] results {phase}"
    h.wait_until(lambda: [m for m in to(h, france) if m.message["Subject"] == results],
                 what="the held results")  # fmt: skip
    time.sleep(1.0)  # time for a second copy, if there were one
    assert len(to(h, france)) == before + 2  # the STATUS answer and the held results
    assert Outbox.get_by_id(held.id).state == "sent"
    assert not held_for(france)

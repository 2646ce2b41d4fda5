"""Issue 16 by mail, as a person with a real mail client meets it: Reply on a press mail,
SIGNON at a game's sub-address, a "thanks" mail after orders."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from helpers.e2e import (
    HARNESSES,
    JUDGE,
    MASTER,
    Harness,
    player,
    seated,
    secret,
    set_up_game,
    text_of,
    wire,
)

from mailjudge.demo.mailroom import running_judge
from mailjudge.game.state import get_game, orders_on_file


def _reply(h: Harness, to_mail: EmailMessage, sender: str, text: str) -> str:
    """What a client's Reply sends: To the Reply-To (else From), Re: Subject, threaded,
    with the attribution and the quoted mail below the writer's text."""
    to = str(to_mail["Reply-To"] or to_mail["From"])
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = f"Re: {to_mail['Subject']}"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg["In-Reply-To"] = to_mail["Message-ID"]
    quoted = "\n".join(f"> {line}".rstrip() for line in text_of(to_mail).splitlines())
    msg.set_content(
        f"{text}\n\nOn Mon, Nov 23, 2026 at 11:43:24PM +0000, {to_mail['From']} wrote:\n{quoted}\n"
    )
    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port, timeout=10) as client:
        client.sendmail(sender, [to], wire(msg))
    return str(msg["Message-ID"])


def _press_mails(h: Harness, to: str, writer: str) -> list[EmailMessage]:
    return [m.message for m in h.sink.mails
            if m.rcpt_tos == [to] and m.message["Subject"].endswith(f"press from {writer}")]  # fmt: skip


def test_a_reply_to_press_reaches_its_writer_as_press(harness: Harness) -> None:
    h = harness
    set_up_game(h, "talk")
    table = seated(h, "talk")
    table.say(table.players["ENGLAND"],
              f"{table.signon('ENGLAND')}\nPRESS TO FRANCE\nShall we share the Channel?\nENDPRESS")  # fmt: skip
    h.wait_until(lambda: _press_mails(h, player("FRANCE"), "ENGLAND"))
    press = _press_mails(h, player("FRANCE"), "ENGLAND")[0]
    assert press["Reply-To"] == "judge+talk-press-england@example.test"
    assert secret("ENGLAND") not in str(press) and secret("FRANCE") not in press["Reply-To"]
    sent = _reply(
        h, press, player("FRANCE"), f"{table.signon('FRANCE')}\nYes, the Channel stays empty."
    )
    assert "press sent to ENGLAND" in text_of(h.reply(sent))
    h.wait_until(lambda: _press_mails(h, player("ENGLAND"), "FRANCE"))
    answer = text_of(_press_mails(h, player("ENGLAND"), "FRANCE")[0])
    assert "Yes, the Channel stays empty." in answer
    assert "wrote:" not in answer and "Shall we share" not in answer
    # Without a SIGNON line nothing is sent, and the replier is told how to write it.
    bare = _reply(h, press, player("FRANCE"), "Forgot to sign on.")
    assert "a Reply to press goes to its writer as press" in text_of(h.reply(bare))
    assert len(_press_mails(h, player("ENGLAND"), "FRANCE")) == 1


def test_grey_press_names_no_writer_to_reply_to(harness: Harness) -> None:
    h = harness
    set_up_game(h, "grey")
    reply = h.command(player("ENGLAND"),
                      f"SIGNON england@grey {secret('ENGLAND')}\nPRESS TO FRANCE GREY\nwho am I\nENDPRESS")  # fmt: skip
    assert "press sent to FRANCE (grey)" in reply
    h.wait_until(lambda: _press_mails(h, player("FRANCE"), "someone (grey press)"))
    grey = _press_mails(h, player("FRANCE"), "someone (grey press)")[0]
    assert grey["Reply-To"] is None and "england" not in str(grey).lower()


def test_every_signon_form_works_at_a_game_sub_address(harness: Harness) -> None:
    h = harness
    set_up_game(h, "sub")
    at_game = "judge+sub@example.test"
    for line in ("SIGNON Msub masterpw", "SIGNON master masterpw",
                 f"SIGNON Fsub {secret('FRANCE')}", f"SIGNON france {secret('FRANCE')}",
                 f"SIGNON france@sub {secret('FRANCE')}"):  # fmt: skip
        who = MASTER if "aster" in line.lower() or "Msub" in line else player("FRANCE")
        reply = text_of(h.reply(h.send(who, line, to=at_game)))
        assert "ok: signed on as" in reply, (line, reply)


def test_a_thanks_mail_leaves_the_orders_on_file(harness: Harness) -> None:
    h = harness
    set_up_game(h, "thanks")
    table = seated(h, "thanks")
    table.send_orders("ITALY", ["ORDERS", "A VEN H", "A ROM - APU", "F NAP - ION", "END"])
    reply = h.command(player("ITALY"),
                      f"{table.signon('ITALY')}\nThanks, see you next turn.\n\n"
                      "On Mon, Nov 23, 2026 at 11:43:24PM +0000, judge@example.test wrote:\n"
                      "> ok: orders for ITALY\n")  # fmt: skip
    assert "ERROR" not in reply and "orders on file are unchanged" in reply
    status = h.command(player("ITALY"), f"{table.signon('ITALY')}\nSTATUS")
    assert "A ROM - APU" in status and "no orders" not in status
    assert len(orders_on_file(get_game("thanks"))["ITALY"]) == 3


def test_held_back_answers_give_one_notice(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, outbound_reply_limit="4") as h:
        HARNESSES.append(h)
        set_up_game(h, "busy")  # France's JOIN and CONFIRM replies: the first two of four
        table = seated(h, "busy")
        sent = [h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - {to}")
                for to in ("PIC", "GAS", "BUR", "PIC", "BUR")]  # fmt: skip
        h.wait_until(lambda: h.replies_to(sent[2]))
        h.wait_until(lambda: [m for m in h.sink.mails if m.message["Subject"] == "answers paused"])
        h.wait_until(
            lambda: (
                get_game("busy")
                and any(
                    line.text == "A PAR - BUR"
                    for line in orders_on_file(get_game("busy"))["FRANCE"]
                )
            )
        )
        to_france = [m.message for m in h.sink.mails if m.rcpt_tos == [player("FRANCE")]]
        answers = [m for m in to_france if m["In-Reply-To"] in sent]
        notices = [m for m in to_france if m["Subject"] == "answers paused"]
        assert len(notices) == 1 and len(answers) == 3  # two answers, then the notice
        assert "still carried out" in text_of(notices[0])
        assert "Answers start again at" in text_of(notices[0])


def test_new_games_take_the_judges_time_zone(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, judge_timezone="Asia/Tokyo") as h:
        HARNESSES.append(h)
        set_up_game(h, "tokyo")
        assert get_game("tokyo").timezone == "Asia/Tokyo"
        table = seated(h, "tokyo")
        status = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS")
        # No zone of their own: the judge's zone, and UTC beside it.
        assert "JST (Asia/Tokyo) (" in status and "UTC)" in status
        zoned = h.command(
            player("FRANCE"), f"{table.signon('FRANCE')}\nSET ZONE Europe/Paris\nSTATUS"
        )
        assert "JST (Asia/Tokyo) (" in zoned and "CET (Europe/Paris) in your zone" in zoned

"""Issue 34 point 1 by mail: the ready-to-send block in the mails to a player, sent back
through the SMTP listener as mutt, Gmail and Outlook write a Reply.

The block counts where the player wrote it: above the quoted mail (mutt, Gmail) or above
Outlook's header block. The copy of the block inside the quoted or Outlook-copied mail is
never read, so a Reply that only says "thanks" leaves the orders on file as they were."""

from __future__ import annotations

import smtplib
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

from helpers.e2e import (
    Harness,
    last_mail_to,
    player,
    ready_block_lines,
    seated,
    secret,
    set_up_game,
    text_of,
    wire,
)

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.render.ready_block import PASSWORD_PLACEHOLDER
from mailjudge.store.models import utcnow


def _edited(block: list[str], power: str, old: str, new: str) -> list[str]:
    out = [line.replace(PASSWORD_PLACEHOLDER, secret(power)) for line in block]
    assert old in out
    return [new if line == old else line for line in out]


def _quoted_text(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def _bodies(mail: EmailMessage, text: str, quoted: str | None = None) -> dict[str, str]:
    """The player's ``text`` as each client's Reply to ``mail`` writes it; ``quoted``: the
    quoted mail as the player left it, when they wrote inside it."""
    original = text_of(mail)
    quote = quoted if quoted is not None else _quoted_text(original)
    outlook = (
        f"{text}\n\n-----Original Message-----\nFrom: mailjudge <judge@example.test>\n"
        f"Sent: Wednesday, November 25, 2026 10:00 PM\nTo: {mail['To']}\n"
        f"Subject: {mail['Subject']}\n\n{original}\n"
    )
    return {
        "mutt": f"{text}\n\nOn Wed, Nov 25, 2026 at 10:00:00PM +0000, mailjudge wrote:\n{quote}\n",
        "gmail": f"{text}\n\nOn Wed, Nov 25, 2026 at 10:00 PM mailjudge <judge@example.test>"
        f" wrote:\n\n{quote}\n",
        "outlook": outlook,
    }


def _reply(h: Harness, mail: EmailMessage, sender: str, body: str) -> str:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(mail["Reply-To"] or mail["From"])
    msg["Subject"] = f"Re: {mail['Subject']}"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg["In-Reply-To"] = mail["Message-ID"]
    msg.set_content(body)
    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port, timeout=10) as client:
        client.sendmail(sender, [msg["To"]], wire(msg))
    return text_of(h.reply(str(msg["Message-ID"])))


def _orders(game: str, power: str) -> list[str]:
    return [line.text for line in orders_on_file(get_game(game)).get(power, [])]


def test_the_started_mail_carries_a_block_that_round_trips(harness: Harness) -> None:
    h = harness
    set_up_game(h, "blk")
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    block = ready_block_lines(text_of(started))
    assert block[0] == f"SIGNON france@blk {PASSWORD_PLACEHOLDER}"
    assert "ORDERS FRANCE S1901M" in block and "A PAR H" in block
    assert "// (no order on file: the judge's default)" in block
    assert any(
        line.startswith("// A PAR: H, - BRE, - BUR, - GAS, - PIC, S F BRE,") for line in block
    ), "\n".join(block)
    assert all(len(line) <= 78 for line in block)
    assert secret("FRANCE") not in text_of(started)
    for client, new in (
        ("mutt", "A PAR - BUR"),
        ("gmail", "A PAR - PIC"),
        ("outlook", "A PAR - GAS"),
    ):
        edited = _edited(block, "FRANCE", "A PAR H", new)
        answer = _reply(h, started, player("FRANCE"), _bodies(started, "\n".join(edited))[client])
        assert "ERROR" not in answer, (client, answer)
        wanted = [line for line in edited[2:-1] if not line.startswith("//")]
        assert _orders("blk", "FRANCE") == wanted, client
    # mutt and Gmail: the block edited where it stands, inside the quote, counts too.
    original = text_of(started)
    for client, new in (("mutt", "A PAR - PIC"), ("gmail", "A PAR - BUR")):
        edited = _edited(block, "FRANCE", "A PAR H", new)
        inside = _quoted_text(original.replace("\n".join(block), "\n".join(edited)))
        answer = _reply(
            h, started, player("FRANCE"), _bodies(started, "Here you are.", inside)[client]
        )
        assert "ERROR" not in answer and secret("FRANCE") not in answer, (client, answer)
        wanted = [line for line in edited[2:-1] if not line.startswith("//")]
        assert _orders("blk", "FRANCE") == wanted, client
    # A Reply that carries the block only in the copy of the judge's mail files nothing.
    before = _orders("blk", "FRANCE")
    for client, body in _bodies(started, "Thanks, will do.").items():
        answer = _reply(h, started, player("FRANCE"), body)
        assert _orders("blk", "FRANCE") == before, (client, answer)


def test_results_and_reminders_carry_the_block_to_players_only(harness: Harness) -> None:
    h = harness
    set_up_game(h, "blk2")
    master = last_mail_to(h, "master@example.test", "the game has started")
    assert "ORDERS " not in text_of(master)
    seated(h, "blk2").play_phase({})
    results = last_mail_to(h, player("ENGLAND"), "results S1901M")
    block = ready_block_lines(text_of(results))
    assert "ORDERS ENGLAND F1901M" in block and "F LON H" in block
    assert "ORDERS " not in text_of(last_mail_to(h, "master@example.test", "results S1901M"))


def test_a_reminder_carries_the_orders_on_file_and_round_trips(harness: Harness) -> None:
    """A player with some orders on file is reminded: the block holds them, marks the
    units without one, and an Outlook Reply with the block edited on top files it."""
    h = harness
    set_up_game(h, "blk3")
    table = seated(h, "blk3")
    master = "SIGNON Mblk3 masterpw\n"
    table.say(table.master, master + "SET TIMING MOVE 2D RETREAT 1D ADJUST 1D WARN 2H", "2H")
    table.send_orders("ITALY", ["A VEN - TYR"])
    when = utcnow().replace(second=0, microsecond=0) + timedelta(minutes=61)
    table.say(table.master, master + f"SET DEADLINE {when:%Y-%m-%d %H:%M} UTC", "player(s) told")
    h.judge.clock_tick()
    reminder = last_mail_to(h, player("ITALY"), "reminder: orders due")
    block = ready_block_lines(text_of(reminder))
    at = block.index("A VEN - TYR")
    assert block[at + 1].startswith("// A VEN: H, - APU,")  # on file: no default mark
    assert block[block.index("F NAP H") + 1] == "// (no order on file: the judge's default)"
    edited = _edited(block, "ITALY", "F NAP H", "F NAP - ION")
    answer = _reply(h, reminder, player("ITALY"), _bodies(reminder, "\n".join(edited))["outlook"])
    assert "ERROR" not in answer, answer
    assert _orders("blk3", "ITALY") == [line for line in edited[2:-1] if not line.startswith("//")]

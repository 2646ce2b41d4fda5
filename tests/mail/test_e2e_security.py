"""Issue 19 by real SMTP, as an attacker would try it; every mail the judge sends is caught
at the relay. Each test would fail on a judge without the limits."""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
)

from mailjudge.config.settings import SecuritySettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import InboundMessage, Seat

VICTIM = "victim@elsewhere.test"
CAPS = SecuritySettings()


@pytest.fixture
def guarded(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge with the shipped security defaults (the other tests raise the hourly cap)."""
    unproven = str(CAPS.unproven_per_hour)
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE,
                       security_unproven_per_hour=unproven) as h:  # fmt: skip
        HARNESSES.append(h)
        yield h


def to(h: Harness, address: str) -> list[Any]:
    return [m for m in h.sink.mails if address in m.rcpt_tos]


def settle(h: Harness, seconds: float = 1.5) -> None:
    """Let the judge answer and send all it will (the caps are about what never comes)."""
    time.sleep(seconds)
    h.judge.work_once()


def test_a_map_bomb_from_a_forged_from_is_capped(guarded: Harness) -> None:
    h = guarded
    set_up_game(h, "g1")
    h.send(VICTIM, "\n".join(["MAP g1"] * 100))
    h.wait_until(lambda: to(h, VICTIM))
    settle(h)
    mails = to(h, VICTIM)
    assert len(mails) <= 2  # the reply and one picture
    assert sum(len(m.raw) for m in mails) < 1_000_000
    reply = next(m for m in mails if m.message["In-Reply-To"])
    assert "one picture of g1 per mail" in text_of(reply.message)
    assert "at most 40 commands" in text_of(reply.message)


def test_150_observe_lines_make_one_seat_and_no_results_before_confirmation(
    guarded: Harness,
) -> None:
    h = guarded
    set_up_game(h, "g2")
    table = seated(h, "g2")
    lines = "\n".join(f"OBSERVE v{n}@g2 pw{n}" for n in range(150))
    bomb = threading.Thread(target=lambda: h.send(VICTIM, lines))
    bomb.start()
    # Another player's mail meanwhile is accepted and answered.
    answer = h.command(player("ITALY"), f"{table.signon('ITALY')}\nA VEN H")
    assert "A VEN H" in answer
    bomb.join()
    h.wait_until(lambda: to(h, VICTIM))
    observers = Seat.select().where((Seat.game == get_game("g2")) & (Seat.role == "observer"))
    assert observers.count() == 1 and observers[0].status == "invited"
    phase = table.play_phase({})
    h.wait_until(lambda: len(h.results_for("g2", phase)) == 8)  # 7 players and the master
    settle(h)
    assert not [m for m in to(h, VICTIM) if "results" in str(m.message["Subject"])]
    confirmation = text_of(to(h, VICTIM)[0].message)
    assert "CONFIRM" in confirmation and "STOP g2" in confirmation


def test_an_observer_confirms_then_stops_without_a_password(guarded: Harness) -> None:
    h = guarded
    set_up_game(h, "g3")
    table = seated(h, "g3")
    watcher = "watcher@fans.test"
    reply = h.command(watcher, "OBSERVE watcher@g3 secretw")
    token = re.search(r"CONFIRM (\w+)", reply).group(1)  # type: ignore[union-attr]
    assert "you observe g3" in h.command(watcher, f"CONFIRM {token}")
    phase = table.play_phase({})
    h.wait_until(lambda: [m for m in to(h, watcher) if phase in str(m.message["Subject"])])
    assert "no more mail from g3" in h.command(watcher, "STOP g3")
    after = table.play_phase({})
    h.wait_until(lambda: len(h.results_for("g3", after)) == 8)
    settle(h)
    assert not [m for m in to(h, watcher) if after in str(m.message["Subject"])]


def test_guesses_lock_the_guesser_never_the_player(guarded: Harness) -> None:
    h = guarded
    set_up_game(h, "g4")
    table = seated(h, "g4")
    sent = [h.send("guesser@evil.test", f"SIGNON france@g4 guess{n}\nA PAR - PIC")
            for n in range(8)]  # fmt: skip
    h.wait_until(lambda: InboundMessage.select().where(
        InboundMessage.message_id.in_(sent) & (InboundMessage.state == "done")).count() == 8)  # fmt: skip
    reply = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - BUR")
    assert "ERROR" not in reply
    filed = [line.text for line in orders_on_file(get_game("g4"))["FRANCE"]]
    assert filed == ["A PAR - BUR"]
    notices = [m for m in to(h, player("FRANCE")) if "wrong password" in str(m.message["Subject"])]
    assert len(notices) <= 1
    settle(h)
    # Issue 38: beyond a few, a wrong guess gets no answer at all (it used to be answered
    # with "wait until"; the guesser learns nothing from the judge instead).
    answered = to(h, "guesser@evil.test")
    assert len(answered) == CAPS.signon_slow_after
    assert all("wrong password" in text_of(m.message) for m in answered)


def test_a_reflected_help_flood_gives_one_bounded_reply_to_the_sender(guarded: Harness) -> None:
    h = guarded
    marker = "BUY-CHEAP-PILLS"
    h.send("spammer@spam.test", f"{marker}\n" + "HELP\n" * 490, reply_to=VICTIM)
    h.wait_until(lambda: to(h, "spammer@spam.test") or to(h, VICTIM))
    settle(h)
    assert not to(h, VICTIM)  # a Reply-To of another domain, never signed on: ignored
    (reply,) = to(h, "spammer@spam.test")
    assert len(reply.raw) <= CAPS.max_reply_bytes + 8192  # headers, and CRLF line ends
    assert text_of(reply.message).count("Commands (case does not matter") <= CAPS.max_commands


def test_set_address_moves_mail_only_after_confirmation(guarded: Harness) -> None:
    h = guarded
    set_up_game(h, "g5")
    table = seated(h, "g5")
    new = "a@victims.test"
    reply = h.command(player("GERMANY"),
                      f"{table.signon('GERMANY')}\nSET ADDRESS {new},b@victims.test")  # fmt: skip
    assert "one address" in reply
    reply = h.command(player("GERMANY"), f"{table.signon('GERMANY')}\nSET ADDRESS {new}")
    assert f"keeps coming to {player('GERMANY')}" in " ".join(reply.split())
    phase = table.play_phase({})
    h.wait_until(lambda: len(h.results_for("g5", phase)) == 8)
    settle(h)
    got = to(h, new)
    assert len(got) == 1 and "confirm your address" in str(got[0].message["Subject"])
    assert [m for m in to(h, player("GERMANY")) if phase in str(m.message["Subject"])]
    token = re.search(r"CONFIRM (\w+)", text_of(got[0].message)).group(1)  # type: ignore[union-attr]
    assert "now comes to this address" in h.command(new, f"CONFIRM {token}")
    h.wait_until(lambda: [m for m in to(h, player("GERMANY"))
                          if "your address changed" in str(m.message["Subject"])])  # fmt: skip


def test_no_password_at_rest_and_a_private_database(guarded: Harness, tmp_path: Path) -> None:
    h = guarded
    set_up_game(h, "g6")
    table = seated(h, "g6")
    h.command(player("FRANCE"), f"SIGNON= france@g6 {secret('FRANCE')}\nSTATUS")
    h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nSET PASSWORD n3w-secret-pw")
    stored = b"".join(row.raw for row in InboundMessage.select())
    for pw in [secret(p) for p in table.players] + ["masterpw", "n3w-secret-pw"]:
        assert pw.encode() not in stored, pw
    mode = stat.S_IMODE(os.stat(tmp_path / "judge.db").st_mode)
    assert mode & 0o077 == 0, oct(mode)
    assert all(secret("FRANCE") not in text_of(m.message) for m in h.sink.mails)


@pytest.mark.parametrize("header", [
    ("Precedence", "auto_reply"), ("X-Autoreply", "yes"), ("X-Auto-Response-Suppress", "All"),
    ("X-Auto-Response-Suppress", "DR, AutoReply"), ("Reply-To", "judge@example.test"),
])  # fmt: skip
def test_loop_headers_get_no_answer(guarded: Harness, header: tuple[str, str]) -> None:
    h = guarded
    name, value = header
    sent = h.send("robot@auto.test", "HELP", **{name.replace("-", "_"): value})
    # The 250 means kept (in the listener's landing at first), not yet in the spool.
    h.wait_until(
        lambda: (
            InboundMessage.select()
            .where((InboundMessage.message_id == sent) & (InboundMessage.state == "done"))
            .exists()
        )
    )
    settle(h, 0.5)
    assert not h.replies_to(sent) and not to(h, "robot@auto.test")
    assert MASTER  # the module's names stay in use for the other tests

"""A few hundred forged or malformed commands at a live game, by real SMTP: the game's
orders, seats and phase are as they were, and no address outside the game got more mail
than the caps allow."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import HARNESSES, JUDGE, POWERS, Harness, player, seated, set_up_game

from mailjudge.config.settings import SecuritySettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import InboundMessage, Seat

CAPS = SecuritySettings()
OUTSIDERS = [f"x{n}@outside{n % 3}.test" for n in range(12)]


@pytest.fixture
def guarded(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE,
                       security_unproven_per_hour=str(CAPS.unproven_per_hour)) as h:  # fmt: skip
        HARNESSES.append(h)
        yield h


def forged_command(rng: random.Random) -> str:
    power = rng.choice(POWERS).lower()
    # Passwords no mail would ever hold by chance: the secrecy check looks for them.
    word = rng.choice(["zq1guess", "zq2pw", "", "zq3" + "x" * 300, "zq4-" + power])
    return rng.choice([
        f"SIGNON {power}@live {word}", f"SIGNON= {power}@live {word}", f"SIGN ON M{word}",
        "SIGNON Mlive zq5wrong", "ORDERS FRANCE\nA PAR - MOS\nEND", "A PAR - BUR", "CLEAR",
        "RESIGN", "PROCESS!", "ROLLBACK S1901M", f"EJECT {power.upper()}", "PAUSE",
        f"SET ADDRESS {rng.choice(OUTSIDERS)}", "SET PASSWORD zq6hijack",
        f"TAKEOVER {power}@live zq7pw", "JOIN live zq7pw FRANCE", f"OBSERVE o{rng.randrange(99)}@live zq7pw",
        f"CONFIRM {rng.randrange(16**12):012x}", "STOP live", "MAP live", "HISTORY live",
        "PRESS TO ALL\nspam spam\nENDPRESS", "BROADCAST\nfree money\nENDPRESS",
        "VOTE DRAW", "\x00\x01 garbage \u202e", "SET DEADLINE 2026-01-01 00:00",
        "A" * 2000, "SIGNON " + "@" * 50, "END", "ENDPRESS", "ORDERS\n" + "A PAR H\n" * 60,
    ])  # fmt: skip


def snapshot() -> tuple[object, ...]:
    game = get_game("live")
    seats = sorted((s.name, s.role, s.status, s.powers, s.person.email if s.person else "")
                   for s in Seat.select().where((Seat.game == game) & (Seat.role != "observer")))  # fmt: skip
    orders = {p: sorted(line.text for line in lines) for p, lines in orders_on_file(game).items()}
    return game.phase, game.state, game.deadline, tuple(seats), tuple(sorted(orders.items()))


def test_forged_and_malformed_mail_changes_nothing(guarded: Harness) -> None:
    h = guarded
    set_up_game(h, "live")
    table = seated(h, "live")
    for power in ("FRANCE", "ITALY"):  # some orders on file, and the players proven
        table.send_orders(power, [])
    table.send_orders("FRANCE", ["A PAR - BUR", "F BRE - MAO"])
    before = snapshot()
    sent_before = len(h.sink.mails)
    rng = random.Random(19)
    for n in range(300):
        sender = rng.choice(OUTSIDERS + [player(p) for p in POWERS])  # forged Froms too
        extra = {"reply_to": rng.choice(OUTSIDERS)} if rng.random() < 0.3 else {}
        text = "\n".join(forged_command(rng) for _ in range(rng.randint(1, 6)))
        h.send(sender, text, subject=f"fuzz {n}", **extra)
    h.wait_until(lambda: not InboundMessage.select().where(
        InboundMessage.state.in_(("queued", "processing"))).exists(), timeout=300)  # fmt: skip
    time.sleep(1.0)
    h.judge.work_once()
    assert snapshot() == before
    received = Counter(r for m in h.sink.mails[sent_before:] for r in m.rcpt_tos)
    # Beyond the answers, one notice an hour says they are held (and one that the same
    # text came too often): issue 53 point 5.
    held = Counter(r for m in h.sink.mails[sent_before:] for r in m.rcpt_tos
                   if m.message["Subject"] == "answers held")  # fmt: skip
    for outsider in OUTSIDERS:
        answers = received[outsider] - held[outsider]
        assert answers <= CAPS.unproven_per_hour and held[outsider] <= 2, (outsider, answers)
    for power in POWERS:
        wrong = [m for m in h.sink.mails[sent_before:] if player(power) in m.rcpt_tos
                 and "wrong password" in str(m.message["Subject"])]  # fmt: skip
        assert len(wrong) <= 1, power

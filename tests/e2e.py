"""Playing by mail for the end-to-end tests: a judge on loopback, players who write to it
with smtplib (or whose mail a real Dovecot holds), and a sink that catches what the judge
sends."""

from __future__ import annotations

import email.policy
import random
import smtplib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from mailstack import Received, SmtpSink

from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.service.games import get_game
from mailjudge.service.orders import current_position
from mailjudge.service.runner import Judge
from mailjudge.settings import Settings, load_settings

JUDGE = "judge@example.test"
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
MASTER = "master@example.test"


def player(power: str) -> str:
    return f"{power.lower()}@players.test"


def secret(power: str) -> str:
    return f"pw-{power.lower()}-7"


def judge_settings(database: Path, relay_port: int, **extra: str) -> Settings:
    """A judge on loopback for the tests: SQLite in `database`, mail out to the sink."""
    environ = {
        "MAILJUDGE_JUDGE_ADDRESS": JUDGE,
        "MAILJUDGE_DATABASE_URL": f"sqlite:///{database}",
        "MAILJUDGE_OUTBOUND_PORT": str(relay_port),
        "MAILJUDGE_OUTBOUND_REPLY_LIMIT": "0",
    }
    environ.update({f"MAILJUDGE_{k.upper()}": v for k, v in extra.items()})
    return load_settings(None, environ)


@contextmanager
def running_judge(database: Path, sink: SmtpSink) -> Iterator[Harness]:
    """A judge on loopback for one test, stopped afterwards."""
    judge = Judge(judge_settings(database, sink.port), free_ports=True)
    judge.start()
    try:
        yield Harness(judge, sink)
    finally:
        judge.stop()


def wire(msg: EmailMessage) -> bytes:
    """The message as it travels: CRLF line ends (smtplib sends bytes as they are)."""
    return msg.as_bytes(policy=email.policy.SMTP)


# Every Harness made during the running test; conftest's secrecy check reads what went
# through each of them when the test ends.
HARNESSES: list[Harness] = []


class Harness:
    def __init__(
        self, judge: Judge, sink: SmtpSink, deliver: Callable[[str, bytes], None] | None = None
    ):
        self.judge = judge
        self.sink = sink
        self._deliver = deliver or self._smtp
        self.delivered: list[bytes] = []  # every mail the players sent, as sent
        HARNESSES.append(self)

    def deliver(self, sender: str, raw: bytes) -> None:
        self.delivered.append(raw)
        self._deliver(sender, raw)

    def _smtp(self, sender: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.judge.listener.smtp_port, timeout=10) as client:
            client.sendmail(sender, [JUDGE], raw)

    def mail(
        self, sender: str, text: str, subject: str = "commands", **headers: str
    ) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = headers.pop("to", JUDGE)
        msg["Subject"] = subject
        msg["Message-ID"] = headers.pop("message_id", make_msgid(domain="players.test"))
        for name, value in headers.items():
            msg[name.replace("_", "-")] = value
        msg.set_content(text)
        return msg

    def send(self, sender: str, text: str, **headers: str) -> str:
        msg = self.mail(sender, text, **headers)
        self.deliver(sender, wire(msg))
        return str(msg["Message-ID"])

    def replies_to(self, message_id: str) -> list[Received]:
        return [m for m in self.sink.mails if m.message["In-Reply-To"] == message_id]

    def reply(self, message_id: str, timeout: float = 60.0) -> EmailMessage:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.replies_to(message_id)
            if found:
                return found[0].message
            time.sleep(0.02)
        raise AssertionError(f"no reply to {message_id} within {timeout}s")

    def command(self, sender: str, text: str) -> str:
        body = self.reply(self.send(sender, text)).get_content()
        assert isinstance(body, str)
        return body

    def wait_until(self, check: Callable[[], bool], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.05)
        raise AssertionError("the judge did not get there in time")

    def results_for(self, game: str, phase: str) -> list[Received]:
        return [m for m in self.sink.mails if m.message["Subject"] == f"[{game}] results {phase}"]


def set_up_game(h: Harness, game: str) -> None:
    reply = h.command(MASTER, f"CREATE {game} masterpw RULES POWER_CHOICE")
    assert f"ok: game {game} created" in reply, reply
    for power in POWERS:
        reply = h.command(player(power), f"JOIN {game} {secret(power)} {power}")
        assert "ok: you joined" in reply, reply
    h.wait_until(lambda: get_game(game).state == "active")


def play_years(h: Harness, game: str, years: int, seed: int = 3) -> list[str]:
    """Every player mails random legal orders each phase; returns the phases played."""
    gmap = load_map("standard")
    rng = random.Random(seed)
    played: list[str] = []
    first_year = current_position(get_game(game)).phase.year
    while True:
        g = get_game(game)
        pos = current_position(g)
        if g.state != "active" or pos.phase.year >= first_year + years:
            return played
        phase = str(pos.phase)
        for power, lines in random_orders(gmap, pos, rng).items():
            text = f"SIGNON {power.lower()}@{game} {secret(power)}\n" + "\n".join(lines) + "\n"
            reply = h.command(player(power), text)
            assert "ERROR" not in reply and "not accepted" not in reply, reply
        if get_game(game).phase == phase and not h.results_for(game, phase):
            # Orders for every unit went in, but some removals were left to civil disorder.
            assert "processed" in h.command(MASTER, f"SIGNON M{game} masterpw\nPROCESS!")
        h.wait_until(lambda done=phase: len(h.results_for(game, done)) == 8)
        played.append(phase)

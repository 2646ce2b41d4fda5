"""Playing by mail for the end-to-end tests: a judge on loopback, players who write to it
with smtplib (or whose mail a real Dovecot holds), and a sink that catches what the judge
sends."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from mailjudge.config.settings import Settings
from mailjudge.demo import mailroom
from mailjudge.demo.mailroom import wire
from mailjudge.demo.sink import MailSink, text_of
from mailjudge.demo.table import Person, Table
from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders

JUDGE = "judge@example.test"
__all__ = ["Harness", "text_of", "wire"]  # the tests import them from here
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
MASTER = "master@example.test"


def player(power: str) -> str:
    return f"{power.lower()}@players.test"


def secret(power: str) -> str:
    return f"pw-{power.lower()}-7"


def judge_settings(database: Path, relay_port: int, **extra: str) -> Settings:
    """A judge on loopback for the tests: SQLite in `database`, mail out to the sink."""
    return mailroom.judge_settings(database, relay_port, JUDGE, **extra)


# Every Harness made during the running test; conftest's secrecy check reads what went
# through each of them when the test ends.
HARNESSES: list[mailroom.Harness] = []


class Harness(mailroom.Harness):
    """The demo's harness, remembered for the secrecy check."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        HARNESSES.append(self)


@contextmanager
def running_judge(database: Path, sink: MailSink, **extra: str) -> Iterator[mailroom.Harness]:
    """A judge on loopback for one test, stopped afterwards; ``extra`` settings as
    mailroom.judge_settings takes them (``database_url`` for PostgreSQL)."""
    with mailroom.running_judge(database, sink, JUDGE, **extra) as harness:
        HARNESSES.append(harness)
        yield harness


def seated(h: Harness, game: str) -> Table:
    """The master and the seven players of `game`, at the harness's judge."""
    players = {power: Person(player(power), secret(power)) for power in POWERS}
    return Table(h, game, Person(MASTER, "masterpw"), players)


def join_by_mail(h: mailroom.Harness, address: str, text: str) -> str:
    """JOIN by mail; a new address is asked to CONFIRM a token first (issue 38: a forged JOIN
    puts nobody on a country's list; issue 52: nor in any game's seat), which the harness
    answers (mailroom.Harness.command). The JOIN's reply, then the CONFIRM's."""
    reply = h.command(address, text)
    if re.search(r"CONFIRM (\w+)", reply):
        assert "you are a citizen" in reply or "you joined" in reply.split("CONFIRM")[-1]
    return reply


def takeover_by_mail(h: mailroom.Harness, address: str, text: str) -> str:
    """TAKEOVER by mail; from an address the judge never had an answer from it waits for
    the CONFIRM of a token mailed there (issue 52: a forged From takes no power), which it
    answers. The answer that settled it: the CONFIRM's, or the TAKEOVER's own."""
    reply = h.command(address, text)
    token = re.search(r"CONFIRM (\w+)", reply)
    if token is None:
        return reply
    return h.command(address, f"CONFIRM {token.group(1)}")


def set_up_game(h: Harness, game: str) -> None:
    seated(h, game).sign_on()


def play_years(h: Harness, game: str, years: int, seed: int = 3) -> list[str]:
    """Every player mails random legal orders each phase; returns the phases played."""
    gmap = load_map("standard")
    rng = random.Random(seed)
    table = seated(h, game)
    played: list[str] = []
    first_year = table.position().phase.year
    while True:
        pos = table.position()
        if table.state().state != "active" or pos.phase.year >= first_year + years:
            return played
        phase = table.play_phase(random_orders(gmap, pos, rng))
        h.wait_until(lambda done=phase: len(h.results_for(game, done)) == 8)
        played.append(phase)


def last_mail_to(h: Harness, to: str, subject: str) -> EmailMessage:
    """The newest mail at the sink to ``to`` alone whose subject holds ``subject``,
    waited for."""

    def found() -> list[EmailMessage]:
        return [m.message for m in h.sink.mails
                if m.rcpt_tos == [to] and subject in m.subject]  # fmt: skip

    h.wait_until(found)
    return found()[-1]


def ready_block_lines(text: str) -> list[str]:
    """A mail's ready-to-send block as it shows it: from the SIGNON line to the last END."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("SIGNON "))
    end = max(i for i, line in enumerate(lines) if line == "END")
    return lines[start : end + 1]

"""Several connections to the relay at once: every mail handed over once, nobody's mails
out of order, the connections really used together, a failure kept to its own mail."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from helpers.mailstack import LOOPBACK, free_port

from mailjudge.config.settings import OutboundSettings
from mailjudge.outbound import outbox
from mailjudge.outbound.connections import RelayConnections, spread
from mailjudge.outbound.message import build_message
from mailjudge.outbound.send import SmtpSender
from mailjudge.outbound.sent_record import SentRecord, record_path
from mailjudge.store.models import Outbox

JUDGE = "judge@example.org"


class _SlowRelay:
    """A relay that takes a moment over each mail, notes the order mails came in and how
    many sessions were in DATA at once; it refuses DATA for one address (permanently)."""

    def __init__(self, refuse: str = "") -> None:
        self.arrived: list[tuple[str, str]] = []  # (recipient, subject)
        self.in_data = 0
        self.most_at_once = 0
        self.refuse = refuse

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        self.in_data += 1
        self.most_at_once = max(self.most_at_once, self.in_data)
        await asyncio.sleep(0.02)
        self.in_data -= 1
        to = str(envelope.rcpt_tos[0])
        if to == self.refuse:
            return "554 5.7.1 not from you"
        content = (envelope.original_content or b"").decode()
        subject = re.search(r"^Subject: (.*)$", content, re.M)
        self.arrived.append((to, subject.group(1).strip() if subject else ""))
        return "250 2.0.0 Ok"


@pytest.fixture
def slow_relay() -> Iterator[tuple[_SlowRelay, int]]:
    relay = _SlowRelay(refuse="mallory@example.com")
    controller = Controller(relay, hostname=LOOPBACK, port=free_port())
    controller.start()
    try:
        yield relay, controller.port
    finally:
        controller.stop()


def _queue(to: str, n: int) -> Outbox:
    message = build_message(sender=JUDGE, to=[to], subject=f"Reply {n}", text=f"Reply {n}\n")
    return outbox.enqueue(message)


def test_mails_go_over_every_connection_once_each_in_order(
    sqlite_db: str, slow_relay: tuple[_SlowRelay, int], tmp_path: Path
) -> None:
    relay, port = slow_relay
    players = [f"p{k}@example.com" for k in range(6)]
    for n in range(24):
        _queue(players[n % 6], n)
    record = SentRecord(record_path(tmp_path / "judge.db"))
    with RelayConnections([SmtpSender(LOOPBACK, port, JUDGE, timeout=5) for _ in range(3)]) as c:
        result = outbox.flush(c, record=record)
    record.close()
    assert (result.sent, result.retried, result.failed) == (24, 0, 0)
    assert sorted(relay.arrived) == sorted((players[n % 6], f"Reply {n}") for n in range(24))
    for player in players:  # each player's replies in the order they were queued
        subjects = [s for to, s in relay.arrived if to == player]
        assert subjects == sorted(subjects, key=lambda s: int(s.split()[1]))
    assert relay.most_at_once >= 2  # the connections were used together
    assert Outbox.select().where(Outbox.state == "sent").count() == 24


def test_a_refused_mail_fails_alone_and_the_rest_go(
    sqlite_db: str, slow_relay: tuple[_SlowRelay, int]
) -> None:
    relay, port = slow_relay
    refused = _queue("mallory@example.com", 0)
    for n in range(1, 9):
        _queue(f"p{n}@example.com", n)
    with RelayConnections([SmtpSender(LOOPBACK, port, JUDGE, timeout=5) for _ in range(3)]) as c:
        result = outbox.flush(c)
    assert (result.sent, result.failed) == (8, 1)
    assert Outbox.get_by_id(refused.id).state == "failed"
    assert len(relay.arrived) == 8


def test_a_relay_that_is_down_delays_every_mail_and_loses_none(sqlite_db: str) -> None:
    for n in range(6):
        _queue(f"p{n}@example.com", n)
    down = free_port()
    with RelayConnections([SmtpSender(LOOPBACK, down, JUDGE, timeout=2) for _ in range(3)]) as c:
        result = outbox.flush(c)
    assert (result.sent, result.retried) == (0, 6)
    assert all(row.state == "queued" and row.attempts == 1 for row in Outbox.select())


def test_the_connections_come_from_the_settings() -> None:
    connections = RelayConnections.from_settings(
        OutboundSettings(host=LOOPBACK, port=2525, connections=4), JUDGE
    )
    assert len(connections.senders) == 4
    assert connections.envelope_from == JUDGE
    assert {(s.host, s.port) for s in connections.senders} == {(LOOPBACK, 2525)}


def test_mails_sharing_any_recipient_share_a_connection_in_order() -> None:
    items = [
        ("a",), ("b",), ("A",), ("c", "d"), ("d", "e"), ("e",), ("f",), ("g",), ("b", "h"),
    ]  # fmt: skip
    shares = spread(items, lambda item: item, 3)
    lane_of = {item: lane for lane, share in shares for item in share}
    assert lane_of[("a",)] == lane_of[("A",)]  # one address in any case
    assert lane_of[("c", "d")] == lane_of[("d", "e")] == lane_of[("e",)]  # through d and e
    assert lane_of[("b",)] == lane_of[("b", "h")]
    for _, share in shares:
        assert share == [item for item in items if item in share]  # claimed order kept
    assert sorted(len(share) for _, share in shares) == [3, 3, 3]
    assert spread([("a",), ("a",)], lambda item: item, 3) == [(0, [("a",), ("a",)])]
    assert spread([], lambda item: item, 3) == []


def test_a_failing_share_is_raised_after_the_others_are_out() -> None:
    connections = RelayConnections([SmtpSender(LOOPBACK, 1, JUDGE) for _ in range(3)])

    tried: list[str] = []

    def work(connection: SmtpSender, item: str) -> str:
        tried.append(item)
        if item == "bad":
            raise RuntimeError("broken")
        return item.upper()

    got: list[tuple[str, str]] = []
    with pytest.raises(RuntimeError, match="broken"):
        for pair in connections.each(["bad", "x", "y", "bad"], lambda item: [item], work):
            got.append(pair)
    connections.close()
    # The failing share stops there (the second "bad" is left to its lease); the other
    # shares are out.
    assert sorted(got) == [("x", "X"), ("y", "Y")]
    assert tried.count("bad") == 1


def test_one_share_is_sent_in_the_calling_thread() -> None:
    """A single share needs no thread: a batch to one address is sent as before."""
    connections = RelayConnections([SmtpSender(LOOPBACK, 1, JUDGE) for _ in range(3)])
    out = list(connections.each(["a", "a"], lambda item: [item], lambda c, item: c))
    assert [c for _, c in out] == [connections.senders[0]] * 2
    assert connections._pool is None

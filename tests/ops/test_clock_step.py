"""Time as it is (issue 51, point 11): the system clock stepped back a day held queued
replies for a day, since the outbox keeps each wait as a time on the wall clock. A wait
further ahead than any the outbox sets was set by a clock that has gone back since, and
is due now: at once when a sender sees its clock go back, and at a sender's start (the
step happened while the judge was down)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from helpers.e2e import JUDGE
from helpers.refusing_relay import Relay

from mailjudge.app.runner import Judge
from mailjudge.demo.mailroom import Harness, judge_settings
from mailjudge.outbound import outbox
from mailjudge.outbound.message import build_message
from mailjudge.outbound.retry import RetryPolicy
from mailjudge.outbound.send import SmtpSender
from mailjudge.store.models import Outbox, utcnow

DAY = timedelta(days=1)


def test_a_judge_whose_clock_steps_back_a_day_sends_at_once(
    tmp_path: Path, relay: Relay, cheap_scrypt: None
) -> None:
    """The judge's clock (injectable) is a day ahead while the relay refuses; the reply
    waits for its retry, a day ahead. The clock is put right and the relay takes mail
    again: the reply goes within seconds, not a day later."""
    ahead = [DAY]

    def clock() -> datetime:
        return utcnow() + ahead[0]

    settings = judge_settings(tmp_path / "judge.db", relay.port, JUDGE,
                              outbound_retry_first_seconds="30")  # fmt: skip
    judge = Judge(settings, clock=clock, free_ports=True)
    judge.start()
    try:
        h = Harness(judge, relay)
        relay.answer = "451 4.3.0 Try again later"
        h.send("jean@players.test", "HELP")
        h.wait_until(lambda: Outbox.select().where(Outbox.attempts > 0).exists())
        waits = Outbox.get().next_attempt_at
        assert waits > utcnow() + DAY - timedelta(minutes=1)  # as the day-ahead clock set it
        ahead[0] = timedelta(0)  # the clock is put right: back a day
        relay.answer = None
        judge.send.set()
        h.wait_until(lambda: len(relay.mails) == 1, 30, "the reply, after the step back")
    finally:
        judge.stop()
    assert relay.mails[0].rcpt_tos == ["jean@players.test"]


def test_a_sender_started_after_the_step_sends_what_waited(any_db: str, relay: Relay) -> None:
    """The clock went back while the judge was stopped: the new sender has never seen the
    later time, and still sends mail whose wait lies further ahead than any it sets."""
    message = build_message(sender=JUDGE, to=["jean@players.test"], subject="x", text="x")
    outbox.enqueue(message)
    retry = RetryPolicy()
    relay.answer = "451 4.3.0 Try again later"
    before = SmtpSender("127.0.0.1", relay.port, JUDGE, timeout=5)
    assert outbox.flush(before, now=utcnow() + DAY, retry=retry).retried == 1
    before.close()
    relay.answer = None
    after = SmtpSender("127.0.0.1", relay.port, JUDGE, timeout=5)
    # An ordinary wait, within the retry policy's longest, is kept as it is.
    ordinary = build_message(sender=JUDGE, to=["marie@players.test"], subject="y", text="y")
    row = outbox.enqueue(ordinary)
    soon = utcnow() + timedelta(minutes=20)
    Outbox.update(next_attempt_at=soon).where(Outbox.id == row.id).execute()
    assert outbox.flush(after, now=utcnow(), retry=retry).sent == 1
    after.close()
    assert [m.rcpt_tos for m in relay.mails] == [["jean@players.test"]]
    assert Outbox.get(Outbox.id == row.id).next_attempt_at == soon

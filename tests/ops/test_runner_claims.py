"""The serving judge honours the claim settings: a mail its dead worker left in processing is
taken up again after inbound.claim_timeout_seconds, not after the built-in ten minutes."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from helpers.e2e import JUDGE, Harness, judge_settings
from helpers.mailstack import SmtpSink

from mailjudge.app.runner import Judge
from mailjudge.inbound import spool
from mailjudge.store.models import InboundMessage, utcnow


def test_a_mail_left_by_a_dead_worker_is_answered_after_the_claim_timeout(
    tmp_path: Path, smtp_sink: SmtpSink, cheap_scrypt: None
) -> None:
    settings = judge_settings(
        tmp_path / "judge.db", smtp_sink.port, inbound_claim_timeout_seconds="2"
    )
    judge = Judge(settings, free_ports=True)
    judge.start()
    try:
        h = Harness(judge, smtp_sink)
        msg = h.mail("someone@players.test", "HELP LIST")
        row, new = spool.store(bytes(msg), "someone@players.test", [JUDGE], "smtp")
        assert new
        # As a worker that claimed it and was killed a minute ago would leave it.
        InboundMessage.update(
            state="processing", attempts=1, claimed_at=utcnow() - timedelta(minutes=1)
        ).where(InboundMessage.id == row.id).execute()
        judge.wake.set()
        reply = h.reply(str(msg["Message-ID"]), timeout=20)
        assert reply["To"] == "someone@players.test"
        assert InboundMessage.get_by_id(row.id).state == "done"
    finally:
        judge.stop()

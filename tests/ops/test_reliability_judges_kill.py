"""Three `mailjudge serve` processes on one PostgreSQL database, each with its own SMTP
listener (as behind three MX records), take order mails of many games; one judge is
SIGKILLed, with everything it started, in the middle of the burst. The senders go on to
the other listeners, as MTAs go to the next MX. Every mail that got 250 is answered once:
what the dead judge held (its claims, its game locks, its sender's leases) is taken up
by the others."""

from __future__ import annotations

import time
from pathlib import Path

from helpers.mailstack import free_port
from helpers.reliability import JudgeProcess, MxStream, count, judge_config, sink_on
from helpers.reliability import wait_for_answers as answered_by

from mailjudge.benchmarks.mail_judges import make_games
from mailjudge.outbound.outbox import CLAIM_BATCH
from mailjudge.store import db
from mailjudge.tools import migrations


def test_judges_answer_each_mail_once_when_one_is_killed(tmp_path: Path, postgres_url: str) -> None:
    db.connect(postgres_url)
    try:
        migrations.upgrade()
        bodies = list(make_games(12).items())  # 84 players
    finally:
        db.close()
    with sink_on() as sink:
        judges = [
            JudgeProcess(
                tmp_path, judge_config(postgres_url, sink.port, free_port()), name=f"judge{n}"
            )
            for n in range(3)
        ]
        for judge in judges:
            judge.start()
        ports = [judge.smtp_port for judge in judges]
        # Each stream its own turn of the players, so the games' mails interleave.
        streams = [
            MxStream(
                ports[n:] + ports[:n], bodies[n * 7 :] + bodies[: n * 7], rate=30, first=n * 10**7
            )
            for n in range(3)
        ]
        try:
            for stream in streams:
                stream.start()
            time.sleep(3.0)
            killed_at = time.monotonic()
            judges[0].kill()  # SIGKILL to its process group: listener, worker, sender
            time.sleep(3.0)
            for stream in streams:
                stream.stop()
            accepted = [m for stream in streams for m in stream.message_ids]
            after = sum(at > killed_at for stream in streams for _, at in stream.accepted)
            answered_by(sink, accepted, timeout=90)
            figures = count(sink, accepted, postgres_url)
        finally:
            for stream in streams:
                stream.stop()
            for judge in judges:
                judge.stop()
    # What happened, not how fast: mail was taken before and after the kill (how much
    # depends on the machine; the rate is bench mail --judges's business), none lost.
    print(f"\njudges kill: {figures.accepted} mails taken in 6 s, {after} after the kill")
    assert after > 0 and figures.accepted > after, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()
    # Only a kill between the relay's 250 and the sender's note of it sends an answer twice:
    # at most the one batch the killed sender had claimed (how many of it were handed over
    # by then depends on the machine's load).
    assert figures.resent <= CLAIM_BATCH, figures.lines()

"""Three `mailjudge serve` processes on one PostgreSQL database, each with its own SMTP
listener (as behind three MX records), take order mails of many games; one judge is
SIGKILLed, with everything it started, in the middle of the burst. The senders go on to
the other listeners, as MTAs go to the next MX. Every mail that got 250 is answered once:
what the dead judge held (its claims, its game locks, its sender's leases) is taken up
by the others."""

from __future__ import annotations

import smtplib
import threading
import time
from itertools import cycle
from pathlib import Path

from mailstack import free_port
from reliability import JUDGE, JudgeProcess, count, judge_config, order_mail, sink_on
from reliability import wait_for_answers as answered_by

from mailjudge import db, migrations
from mailjudge.benchmarks.mail_judges import make_games


class FailoverStream:
    """Order mails at ``rate`` a second from a thread, to the first of ``ports`` that takes
    them: a port that refuses or drops the connection is left for the next one."""

    def __init__(self, ports: list[int], mails: list[tuple[str, str]], rate: float) -> None:
        self.ports = ports
        self.mails = mails
        self.rate = rate
        self.accepted: list[str] = []
        self.stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        self._thread.join(60)

    def _run(self) -> None:
        ports, client = cycle(self.ports), None
        port, started = next(ports), time.monotonic()
        for n, (sender, body) in enumerate(cycle(self.mails)):
            if self.stop_event.is_set():
                break
            message_id, raw = order_mail(sender, body, n)
            while True:
                try:
                    client = client or smtplib.SMTP("127.0.0.1", port, timeout=10)
                    client.sendmail(sender, [JUDGE], raw)
                    break
                except (smtplib.SMTPException, OSError):
                    client, port = None, next(ports)  # the next MX
                    time.sleep(0.05)
            self.accepted.append(message_id)
            time.sleep(max(0.0, started + (n + 1) / self.rate - time.monotonic()))
        if client is not None:
            client.close()


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
            FailoverStream(ports[n:] + ports[:n], bodies[n * 7 :] + bodies[: n * 7], rate=30)
            for n in range(3)
        ]
        try:
            for stream in streams:
                stream.start()
            time.sleep(3.0)
            judges[0].kill()  # SIGKILL to its process group: listener, worker, sender
            time.sleep(3.0)
            for stream in streams:
                stream.stop()
            accepted = [m for stream in streams for m in stream.accepted]
            answered_by(sink, accepted, timeout=90)
            figures = count(sink, accepted, postgres_url)
        finally:
            for stream in streams:
                stream.stop()
            for judge in judges:
                judge.stop()
    assert figures.accepted > 300, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()
    # Only a kill between the relay's 250 and the sender's record sends one answer twice.
    assert figures.resent <= 5, figures.lines()

"""`mailjudge serve`: the listeners, the IMAP poller, the worker and the clock, together.

Mail is accepted by the SMTP/LMTP listener (or read by the IMAP poller) and only stored; a
worker thread takes stored mail one by one (spool.process_pending), answers it, and sends
the outbox. A `schedule` scheduler drives what happens by the clock: game deadlines and
reminders, and retries of mail the relay refused.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

import schedule

from mailjudge import db
from mailjudge.inbound import spool
from mailjudge.inbound.imap import ImapPoller
from mailjudge.inbound.smtp import Listener, judge_recipients
from mailjudge.models import InboundMessage, utcnow
from mailjudge.outbound.outbox import RetryPolicy, flush
from mailjudge.outbound.send import SmtpSender
from mailjudge.service import pipeline
from mailjudge.settings import Settings

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


class Judge:
    """A running judge. ``clock`` is injectable so tests can run game time fast."""

    def __init__(self, settings: Settings, clock: Clock = utcnow, free_ports: bool = False) -> None:
        self.settings = settings
        self.clock = clock
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.listener = Listener(
            settings,
            judge_recipients(settings.judge.address),
            store=self._store,
            free_ports=free_ports,
        )
        self.poller = ImapPoller(settings.imap, store=self._store) if settings.imap.host else None
        self.sender = SmtpSender.from_settings(settings.outbound, settings.judge.address)
        self.retry = RetryPolicy.from_settings(settings.outbound)
        self.scheduler = schedule.Scheduler()
        self.scheduler.every(5).seconds.do(self._flush_outbox)
        self.scheduler.every(10).seconds.do(self.clock_tick)
        self._threads: list[threading.Thread] = []

    def _store(self, raw: bytes, envelope_from: str, envelope_to: list[str], source: str) -> Any:
        stored = spool.store(raw, envelope_from, envelope_to, source)
        self.wake.set()  # the worker answers at once instead of at its next round
        return stored

    def start(self) -> None:
        db.connect(self.settings.database.url)
        db.create_tables()
        self.listener.start()
        self._spawn("worker", self._work)
        if self.poller is not None:
            self._spawn("imap", lambda: self.poller.run(self.stop_event))  # type: ignore[union-attr]
        log.info(
            "mailjudge serving %s: SMTP %s:%s%s",
            self.settings.judge.address,
            self.settings.smtp.host,
            self.listener.smtp_port,
            f", LMTP {self.listener.lmtp_port}" if self.listener.lmtp_port else "",
        )

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=f"mailjudge-{name}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self.stop_event.set()
        self.wake.set()
        self.listener.stop()
        for thread in self._threads:
            thread.join(timeout=10)
        db.close()

    def handle(self, row: InboundMessage) -> None:
        pipeline.handle(row, self.settings, self.clock())

    def work_once(self) -> int:
        """Answer every stored mail and send what is queued; returns mails answered."""
        done = spool.process_pending(self.handle)
        self._flush_outbox()
        return done

    def _flush_outbox(self) -> None:
        flush(self.sender, self.clock(), retry=self.retry)

    def clock_tick(self) -> None:
        """What the clock decides: deadlines, reminders, grace (see service.deadlines)."""
        from mailjudge.service import deadlines

        for item in deadlines.tick(self.clock()):
            pipeline.queue_outgoing(item, self.settings, self.clock())

    def _work(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.work_once()
                self.scheduler.run_pending()
            except Exception:  # a broken round must not stop the judge
                log.exception("worker round failed; trying again")
            self.wake.wait(timeout=1.0)
            self.wake.clear()

    def serve_forever(self) -> None:
        self.start()
        try:
            self.stop_event.wait()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

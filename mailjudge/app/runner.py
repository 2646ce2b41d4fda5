"""`mailjudge serve`: the listeners, the IMAP poller, the worker and the clock, together.

Mail is accepted by the SMTP/LMTP listener (or read by the IMAP poller) and only stored; a
worker thread takes stored mail one by one (spool.process_pending), answers it, and sends
the outbox. A `schedule` scheduler drives what happens by the clock: game deadlines and
reminders, and retries of mail the relay refused.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import schedule

from mailjudge import db, migrations
from mailjudge.app import pipeline
from mailjudge.inbound import spool
from mailjudge.inbound.imap import ImapPoller
from mailjudge.inbound.landing import Landing
from mailjudge.inbound.smtp import Listener, judge_recipients
from mailjudge.logs import setup_logging
from mailjudge.models import InboundMessage, utcnow
from mailjudge.outbound.outbox import RetryPolicy, flush, prune_sent
from mailjudge.outbound.send import SmtpSender
from mailjudge.outbound.sent_record import SentRecord
from mailjudge.service import deadlines, guard
from mailjudge.settings import Settings, use_settings
from mailjudge.variants.democratic.country_lists import list_target
from mailjudge.web import server as web_server

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def claim_limits(settings: Settings) -> dict[str, Any]:
    """inbound.claim_timeout_seconds and inbound.max_attempts, as process_pending takes them."""
    return {
        "stale_after": timedelta(seconds=settings.inbound.claim_timeout_seconds),
        "max_attempts": settings.inbound.max_attempts,
    }


def _child_setup(settings: Settings) -> None:
    """In a worker or the sender: the judge's log format, marked with the process's role;
    SIGINT and SIGTERM ignored, since they reach the whole process group (Ctrl-C,
    systemd) and the mail in hand must be finished: the judge's stop_event ends the
    process once it is."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    role = multiprocessing.current_process().name.removeprefix("mailjudge-")
    setup_logging(settings.logging, role)


def _worker_process(settings: Settings, wake: Any, send: Any, stop: Any) -> None:
    """A worker in its own process: answer stored mail as it comes."""
    _child_setup(settings)
    use_settings(settings)
    db.connect(settings.database.url)
    landing = Landing.beside_database()

    def handle(row: InboundMessage, prepared: Any = None) -> None:
        pipeline.handle(row, settings, prepared=prepared)

    def prepare(row: InboundMessage) -> Any:
        return pipeline.prepare(row, settings)

    while not stop.is_set():
        try:
            # A few batches at a time, the sender woken after each round: in a burst the
            # replies go out while more mail is answered, not after the queue is empty.
            while spool.process_pending(
                handle,
                limit=4 * spool.BATCH,
                prepare=prepare,
                stopping=stop.is_set,
                landing=landing,
                **claim_limits(settings),
            ):
                send.set()
        except Exception:
            log.exception("worker round failed; trying again")
        wake.wait(timeout=1.0)
        wake.clear()


def _sender_process(settings: Settings, send: Any, stop: Any) -> None:
    """The outbound sender in its own process: one SMTP connection, kept open."""
    _child_setup(settings)
    db.connect(settings.database.url)
    sender = SmtpSender.from_settings(settings.outbound, settings.judge.address, settings.dkim)
    retry = RetryPolicy.from_settings(settings.outbound)
    # On SQLite the sender notes each outcome in a file of its own (outbound.sent_record)
    # instead of waiting for the database's one write lock between two mails.
    record = SentRecord.beside_database()
    while not stop.is_set():
        try:
            flush(sender, retry=retry, record=record)
        except Exception:
            log.exception("sending round failed; trying again")
        send.wait(timeout=1.0)
        send.clear()
    if record is not None:
        record.close()


class Judge:
    """A running judge. ``clock`` is injectable so tests can run game time fast.

    With ``workers`` > 0 the answering of mail and the sending run in processes of their
    own (``workers`` answering, one sending), so that listening, answering and sending each
    have a core; with 0 they are threads of this process (quick to start, for tests).
    """

    def __init__(
        self,
        settings: Settings,
        clock: Clock = utcnow,
        free_ports: bool = False,
        workers: int = 0,
    ) -> None:
        self.settings = settings
        use_settings(settings)
        self.clock = clock
        self.workers = workers
        self._mp = multiprocessing.get_context("spawn")
        self.stop_event: Any = self._mp.Event() if workers else threading.Event()
        self.wake: Any = self._mp.Event() if workers else threading.Event()
        self.send: Any = self._mp.Event() if workers else threading.Event()
        self._processes: list[Any] = []
        # Mails arriving together are kept in one commit; the worker is woken after each.
        self.storer = spool.GroupStore(on_stored=self.wake.set)
        # The sender's record of outcomes (outbound.sent_record), on SQLite, when this
        # process sends.
        self.record: SentRecord | None = None
        self.listener = Listener(
            settings,
            judge_recipients(settings.judge.address, self._is_list),
            store=self._store,
            free_ports=free_ports,
        )
        self.poller = ImapPoller(settings.imap, store=self._store) if settings.imap.host else None
        # Bound now, so that a web port in use stops the start like an SMTP port in use.
        self.web_socket = web_server.bind(settings.web, free_ports) if settings.web.port else None
        self.sender = SmtpSender.from_settings(
            settings.outbound, settings.judge.address, settings.dkim
        )
        self.retry = RetryPolicy.from_settings(settings.outbound)
        self.scheduler = schedule.Scheduler()
        if not workers:
            self.scheduler.every(5).seconds.do(self._flush_outbox)
        self.scheduler.every(10).seconds.do(self.clock_tick)
        self.scheduler.every().day.do(self.prune)
        self._threads: list[threading.Thread] = []

    def _is_list(self, address: str) -> bool:
        """A country list the judge runs (checked in a thread: it reads the database)."""
        return list_target(address, self.settings.judge.address) is not None

    def _store(self, raw: bytes, envelope_from: str, envelope_to: list[str], source: str) -> Any:
        return self.storer.store(raw, envelope_from, envelope_to, source)

    def start(self) -> None:
        db.connect(self.settings.database.url)
        migrations.upgrade()
        # On SQLite mails land in a file of their own first (inbound.landing), and the
        # workers move them on: the listener's 250 never waits for a worker's batch.
        self.storer.landing = Landing.beside_database()
        if not self.workers:  # the sender process keeps its own otherwise
            self.record = SentRecord.beside_database()
        self.storer.start()
        self.listener.start()
        if self.workers:
            for n in range(self.workers):
                self._start_process(f"worker-{n}", _worker_process, self.wake, self.send)
            self._start_process("sender", _sender_process, self.send)
            self._spawn("clock", self._clock_loop)
        else:
            self._spawn("worker", self._work)
        if self.web_socket is not None:
            if self.workers:
                self._start_process("web", web_server.web_process, self.web_socket)
            else:
                sock = self.web_socket
                self._spawn("web", lambda: web_server.serve(sock, self.stop_event))
        if self.poller is not None:
            self._spawn("imap", lambda: self.poller.run(self.stop_event))  # type: ignore[union-attr]
        log.info(
            "mailjudge serving %s: SMTP %s:%s%s",
            self.settings.judge.address,
            self.settings.smtp.host,
            self.listener.smtp_port,
            f", LMTP {self.listener.lmtp_port}" if self.listener.lmtp_port else "",
        )
        if self.web_port:
            log.info("mailjudge web pages on http://%s:%s/", self.settings.web.host, self.web_port)

    @property
    def web_port(self) -> int:
        """The port the pages are served on (0: not served)."""
        return int(self.web_socket.getsockname()[1]) if self.web_socket is not None else 0

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=f"mailjudge-{name}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _start_process(self, name: str, target: Callable[..., None], *events: Any) -> None:
        process = self._mp.Process(
            target=target,
            args=(self.settings, *events, self.stop_event),
            name=f"mailjudge-{name}",
            daemon=True,
        )
        process.start()
        self._processes.append(process)

    def _clock_loop(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.scheduler.run_pending()
            except Exception:
                log.exception("clock round failed; trying again")
            self.stop_event.wait(timeout=1.0)

    def stop(self) -> None:
        """Stop cleanly: new mail is turned away (421), the mail being answered and the
        mail being sent are finished, then everything ends."""
        self.listener.close_doors()
        self.stop_event.set()
        self.wake.set()
        self.send.set()
        self.listener.stop()
        for thread in self._threads:
            thread.join(timeout=10)
        self.storer.stop()  # after the listener and the IMAP poller: nothing more comes
        if self.storer.landing is not None:
            self.storer.landing.close()
            self.storer.landing = None
        if self.record is not None:
            self.record.close()
            self.record = None
        for process in self._processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
        if self.web_socket is not None:
            self.web_socket.close()
        db.close()

    def handle(self, row: InboundMessage, prepared: Any = None) -> None:
        pipeline.handle(row, self.settings, self.clock(), prepared=prepared)

    def prepare(self, row: InboundMessage) -> Any:
        return pipeline.prepare(row, self.settings)

    def work_once(self) -> int:
        """Answer every stored mail and send what is queued; returns mails answered."""
        done = spool.process_pending(
            self.handle, prepare=self.prepare, stopping=self.stop_event.is_set,
            landing=self.storer.landing, **claim_limits(self.settings),
        )  # fmt: skip
        self._flush_outbox()
        return done

    def _flush_outbox(self) -> None:
        flush(self.sender, self.clock(), retry=self.retry, record=self.record)

    def clock_tick(self) -> None:
        """What the clock decides: deadlines, reminders, grace (see service.deadlines)."""
        with db.database_proxy.atomic():
            for item in deadlines.tick(self.clock()):
                pipeline.queue_outgoing(item, self.settings, self.clock())
        self.send.set()

    def prune(self) -> None:
        """Once a day: sent mail past outbound.keep_sent_days keeps its headers only."""
        days = self.settings.outbound.keep_sent_days
        pruned = prune_sent(self.clock() - timedelta(days=days))
        log.info("pruned %s sent mails older than %s days", pruned, days)
        with db.database_proxy.atomic():
            forgot = guard.prune_counters(self.clock())
        log.info("forgot %s rate counters past their windows", forgot)

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
        """Serve until SIGTERM (systemd's stop) or SIGINT (Ctrl-C), then stop cleanly."""
        received: list[str] = []

        def on_signal(signum: int, frame: object) -> None:
            received.append(signal.Signals(signum).name)

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            while not received and not self.stop_event.is_set():
                time.sleep(0.2)
        finally:
            self.stop()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        log.info("mailjudge stopped (%s): every mail accepted is answered or kept for the "
                 "next start", received[0] if received else "stop requested")  # fmt: skip

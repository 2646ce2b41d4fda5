"""`mailjudge serve`: the listeners, the IMAP poller, the worker and the clock, together.

Mail is accepted by the SMTP/LMTP listener (or read by the IMAP poller) and only stored; a
worker thread takes stored mail one by one (spool.process_pending), answers it, and sends
the outbox. A `schedule` scheduler drives what happens by the clock: game deadlines and
reminders, and retries of mail the relay refused.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from multiprocessing import resource_tracker
from typing import Any

import schedule

from mailjudge.app import alerts, orphan, pipeline
from mailjudge.app.caps import queue_within_caps
from mailjudge.app.doorbell import Doorbell
from mailjudge.app.write_turns import SenderTurns, WorkerTurns, WriteTurns
from mailjudge.config.logs import setup_logging
from mailjudge.config.settings import Settings, use_settings
from mailjudge.game import guard
from mailjudge.inbound import group_store, spool
from mailjudge.inbound.imap import ImapPoller
from mailjudge.inbound.landing import Landing
from mailjudge.inbound.smtp import Listener, judge_recipients
from mailjudge.outbound.connections import RelayConnections
from mailjudge.outbound.outbox import flush, prune_sent
from mailjudge.outbound.retry import RetryPolicy
from mailjudge.outbound.sent_record import SentRecord
from mailjudge.service import deadlines
from mailjudge.service import outages as judge_outages
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, utcnow
from mailjudge.store.outages import Outages, probe, transient
from mailjudge.tools import migrations
from mailjudge.variants import list_target
from mailjudge.web import server as web_server

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def claim_limits(settings: Settings) -> dict[str, Any]:
    """inbound.claim_timeout_seconds and inbound.max_attempts, as process_pending takes them."""
    return {
        "stale_after": timedelta(seconds=settings.inbound.claim_timeout_seconds),
        "max_attempts": settings.inbound.max_attempts,
    }


# How long a stop may take before the processes still running are killed: the judge
# exits within seconds of SIGTERM or SIGINT whatever holds it up (a relay that does not
# answer, a child that died), under systemd's TimeoutStopSec.
STOP_SECONDS = 8.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _child_setup(
    settings: Settings, ready: Doorbell, parent: int, bell: Doorbell | None = None
) -> threading.Event:
    """In a worker, the sender or the web process: the judge's log format, marked with
    the process's role; SIGINT and SIGTERM (from the judge, or sent to the whole process
    group by Ctrl-C or systemd) set the event returned, and the process finishes what it
    holds and exits 0. The judge starts its children with those signals blocked, so that
    one arriving before this point waits for the handler instead of killing the child;
    ``ready`` tells the judge that the child has got this far (before it, a child holds
    nothing, and a stopping judge kills it instead of waiting for its imports)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()
        if bell is not None:
            bell.set()

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    # A judge killed outright (SIGKILL, the OOM killer) takes its children with it: each
    # is sent SIGTERM when its parent dies, and stops as it would at the judge's stop.
    # Without it they lived on, holding the web port and claiming mail nobody answered.
    orphan.die_with_parent(parent, signal.SIGTERM)
    ready.set()
    role = multiprocessing.current_process().name.removeprefix("mailjudge-")
    setup_logging(settings.logging, role)
    return stop


def outages_of(settings: Settings, role: str, stop: threading.Event | None = None) -> Outages:
    """The view of the database's outages of one part of the judge: an outage over is
    noted in the database (the clock moves the deadlines that fell in it), and one that
    lasts more than a minute is told to the operator once, by mail straight to the relay
    (the outbox is in the database)."""

    def note(began: datetime, ended: datetime, why: str) -> None:
        with db.database_proxy.atomic():
            judge_outages.record(began, ended, f"{role}: {why}")

    return Outages(role, on_over=note, stop=stop, on_long=alerts.outage_alert(settings, role))


def loop(
    outages: Outages, work: Callable[[], object], bell: Any, what: str, wait: float = 1.0
) -> None:
    """Run ``work`` round after round until ``outages.stop`` is set, through the
    database's outages; between rounds wait ``wait`` seconds for ``bell`` to ring. A
    round that fails otherwise is logged (a lock held too long in one line, anything
    else with its traceback) and the loop goes on."""
    while not outages.stop.is_set():
        try:
            outages.run(work)
        except Exception as err:
            if transient(err):
                log.warning("%s round waited too long for a lock (%s); trying again", what,
                            " ".join(str(err).split())[:200])  # fmt: skip
            else:
                log.exception("%s round failed; trying again", what)
        if not outages.down:
            bell.wait(timeout=wait)


def _worker_process(
    settings: Settings, wake: Doorbell, send: Doorbell, turns: WorkerTurns, ready: Doorbell,
    parent: int,
) -> None:  # fmt: skip
    """A worker in its own process: answer stored mail as it comes."""
    stop = _child_setup(settings, ready, parent, wake)
    use_settings(settings)
    # Connected by its first round: a database away when the worker starts is waited for.
    db.bind(settings.database.url)
    landing = Landing.beside_database()
    role = multiprocessing.current_process().name.removeprefix("mailjudge-")

    def handle(row: InboundMessage, prepared: Any = None) -> None:
        pipeline.handle(row, settings, prepared=prepared)

    def prepare(row: InboundMessage) -> Any:
        return pipeline.prepare(row, settings)

    def work() -> None:
        # A few batches at a time, the sender woken after each round: in a burst the
        # replies go out while more mail is answered, not after the queue is empty.
        while spool.process_pending(
            handle,
            limit=4 * spool.BATCH,
            prepare=prepare,
            stopping=stop.is_set,
            landing=landing,
            turns=turns,
            **claim_limits(settings),
        ):
            send.set()

    loop(outages_of(settings, role, stop), work, wake, "worker")
    if landing is not None:
        landing.close()
    db.close()


def _sender_process(
    settings: Settings, send: Doorbell, turns: SenderTurns, ready: Doorbell, parent: int
) -> None:
    """The outbound sender in its own process: its SMTP connections, kept open."""
    stop = _child_setup(settings, ready, parent, send)
    use_settings(settings)
    db.bind(settings.database.url)
    sender = RelayConnections.from_settings(
        settings.outbound, settings.judge.address, settings.dkim
    )
    retry = RetryPolicy.from_settings(settings.outbound)
    # On SQLite the sender notes each outcome in a file of its own (outbound.sent_record)
    # instead of waiting for the database's one write lock between two mails.
    record = SentRecord.beside_database()

    def work() -> None:
        flush(sender, retry=retry, record=record, stopping=stop.is_set, turn=turns)

    loop(outages_of(settings, "sender", stop), work, send, "sending")
    sender.close()
    if record is not None:
        record.close()
    db.close()


def _web_process(settings: Settings, sock: socket.socket, ready: Doorbell, parent: int) -> None:
    """The pages in a process of their own, stopped like the others."""
    web_server.web_process(settings, sock, _child_setup(settings, ready, parent))


class _Child:
    """A child process and the bell it rings once its signal handler is in place."""

    def __init__(self, process: Any, ready: Doorbell) -> None:
        self.process = process
        self._ready = ready
        self._seen_ready = False

    def is_ready(self) -> bool:
        self._seen_ready = self._seen_ready or self._ready.wait(0)
        return self._seen_ready

    def close(self) -> None:
        self._ready.close()


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
        # Only this process's threads wait on stop_event: the children are stopped by a
        # signal (see stop), and woken by doorbells, which hold no lock a dead child keeps.
        self.stop_event = threading.Event()
        self.wake = Doorbell(max(workers, 1))  # one bell for each worker
        self.send = Doorbell()
        # The sender asks the workers for SQLite's write lock through these.
        self.turns = WriteTurns(max(workers, 1))
        self._children: list[_Child] = []
        # Mails arriving together are kept in one commit; the worker is woken after each.
        # The listener's view of the database: a mail that cannot be stored is answered
        # 451 (its sender's server tries again later), the outage logged once.
        self.listener_outages = outages_of(settings, "listener")
        self.storer = group_store.GroupStore(on_stored=self.wake.set, outages=self.listener_outages)
        # The sender's record of outcomes (outbound.sent_record), on SQLite, when this
        # process sends.
        self.record: SentRecord | None = None
        self.listener = Listener(
            settings,
            judge_recipients(settings.judge.address, self._is_list),
            store=self._store,
            # Straight from the event loop to the storing thread: no pool thread between.
            store_async=self.storer.store_async,
            free_ports=free_ports,
        )
        self.poller = ImapPoller(settings.imap, store=self._store) if settings.imap.host else None
        # Bound now, so that a web port in use stops the start like an SMTP port in use.
        self.web_socket = web_server.bind(settings.web, free_ports) if settings.web.port else None
        self.sender = RelayConnections.from_settings(
            settings.outbound, settings.judge.address, settings.dkim
        )
        self.retry = RetryPolicy.from_settings(settings.outbound)
        self._flushing = threading.Lock()
        self.scheduler = schedule.Scheduler()
        if not workers:
            self.scheduler.every(5).seconds.do(self._flush_outbox)
        self.scheduler.every(10).seconds.do(self.clock_tick)
        self.scheduler.every(1).minutes.do(alerts.clock_job, settings, self.clock)
        self.scheduler.every().day.do(self.prune)
        self._threads: list[threading.Thread] = []

    def _is_list(self, address: str) -> bool:
        """A country list the judge runs (checked in a thread: it reads the database)."""
        judge = self.settings.judge.address
        return self.listener_outages.attempt(lambda: list_target(address, judge) is not None)

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
                wake = self.wake.listener(n)
                turns = self.turns.worker(n)
                self._start_process(f"worker-{n}", _worker_process, wake, self.send, turns)
            self._start_process("sender", _sender_process, self.send, self.turns.sender())
            self._spawn("clock", self._clock_loop)
        else:
            self._spawn("worker", self._work)
        if self.web_socket is not None:
            if self.workers:
                self._start_process("web", _web_process, self.web_socket)
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

    def child_pids(self) -> dict[str, int]:
        """The process ids of the judge's children by role (worker-0, sender, web), for
        the benchmarks' accounting of processor time."""
        return {
            child.process.name.removeprefix("mailjudge-"): int(child.process.pid)
            for child in self._children
            if child.process.pid is not None
        }

    @property
    def web_port(self) -> int:
        """The port the pages are served on (0: not served)."""
        return int(self.web_socket.getsockname()[1]) if self.web_socket is not None else 0

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=f"mailjudge-{name}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _start_process(self, name: str, target: Callable[..., None], *args: Any) -> None:
        ready = Doorbell()
        process = self._mp.Process(
            target=target,
            args=(self.settings, *args, ready, os.getpid()),
            name=f"mailjudge-{name}",
            daemon=True,
        )
        # The child inherits the blocked signals and unblocks them once its handler is in
        # place (_child_setup): a Ctrl-C during its start does not kill it half-way. The
        # resource tracker is started first, since starting it unblocks them.
        resource_tracker.ensure_running()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        self._children.append(_Child(process, ready))

    def _clock_loop(self) -> None:
        def work() -> None:
            probe()  # every second: an outage is known to within a second of its start
            self.scheduler.run_pending()

        loop(outages_of(self.settings, "clock", self.stop_event), work, self.stop_event,
             "clock")  # fmt: skip

    def stop(self) -> None:
        """Stop cleanly and within STOP_SECONDS: new mail is turned away (421), the mail
        being answered and the mail being sent are finished, then everything ends. The
        children are told by SIGTERM (they may have had it already from the process
        group, and may have died of it: nothing here waits on anything they hold), and
        one still running at the end of the time is killed; what it held is taken up
        again at the next start (its claim or lease runs out). A child still starting
        (importing: it holds nothing yet) is killed at once."""
        deadline = time.monotonic() + STOP_SECONDS

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        self.listener.close_doors(wait=left() / 2)
        self.stop_event.set()
        self.wake.set()
        self.send.set()
        for child in self._children:
            if child.is_ready():
                child.process.terminate()  # SIGTERM; nothing happens to one that has ended
            else:
                child.process.kill()
        self.listener.stop()
        for thread in self._threads:
            thread.join(timeout=left())
        self.storer.stop()  # after the listener and the IMAP poller: nothing more comes
        if self.storer.landing is not None:
            self.storer.landing.close()
            self.storer.landing = None
        if self.record is not None:
            self.record.close()
            self.record = None
        for child in self._children:
            child.process.join(timeout=left())
        for child in self._children:
            if child.process.is_alive():
                log.warning("%s did not stop in %s s; killed", child.process.name, STOP_SECONDS)
                child.process.kill()
                child.process.join(timeout=1.0)
            child.close()
        self._children.clear()
        self.wake.close()
        self.send.close()
        self.turns.close()
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
        # One flush at a time: work_once() may run in a thread of its own beside the
        # worker's, and the two would otherwise share the relay connection and the record.
        with self._flushing:
            flush(self.sender, self.clock(), retry=self.retry, record=self.record)

    def clock_tick(self) -> None:
        """What the clock decides: deadlines, reminders, grace (see service.deadlines)."""
        with db.database_proxy.atomic():
            # The beat is the machine's own time, whatever clock the games run on (a
            # test's fast one): a silence is time in which no judge was running.
            judge_outages.beat(utcnow())
            # Within each mailbox's hour's caps, as all the judge's mail (app/caps.py).
            queue_within_caps(deadlines.tick(self.clock()), self.settings, self.clock())
        self.send.set()

    def prune(self) -> None:
        """Once a day: sent mail past outbound.keep_sent_days keeps its headers only."""
        days = self.settings.outbound.keep_sent_days
        pruned = prune_sent(self.clock() - timedelta(days=days))
        log.info("pruned %s sent mails older than %s days", pruned, days)
        with db.database_proxy.atomic():
            forgot = guard.prune_counters(self.clock())
            judge_outages.forget_old(utcnow())
        log.info("forgot %s rate counters past their windows", forgot)

    def _work(self) -> None:
        def work() -> None:
            probe()  # as the clock's loop: an outage is known to within a second
            self.work_once()
            self.scheduler.run_pending()

        loop(outages_of(self.settings, "worker", self.stop_event), work, self.wake, "worker")

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

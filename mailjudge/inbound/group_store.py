"""The listener's way of keeping mail: a thread that stores the mails arriving together in
one commit (group commit), and answers each caller, a thread or a coroutine of the
listener's event loop, once the commit that kept its mail is over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable

from mailjudge.config.logs import log_fault
from mailjudge.inbound import spool
from mailjudge.inbound.landing import Landing
from mailjudge.store.models import InboundMessage, utcnow
from mailjudge.store.outages import DatabaseAway, Outages

log = logging.getLogger(__name__)


class GroupStore:
    """Stores mails for the SMTP and LMTP listener with group commit: the mails that
    arrive while a commit is under way share the next one, so a burst from many clients
    takes a write lock once per group instead of once per mail. Each mail's caller is
    answered only after the commit that kept it (so a 250 still means stored).

    With a ``landing`` (SQLite) the group is committed there, and the worker moves the
    landed mails into the spool before it claims (see inbound.landing and
    process_pending); without one (PostgreSQL, whose locks are per row) straight into
    the spool.

    ``store`` is called from the listener's threads; one thread of this object's own does
    the writing."""

    GROUP = 64  # the most mails one commit takes

    def __init__(
        self,
        on_stored: Callable[[], None] | None = None,
        landing: Landing | None = None,
        outages: Outages | None = None,
    ) -> None:
        self.on_stored = on_stored
        self.landing = landing
        # While the database (or the landing's disk) cannot be used, each group is
        # refused at once (451) and the database tried again at most once a backoff.
        self.outages = outages or Outages("listener")
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mailjudge-store", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
            self._thread = None

    def store(
        self, raw: bytes, envelope_from: str, envelope_to: list[str], source: str
    ) -> tuple[InboundMessage, bool]:
        if self._thread is None:  # not started (a test, a one-off): store it directly
            return spool.store(raw, envelope_from, envelope_to, source)
        pending = _Pending((raw, envelope_from, envelope_to, source), threading.Event())
        self._queue.put(pending)
        pending.wait()
        return pending.outcome()

    async def store_async(
        self, raw: bytes, envelope_from: str, envelope_to: list[str], source: str
    ) -> tuple[InboundMessage, bool]:
        """What ``store`` gives, for a caller on an event loop (the SMTP listener): the
        mail goes from the loop to the writing thread with no thread of the loop's pool
        in between, and the answers of a group come back to the loop in one call."""
        mail = (raw, envelope_from, envelope_to, source)
        if self._thread is None:
            return await asyncio.to_thread(spool.store, *mail)
        pending = _Pending(mail, asyncio.get_running_loop().create_future())
        self._queue.put(pending)
        await pending.wait_async()
        return pending.outcome()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            group = [first]
            while len(group) < self.GROUP:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                group.append(more)
            results = self._keep([p.mail for p in group])
            for pending, result in zip(group, results, strict=True):
                pending.result = result
            _answer(group)
            kept = any(not isinstance(result, BaseException) for result in results)
            if kept and self.on_stored is not None:
                self.on_stored()

    def _keep(
        self, mails: list[tuple[bytes, str, list[str], str]]
    ) -> list[tuple[InboundMessage, bool] | BaseException]:
        try:
            if self.landing is None:
                return self.outages.attempt(lambda: spool.store_group(mails))
            # The mails' identities are worked out here, in the listener's process, which
            # has time to spare, rather than by the busy worker that moves them on.
            identities = [spool.identity(m[0]) for m in mails]
            landing = self.landing
            numbers = self.outages.attempt(lambda: landing.land(mails, identities, utcnow()))
        except DatabaseAway as err:  # logged once by the outages, not once a mail
            return [err] * len(mails)
        except Exception as err:  # the commit failed: no mail of the group is kept
            what = f"{len(mails)} mails not stored, their senders told to try again later"
            log_fault(log, what, err)
            return [err] * len(mails)
        # Not in the spool yet, so no spool number; the SMTP answer says stored.
        return [(InboundMessage(), True) for _ in numbers]


class _Pending:
    """A mail on its way to a GroupStore's commit, and how its caller waits: a thread on
    an Event, a coroutine on a future of its event loop."""

    __slots__ = ("done", "mail", "result")

    def __init__(
        self,
        mail: tuple[bytes, str, list[str], str],
        done: threading.Event | asyncio.Future[None],
    ) -> None:
        self.mail = mail
        self.done = done
        self.result: tuple[InboundMessage, bool] | BaseException | None = None

    def wait(self) -> None:
        assert isinstance(self.done, threading.Event)
        self.done.wait()

    async def wait_async(self) -> None:
        assert isinstance(self.done, asyncio.Future)
        await self.done

    def outcome(self) -> tuple[InboundMessage, bool]:
        if isinstance(self.result, BaseException):
            raise self.result
        assert self.result is not None
        return self.result


def _answer(group: list[_Pending]) -> None:
    """Wake the callers of a group whose commit is over: threads each by their Event,
    coroutines by one call to each event loop for all of its mails (every call into a
    loop from another thread writes to the loop's wake-up pipe)."""
    loops: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
    for pending in group:
        if isinstance(pending.done, threading.Event):
            pending.done.set()
        else:
            loops.setdefault(pending.done.get_loop(), []).append(pending.done)
    for loop, futures in loops.items():
        # A loop closed meanwhile (its listener stopped): nobody is left to answer.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, futures)


def _settle(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():  # cancelled: its client went away before the answer
            future.set_result(None)

"""The database out of reach: telling it from other errors, and the judge's way through it.

A database restart, a failover, a session ended by the server, a network cut, a standby
that cannot write or a full disk is neither the mail's fault nor a bug. The work is left
as it is (mail stays queued, senders' servers are answered 4xx and try again later), tried
again once the database answers, and the log says once what is wrong and once when it is
over: never a line a loop.

Each part of the judge (the listener's storing thread, a worker, the sender, the clock,
the web) has an `Outages` of its own. Peewee's connections are per thread: a thread that
finds its connection gone drops it, and its next statement opens a new one.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

import psycopg

from mailjudge.store import db, session

log = logging.getLogger("mailjudge.store.outages")

T = TypeVar("T")

# PostgreSQL's error classes that say the server cannot be used now, not that the
# statement was wrong: connection exceptions, the server shutting down or starting, too
# few resources (a full disk, too many connections), the system's own failures.
_UNUSABLE_CLASSES = ("08", "53", "58", "57P")
# A write sent to a standby (after a failover the URL's first host may be read-only): the
# next connection finds the primary (target_session_attrs=read-write).
_READ_ONLY = "25006"
# SQLite's words for a file it cannot write or read now ("database is locked" is not
# here: another writer holds the lock, and waiting for it is the usual business).
_SQLITE_UNUSABLE = (
    "database or disk is full",
    "disk i/o error",
    "unable to open database file",
    "attempt to write a readonly database",
    "no transaction is active",  # SQLite rolled back by itself after one of the above
)
# Waits between two tries while the database is away: short at first (a restart takes
# seconds), then every few seconds, so that the judge is back within seconds of it.
BACKOFF = (0.25, 0.5, 1.0, 2.0, 3.0)


class DatabaseAway(RuntimeError):
    """The database cannot be used now; the message says why, in one line."""


def unusable(err: BaseException) -> str | None:
    """Why the database cannot be used now, in one line, when ``err`` (or an error it
    wraps) says so; None for every other error (a bug, a constraint, a deadlock, a lock
    held by another writer)."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        reason = _reason(current)
        if reason is not None:
            return reason
        wrapped = [a for a in current.args if isinstance(a, BaseException)]
        current = wrapped[0] if wrapped else (current.__cause__ or current.__context__)
    return None


def _reason(err: BaseException) -> str | None:
    text = " ".join(str(err).split())[:300]
    if isinstance(err, DatabaseAway):
        return str(err)
    if isinstance(err, psycopg.InterfaceError):
        return f"the connection to PostgreSQL is gone ({text})"
    if isinstance(err, psycopg.Error):
        code = err.sqlstate or ""
        if code == _READ_ONLY:
            return f"PostgreSQL is read-only here, a standby ({text})"
        if isinstance(err, psycopg.OperationalError) and (
            not code or code.startswith(_UNUSABLE_CLASSES)
        ):
            return f"PostgreSQL cannot be used ({text or 'no connection'})"
        return None
    if isinstance(err, sqlite3.OperationalError | sqlite3.DatabaseError):
        lowered = text.lower()
        if any(words in lowered for words in _SQLITE_UNUSABLE):
            return f"SQLite cannot be used ({text})"
        return None
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EROFS, errno.EIO):
        return f"the disk cannot be written ({text})"
    return None


def refused_write(err: BaseException) -> str | None:
    """The database's refusal of a write, in one line, when ``err`` (or an error it wraps)
    is one: PostgreSQL read-only (a standby, or a read-only session), SQLite's query_only.
    To the web pages, which only read, that is a bug of the page, not an outage."""
    current: BaseException | None = err
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = " ".join(str(current).split())[:300]
        if isinstance(current, psycopg.Error) and current.sqlstate == _READ_ONLY:
            return text
        if isinstance(current, sqlite3.OperationalError) and "readonly database" in text:
            return text
        wrapped = [a for a in current.args if isinstance(a, BaseException)]
        current = wrapped[0] if wrapped else (current.__cause__ or current.__context__)
    return None


def transient(err: BaseException) -> bool:
    """A deadlock, a serialization failure or a lock held too long by another writer: the
    same work goes through when it is tried again."""
    text = str(err).lower()
    return any(word in text for word in ("deadlock", "could not serialize", "locked"))


# Room a SQLite database's disk must have before an outage is over: a full disk still
# answers reads, so a read alone called the outage over at once, the next write failed
# again, and the log had two lines a part every half second for as long as it was full.
ROOM_NEEDED = 1 << 20


def probe(room: bool = False) -> None:
    """One cheap statement: raises when the database cannot be used. With ``room``, on
    SQLite, also when its disk has less than ROOM_NEEDED free (an outage is not over while
    the disk that caused it is still full)."""
    session.probe(db.database_proxy)
    path = db.sqlite_file()
    if room and path is not None:
        disk = os.statvfs(path.parent)
        free = disk.f_bavail * disk.f_frsize
        if free < ROOM_NEEDED:
            raise DatabaseAway(f"the disk of {path} is full ({free} bytes free)")


OnOver = Callable[[datetime, datetime, str], None]


class Outages:
    """One part's view of the database, through its outages.

    Two ways to do work through it:

    - ``run(work)``, for a loop (a worker, the sender, the clock): when the round fails
      because the database cannot be used, None comes back, and the next round first
      waits a little (``BACKOFF``, cut short by ``stop``) and checks that the database
      answers before anything else runs;
    - ``attempt(work)``, for whoever answers someone now (the SMTP listener, the web):
      it never waits, and raises `DatabaseAway` while the database is away, trying it
      at most once a backoff; after a first failure it tries once more at once, on a new
      connection (one lost while idle, the server restarted meanwhile).

    When an outage is over, ``on_over(began, ended, why)`` is told, before any other work
    runs (the clock must know of an outage before it handles a deadline that fell in it);
    an outage longer than ``long_after`` seconds is told to ``on_long`` once. Every error
    that is not the database's is the work's own and goes up as it came. Thread-safe: the
    web's and the listener's threads may share one."""

    def __init__(
        self,
        role: str,
        on_over: OnOver | None = None,
        stop: threading.Event | None = None,
        on_long: Callable[[str, float], None] | None = None,
        long_after: float = 60.0,
    ) -> None:
        self.role = role
        self.on_over = on_over
        self.stop = stop or threading.Event()
        self.on_long = on_long
        self.long_after = long_after
        self._lock = threading.Lock()
        self.began: datetime | None = None  # when the outage began (for the record)
        self._since = 0.0  # the same, monotonic (for its length)
        self._next_try = 0.0
        self._tries = 0
        self.reason = ""
        self._told_long = False

    @property
    def down(self) -> bool:
        return self.began is not None

    # -- the two ways in ------------------------------------------------------------------

    def run(self, work: Callable[[], T]) -> T | None:
        if self.down:
            self.stop.wait(max(0.0, self._next_try - time.monotonic()))
            if not self._answers():
                return None
        try:
            return work()
        except Exception as err:
            self._note(err)
            return None

    def attempt(self, work: Callable[[], T]) -> T:
        if self.down and (self.resting() or not self._answers()):
            raise DatabaseAway(self.reason)
        # A first failure is tried once more at once, on a new connection: the one used
        # may have been lost while idle (the server restarted meanwhile).
        for again in (True, False):
            was_down = self.down
            try:
                result = work()
            except Exception as err:
                reason = self._note(err)
                if not (again and not was_down):
                    raise DatabaseAway(reason) from None
                continue
            if self.down:
                self.over()
            return result
        raise AssertionError("unreachable")

    def _note(self, err: Exception) -> str:
        """``err`` is the database's (noted: the outage begins) or raised again."""
        reason = unusable(err)
        if reason is None:
            raise err
        self.failed(reason)
        return reason

    def resting(self) -> bool:
        """Down, and not to be tried again yet: callers answer at once that it is away."""
        return self.down and time.monotonic() < self._next_try

    # -- what happens -----------------------------------------------------------------------

    def failed(self, reason: str) -> None:
        """The database was found unusable (by ``run`` or ``attempt``, or by a caller that
        caught the error itself): noted once, and this thread's connection dropped."""
        db.forget_connection()
        with self._lock:
            now = time.monotonic()
            self._next_try = now + BACKOFF[min(self._tries, len(BACKOFF) - 1)]
            self._tries += 1
            if self.began is not None:
                self._tell_if_long(reason, now - self._since)
                return
            self.began = datetime.now(UTC)
            self._since = now
            self.reason = reason
            self._told_long = False
        log.warning("%s: the database cannot be used: %s; mail waits (senders are asked to "
                    "try again later) and the judge tries again every few seconds",
                    self.role, reason)  # fmt: skip

    def _answers(self) -> bool:
        """Whether the database answers now; when it does, the outage is over."""
        try:
            probe(room=True)
        except Exception as err:
            reason = unusable(err)
            if reason is None:
                raise
            self.failed(reason)
            return False
        self.over()
        return not self.down

    def over(self) -> None:
        """The database answered (a caller's own work went through): an outage is over."""
        with self._lock:
            began, length, reason = self.began, time.monotonic() - self._since, self.reason
            self.began, self._tries, self._next_try = None, 0, 0.0
        if began is None:
            return
        log.warning("%s: the database answers again after %.1f s", self.role, length)
        if self.on_over is not None:
            on_over = self.on_over
            self.run(lambda: on_over(began, datetime.now(UTC), reason))

    def _tell_if_long(self, reason: str, length: float) -> None:
        if self._told_long or length < self.long_after:
            return
        self._told_long = True
        log.error("%s: the database has been away for %.0f s: %s", self.role, length, reason)
        if self.on_long is not None:
            try:
                self.on_long(reason, length)
            except Exception:
                log.exception("%s: could not tell the operator", self.role)

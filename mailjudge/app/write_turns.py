"""SQLite's one write lock handed from the workers to the sender when the sender asks.

In a burst a worker answers batch after batch, and between two of them it holds the lock
again within microseconds (it moves the landed mails, claims the next batch). The
sender, asking every few milliseconds for the lock to claim replies, then seldom finds
it free: measured, it sent 400 replies a second while the worker answered 1,800, and
the replies went out after the burst instead of during it. So a sender that finds the
lock taken rings the workers' bell; a worker, between two batches (holding nothing),
answers by ringing the sender's and waits until the sender says its claim is committed,
or a few milliseconds at most, so that a sender that died costs nothing. Meanwhile the
worker does what needs no lock: it reads the mails of its next batch.

The bells are datagram sockets (`Doorbell`): no process ever waits for a lock another
process might die holding. A ring that comes too late only costs one early retry.
"""

from __future__ import annotations

import time

from mailjudge.app.doorbell import Doorbell

# Longest a worker waits for the sender's claim to be committed after letting it go
# first: a claim is one short transaction (a millisecond or two in a burst).
MOST_WAIT = 0.02


class WriteTurns:
    """The three bells between the sender and ``workers`` workers."""

    def __init__(self, workers: int, most_wait: float = MOST_WAIT) -> None:
        self.most_wait = most_wait
        self.asked = Doorbell(workers)  # the sender wants the lock (to each worker)
        self.given = Doorbell()  # a worker lets it go (to the sender)
        self.done = Doorbell(workers)  # the sender's write is committed (to each worker)

    def worker(self, n: int) -> WorkerTurns:
        return WorkerTurns(
            self.asked.listener(n), self.given, self.done.listener(n), self.most_wait
        )

    def sender(self) -> SenderTurns:
        return SenderTurns(self.asked, self.given, self.done)

    def close(self) -> None:
        for bell in (self.asked, self.given, self.done):
            bell.close()


class WorkerTurns:
    """A worker's side, as `spool.process_pending` uses it (`db.GivingTurn`): between two
    batches, ``let_go`` (the sender may take the lock now), then the batch's work that
    needs no lock, then ``wait_turn_over`` before its transaction."""

    def __init__(
        self, asked: Doorbell, given: Doorbell, done: Doorbell, most_wait: float = MOST_WAIT
    ) -> None:
        self.asked, self.given, self.done = asked, given, done
        self.most_wait = most_wait
        self.given_way = 0  # how often the sender went first (tests and curiosity)
        self._until = 0.0  # when this worker stops waiting for the sender's "done"

    def let_go(self) -> bool:
        """True when the sender asked for the lock: it is told to go ahead."""
        if not self.asked.wait(0):
            return False
        self.done.wait(0)  # a late "done" of an earlier turn is not this one's
        self.given.set()
        self.given_way += 1
        self._until = time.monotonic() + self.most_wait
        return True

    def wait_turn_over(self) -> None:
        """Back when the sender's write is committed, or ``most_wait`` after ``let_go``."""
        self.done.wait(max(self._until - time.monotonic(), 0.0))

    def give_way(self) -> None:
        """Both at once: the sender goes first, if it asked."""
        if self.let_go():
            self.wait_turn_over()


class SenderTurns:
    """The sender's side, as `db.prompt_write` uses it (`db.WriteTurn`)."""

    def __init__(self, asked: Doorbell, given: Doorbell, done: Doorbell) -> None:
        self.asked, self.given, self.done = asked, given, done

    def wait_for_turn(self, pause: float) -> None:
        """Ask the workers for the lock; back when one let it go, or after ``pause``."""
        self.asked.set()
        self.given.wait(pause)

    def turn_over(self) -> None:
        """The write the sender asked for is committed (or given up)."""
        self.done.set()

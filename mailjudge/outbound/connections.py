"""Several SMTP connections to the relay at once, as a mail server keeps several open to a
busy destination.

One connection hands over a mail in four round trips (MAIL, RCPT, DATA, the text), and
between them the sender only waits for the relay's answer. With a few connections, each
in a thread of its own, one mail's wait is another's turn: in a burst of replies the
sender then goes as fast as the relay takes mail, not as fast as one conversation goes.

Mails that share a recipient go over one connection, in the order they were claimed, so
that nobody's mails overtake each other on the way to the relay.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from mailjudge.config.settings import DkimSettings, OutboundSettings
from mailjudge.outbound.local_mbox import MboxSender
from mailjudge.outbound.send import Handed, SmtpSender

Item = TypeVar("Item")
Result = TypeVar("Result")


class Connection(Protocol):
    """One way out for the judge's mail: an SMTP connection, or the local mbox."""

    envelope_from: str

    def send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None = None) -> Handed:
        """Hand over one mail (outbound.send.Sender)."""
        ...

    def close(self) -> None:
        """Let go of what is held open."""
        ...


def connection_from_settings(
    settings: OutboundSettings, envelope_from: str, dkim: DkimSettings | None = None
) -> Connection:
    """The mbox of outbound.mbox when it is set, else an SMTP connection to the relay."""
    if settings.mbox:
        return MboxSender(Path(settings.mbox), envelope_from)
    return SmtpSender.from_settings(settings, envelope_from, dkim)


class RelayConnections:
    """SMTP connections to one relay. ``send`` uses the first, as a single sender would;
    ``each`` spreads a batch over all of them."""

    def __init__(self, senders: Sequence[Connection]) -> None:
        if not senders:
            raise ValueError("at least one connection is needed")
        self.senders = list(senders)
        self.envelope_from = self.senders[0].envelope_from
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @classmethod
    def from_settings(
        cls, settings: OutboundSettings, envelope_from: str, dkim: DkimSettings | None = None
    ) -> RelayConnections:
        # One file is written one mail at a time: the mbox needs a single connection.
        count = 1 if settings.mbox else settings.connections
        return cls([connection_from_settings(settings, envelope_from, dkim) for _ in range(count)])

    def send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None = None) -> Handed:
        return self.senders[0].send(raw, to_addrs, envelope_from)

    def each(
        self,
        items: Sequence[Item],
        recipients: Callable[[Item], Sequence[str]],
        work: Callable[[Connection, Item], Result],
    ) -> Iterator[tuple[Item, Result]]:
        """``work(connection, item)`` for every item, items sharing a recipient on one
        connection in their order; each result as soon as it is done (the caller records
        it while the others are still being sent). An error in one connection's share
        stops that share (its items stay claimed until their lease runs out, as when a
        sender dies) and is raised once every other share's results are out."""
        shares = spread(items, recipients, len(self.senders))
        if len(shares) <= 1:
            for lane, share in shares:
                for item in share:
                    yield item, work(self.senders[lane], item)
            return
        done: queue.SimpleQueue[tuple[Item, Result] | BaseException | None] = queue.SimpleQueue()

        def run(lane: int, share: list[Item]) -> None:
            try:
                for item in share:
                    done.put((item, work(self.senders[lane], item)))
            except BaseException as exc:  # handed to the caller's thread, raised there
                done.put(exc)
            finally:
                done.put(None)

        pool = self._threads()
        for lane, share in shares:
            pool.submit(run, lane, share)
        running, failure = len(shares), None
        while running:
            got = done.get()
            if got is None:
                running -= 1
            elif isinstance(got, BaseException):
                failure = failure or got
            else:
                yield got
        if failure is not None:
            raise failure

    def _threads(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(len(self.senders), thread_name_prefix="relay")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        for sender in self.senders:
            sender.close()

    def __enter__(self) -> RelayConnections:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def spread(
    items: Sequence[Item], recipients: Callable[[Item], Sequence[str]], lanes: int
) -> list[tuple[int, list[Item]]]:
    """Items shared out over ``lanes`` connections: items with a recipient in common (the
    same address in any case) in one share, in their order; the shares' sizes as even as
    whole groups allow. Only the lanes given something are listed."""
    parent: dict[Hashable, Hashable] = {}

    def root(node: Hashable) -> Hashable:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for index, item in enumerate(items):
        parent[index] = index
        for address in recipients(item):
            key = ("to", address.lower())
            if key not in parent:
                parent[key] = index
            else:
                parent[root(key)] = root(index)
    groups: dict[Hashable, list[int]] = {}
    for index in range(len(items)):
        groups.setdefault(root(index), []).append(index)
    loads = [0] * lanes
    shares: dict[int, list[int]] = {}
    # The largest group first, each to the lane with least so far.
    for group in sorted(groups.values(), key=len, reverse=True):
        lane = loads.index(min(loads))
        loads[lane] += len(group)
        shares.setdefault(lane, []).extend(group)
    # Within a share, the items keep their claimed order.
    return [(lane, [items[n] for n in sorted(share)]) for lane, share in sorted(shares.items())]

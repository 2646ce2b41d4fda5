"""A database server at a distance, for the benches: a TCP relay, in a process of its own,
that hands each chunk on ``delay`` seconds after it came, both ways, in order.

Judges on several machines share one PostgreSQL across a network, where each round trip
costs a few hundred microseconds instead of loopback's thirty: what a statement fewer a
mail is worth there shows only with the distance put back.
"""

from __future__ import annotations

import multiprocessing
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mailjudge.demo.sink import free_port


@contextmanager
def at_a_distance(url: str, delay: float) -> Iterator[str]:
    """``url`` (postgresql://...), reached through a relay that delays each way by
    ``delay`` seconds: the URL to use instead, while the block runs. No delay: ``url``."""
    if not delay:
        yield url
        return
    if not url.startswith("postgres"):
        raise ValueError("--db-delay-us is for PostgreSQL: SQLite is in the judge's process")
    parts = urlsplit(url)
    port = free_port()
    ready = multiprocessing.Event()
    relay = multiprocessing.Process(
        target=_relay_process,
        args=(port, parts.hostname or "127.0.0.1", parts.port or 5432, delay, ready),
        daemon=True,
    )
    relay.start()
    try:
        if not ready.wait(10):
            raise RuntimeError("the database relay did not start")
        user = f"{parts.username}@" if parts.username else ""
        yield urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))
    finally:
        relay.terminate()
        relay.join(5)


def _relay_process(port: int, host: str, target: int, delay: float, ready: Any) -> None:
    listener = socket.create_server(("127.0.0.1", port))
    ready.set()
    while True:
        near, _ = listener.accept()
        far = socket.create_connection((host, target))
        for end in (near, far):  # each chunk goes as it is handed on, as libpq's own do
            end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for source, sink in ((near, far), (far, near)):
            threading.Thread(target=_carry, args=(source, sink, delay), daemon=True).start()


def _carry(source: socket.socket, sink: socket.socket, delay: float) -> None:
    """Each chunk from ``source`` written to ``sink`` ``delay`` seconds after it was read.
    One thread a way: the server and its client speak in turns, so a chunk rarely waits
    behind another. (An event loop's timers round up to a millisecond; a thread's sleep
    does not.)"""
    with suppress(OSError):
        while chunk := source.recv(65536):
            time.sleep(delay)
            sink.sendall(chunk)
    with suppress(OSError):
        sink.shutdown(socket.SHUT_WR)

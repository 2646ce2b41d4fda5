"""A database server at a distance, for the benches: a TCP relay, in a process of its own,
that hands each chunk on ``delay`` seconds after it came, both ways, in order.

Judges on several machines share one PostgreSQL across a network, where each round trip
costs a few hundred microseconds instead of loopback's thirty: what a statement fewer a
mail is worth there shows only with the distance put back.
"""

from __future__ import annotations

import asyncio
import multiprocessing
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
    asyncio.run(_relay(port, host, target, delay, ready))


async def _relay(port: int, host: str, target: int, delay: float, ready: Any) -> None:
    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        far_reader, far_writer = await asyncio.open_connection(host, target)
        await asyncio.gather(
            _carry(reader, far_writer, delay), _carry(far_reader, writer, delay),
            return_exceptions=True,
        )  # fmt: skip

    server = await asyncio.start_server(connected, "127.0.0.1", port)
    ready.set()
    async with server:
        await server.serve_forever()


async def _carry(source: asyncio.StreamReader, sink: asyncio.StreamWriter, delay: float) -> None:
    """Each chunk from ``source`` written to ``sink`` ``delay`` after it came, in order."""
    due: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def hand_on() -> None:
        while True:
            when, chunk = await due.get()
            if not chunk:
                break
            wait = when - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            sink.write(chunk)
            await sink.drain()
        sink.close()

    handing = asyncio.ensure_future(hand_on())
    with suppress(ConnectionError):
        while chunk := await source.read(65536):
            due.put_nowait((time.monotonic() + delay, chunk))
    due.put_nowait((0.0, b""))
    await handing

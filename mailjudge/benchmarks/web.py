"""`mailjudge bench web`: requests per second of the public pages, served by one uvicorn
worker as `mailjudge web` serves them.

A seeded game of random orders is played for --phases phases into a fresh SQLite database
(not counted); the site is then started in a process of its own, and --clients threads of
this process fetch one page over and over on keep-alive connections for --seconds. The
figures: requests per second and the median and 95th percentile time of one request, for
the game page and for a phase page (board with orders, and the results). Then the Atom
feed is fetched at --busting distinct URLs (``?bust=N``: a cache-busting visitor): the time
of one such request and how much the server process grew (its resident memory).
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from mailjudge.benchmarks.random_game import play_random
from mailjudge.config.settings import WebSettings
from mailjudge.game.state import game_map, get_game
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store import db
from mailjudge.store.models import utcnow
from mailjudge.tools import migrations

GAME = "bench"


def play(database: Path, phases: int, seed: int) -> list[str]:
    """A game of random orders; the phases it played."""
    db.connect(f"sqlite:///{database}")
    migrations.upgrade()
    rng = random.Random(seed)
    game = create_game(GAME, "gm@bench.test", "gm-pw", rules="POWER_CHOICE")
    for power in game_map(game).power_names:
        join(game, f"{power.lower()}@bench.test", "pw", power=power)
    if get_game(GAME).state != "active":
        start_game(get_game(GAME), rng, now=utcnow())
    played = play_random(GAME, phases, rng)
    db.close()
    return played


def _serve(database: Path, port: int, stop: Any, cache_seconds: float) -> None:
    from mailjudge.web.server import bind, serve

    db.connect(f"sqlite:///{database}")
    sock = bind(WebSettings(host="127.0.0.1", port=port))
    serve(sock, stop, cache_seconds)


def _wait_up(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the site did not start")


def load(port: int, path: str, clients: int, seconds: float) -> dict[str, float]:
    times: list[list[float]] = [[] for _ in range(clients)]
    size = [0]
    stop_at = time.monotonic() + seconds

    def client(mine: list[float]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop_at:
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            mine.append(time.perf_counter() - start)
            if response.status != 200:
                raise RuntimeError(f"{path}: {response.status}")
            size[0] = len(body)
        conn.close()

    threads = [threading.Thread(target=client, args=(t,)) for t in times]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    every = sorted(t for ts in times for t in ts)
    return {
        "requests": len(every),
        "per_second": len(every) / elapsed,
        "median_ms": statistics.median(every) * 1000,
        "p95_ms": every[int(len(every) * 0.95)] * 1000,
        "bytes": size[0],
    }


def _rss_mb(pid: int | None) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def bust(port: int, path: str, urls: int, pid: int | None) -> dict[str, float]:
    """``path?bust=0`` ... ``path?bust=urls-1``, one after the other."""
    before = _rss_mb(pid)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for n in range(urls):
        start = time.perf_counter()
        conn.request("GET", f"{path}?bust={n}")
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status}")
    conn.close()
    return {
        "first_ms": times[0] * 1000,
        "median_ms": statistics.median(times) * 1000,
        "rss_before": before,
        "rss_after": _rss_mb(pid),
    }


def measure_site(
    database: Path,
    pages: dict[str, str],
    clients: int,
    seconds: float,
    cache_seconds: float,
    busting: int = 0,
) -> None:
    mp = multiprocessing.get_context("spawn")
    stop = mp.Event()
    port = free_port()
    server = mp.Process(
        target=_serve, args=(database, port, stop, cache_seconds), daemon=True
    )  # fmt: skip
    server.start()
    try:
        _wait_up(port)
        for label, path in pages.items():
            load(port, path, clients, 1.0)  # warm: the board drawn once, caches full
            got = load(port, path, clients, seconds)
            print(f"  {label:<10} {path:<28} {got['per_second']:7.0f} requests/s  "
                  f"median {got['median_ms']:5.1f} ms  p95 {got['p95_ms']:5.1f} ms  "
                  f"{got['bytes'] / 1024:.0f} KB")  # fmt: skip
        if busting:
            got = bust(port, f"/games/{GAME}/feed.atom", busting, server.pid)
            print(f"  feed at {busting} distinct URLs: first {got['first_ms']:.0f} ms, median "
                  f"{got['median_ms']:.1f} ms; server {got['rss_before']:.0f} -> "
                  f"{got['rss_after']:.0f} MB")  # fmt: skip
    finally:
        stop.set()
        server.join(timeout=10)
        if server.is_alive():
            server.terminate()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench web", description=__doc__)
    ap.add_argument("--phases", type=int, default=20, help="phases played first (default 20)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients (default 4)")
    ap.add_argument("--seconds", type=float, default=8.0, help="time per page (default 8)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--busting", type=int, default=520,
                    help="distinct feed URLs fetched (default 520; 0: none)")  # fmt: skip
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-bench-web-"))
    database = folder / "judge.db"
    played = play(database, args.phases, args.seed)
    print(f"mailjudge bench web: one uvicorn worker, {args.clients} clients, "
          f"{args.seconds:g} s a page, a game of {len(played)} phases")  # fmt: skip
    pages = {"game page": f"/games/{GAME}", "phase page": f"/games/{GAME}/phases/{played[-1]}"}
    for cache_seconds, how in ((5.0, "as served"), (0.0, "built each time")):
        print(f" {how}:")
        measure_site(database, pages, args.clients, args.seconds, cache_seconds, args.busting)
    return 0

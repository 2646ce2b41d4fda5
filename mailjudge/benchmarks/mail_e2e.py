"""`mailjudge bench mail`: order mails per second through the whole judge.

A judge runs on loopback with SQLite; its outbound relay is a local aiosmtpd sink. Seven
players of one game (all with SET WAIT, so the phase never processes) send order mails over
SMTP from several client threads: SIGNON with the real password (scrypt, remembered after
the first check), three orders. A mail counts when its reply has reached the sink: accepted,
stored, processed, the reply queued and sent.
"""

from __future__ import annotations

import argparse
import asyncio
import smtplib
import statistics
import tempfile
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from mailjudge import db
from mailjudge.service import games, seats
from mailjudge.service.orders import current_position
from mailjudge.service.runner import Judge
from mailjudge.settings import load_settings

JUDGE = "judge@bench.test"


class _Sink:
    """Counts the judge's replies and when each arrived."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content = envelope.original_content or b""
        head = content.split(b"\r\n\r\n", 1)[0]
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"in-reply-to:"):
                with self.lock:
                    self.arrived[line.split(b":", 1)[1].strip().decode()] = time.perf_counter()
        return "250 OK"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(mails: int, clients: int, workers: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-bench-"))
    sink = _Sink()
    sink_port = _free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=sink_port)
    relay.start()
    settings = load_settings(
        None,
        {
            "MAILJUDGE_JUDGE_ADDRESS": JUDGE,
            "MAILJUDGE_DATABASE_URL": f"sqlite:///{folder / 'judge.db'}",
            "MAILJUDGE_OUTBOUND_PORT": str(sink_port),
            "MAILJUDGE_OUTBOUND_REPLY_LIMIT": "0",
        },
    )
    judge = Judge(settings, free_ports=True, workers=workers)
    judge.start()
    try:
        game = games.create_game("bench", "gm@bench.test", "gm-pw", rules="POWER_CHOICE")
        powers = list(games.game_map(game).power_names)
        for power in powers:
            seats.join(game, f"{power.lower()}@bench.test", f"pw-{power}", power=power)
        for power in powers:
            seats.set_wait(seats.seat_for_power(game, power), True)
        pos = current_position(games.get_game("bench"))
        bodies = {
            p: f"SIGNON {p.lower()}@bench pw-{p}\n" + "\n".join(f"{u} H" for u in pos.units_of(p))
            for p in powers
        }
        queue: list[tuple[str, bytes]] = []
        for n in range(mails):
            power = powers[n % len(powers)]
            msg = EmailMessage()
            msg["From"] = f"{power.lower()}@bench.test"
            msg["To"] = JUDGE
            msg["Subject"] = "orders"
            msg["Message-ID"] = make_msgid(domain="bench.test")
            msg.set_content(bodies[power])
            queue.append((str(msg["Message-ID"]), msg.as_bytes()))
        sent_at: dict[str, float] = {}
        port = judge.listener.smtp_port
        assert port is not None

        def client(share: list[tuple[str, bytes]]) -> None:
            with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
                for message_id, raw in share:
                    sent_at[message_id] = time.perf_counter()
                    smtp.sendmail("player@bench.test", [JUDGE], raw.replace(b"\n", b"\r\n"))

        start = time.perf_counter()
        threads = [
            threading.Thread(target=client, args=(queue[i::clients],)) for i in range(clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        accepted = time.perf_counter()
        deadline = time.monotonic() + 300
        while len(sink.arrived) < mails and time.monotonic() < deadline:
            time.sleep(0.01)
        done = max(sink.arrived.values()) if sink.arrived else time.perf_counter()
        latencies = [sink.arrived[m] - sent_at[m] for m in sink.arrived if m in sent_at]
        return {
            "mails": mails,
            "clients": clients,
            "answered": len(sink.arrived),
            "accepted_per_s": mails / (accepted - start),
            "end_to_end_per_s": len(sink.arrived) / (done - start),
            "median_latency_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        }
    finally:
        judge.stop()
        relay.stop()
        db.close()
        asyncio.set_event_loop(asyncio.new_event_loop())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench mail", description=__doc__)
    ap.add_argument("--mails", type=int, default=2000, help="order mails to send (default 2000)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent SMTP clients (default 4)")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="answering processes, plus one sending process (0: threads of one process)",
    )
    args = ap.parse_args(argv)
    result = run(args.mails, args.clients, args.workers)
    print(
        f"mailjudge bench mail: SQLite, password checks included, {args.clients} SMTP clients, "
        f"{args.workers} worker process(es) + 1 sender"
    )
    for key, value in result.items():
        print(f"  {key}: {value:.1f}" if isinstance(value, float) else f"  {key}: {value}")
    return 0 if result["answered"] == result["mails"] else 1

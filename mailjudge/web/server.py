"""Serving the site with uvicorn: beside the mail (mailjudge serve) or alone (mailjudge web).

The socket is bound by the caller, so that a port in use is an error at start and a test
can ask for a free port; uvicorn serves on it until ``stop`` is set.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

import uvicorn

from mailjudge.config.settings import Settings, WebSettings

log = logging.getLogger("mailjudge.web")


class WebPortInUse(OSError):
    """The web port is taken; the message says which and what to do."""


def bind(web: WebSettings, free_port: bool = False) -> socket.socket:
    family = socket.AF_INET6 if ":" in web.host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say
    # they are TCP, and the connections accepted here inherit it. Without it a page sent in
    # two writes (head, then body) waits 40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((web.host, 0 if free_port else web.port))
    except OSError as err:
        sock.close()
        raise WebPortInUse(
            f"cannot serve the web pages on {web.host}:{web.port} ({err.strerror}); "
            "set web.port (MAILJUDGE_WEB_PORT) to a free port, or 0 to turn the pages off"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(sock: socket.socket, stop: Any, cache_seconds: float = 5.0) -> None:
    """Serve the site on ``sock`` until the event ``stop`` is set (this thread blocks)."""
    from mailjudge.web.app import make_app

    config = uvicorn.Config(
        make_app(cache_seconds), log_level="warning", access_log=False, lifespan="off", http="h11",
        timeout_graceful_shutdown=5,
    )  # fmt: skip
    server = uvicorn.Server(config)

    def watch() -> None:
        stop.wait()
        server.should_exit = True

    threading.Thread(target=watch, name="mailjudge-web-stop", daemon=True).start()
    host, port = sock.getsockname()[:2]
    log.info("web pages on http://%s:%s/", host, port)
    server.run(sockets=[sock])


def web_process(settings: Settings, sock: socket.socket, stop: Any) -> None:
    """A process of its own for the pages (mailjudge serve --workers N)."""
    from mailjudge.config.logs import setup_logging
    from mailjudge.config.settings import use_settings
    from mailjudge.store import db

    use_settings(settings)
    setup_logging(settings.logging, "web")
    # Connected by the first page (a database away waits); read-only, as the pages are.
    db.bind(settings.database.url, read_only=True)
    try:
        serve(sock, stop)
    finally:
        db.close()

"""The pages while the database is away: 503, "briefly unavailable", not a 500 a request.

A page that fails because the database cannot be used (mailjudge.store.outages) is answered 503
with Retry-After, the outage logged once; while it lasts, requests are answered so at once
and the database tried again at most once a backoff. Monitors and load balancers read
the 503; people read a short page.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from mailjudge.store.outages import Outages, refused_write, unusable

log = logging.getLogger("mailjudge.web")

RETRY_AFTER = "30"
_PAGE = (
    b"<!doctype html><html lang=en><meta charset=utf-8>"
    b"<title>Briefly unavailable</title><h1>Briefly unavailable</h1>"
    b"<p>The judge cannot reach its database just now. Nothing is lost: try again in a "
    b"minute.</p></html>\n"
)


class WhileAway:
    """ASGI middleware answering 503 while the database is away."""

    def __init__(self, app: ASGIApp, outages: Outages | None = None) -> None:
        self.app = app
        self.outages = outages or Outages("web")
        self._refused_pages: set[str] = set()  # pages whose refused write was logged

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.outages.resting():
            await _unavailable(send)
            return
        try:
            await self.app(scope, receive, send)
        except Exception as err:
            refused = refused_write(err)
            if refused is not None:
                # The pages only read, on read-only connections (they may be reading a
                # standby): a page that tries to write is a bug, told once a page, and
                # answered 503 like an outage, without making one of it for the others.
                self._tell_refused(scope.get("path", ""), refused, err)
                await _unavailable(send)
                return
            reason = unusable(err)
            if reason is None:
                raise
            self.outages.failed(reason)
            await _unavailable(send)
            return
        if self.outages.down:
            self.outages.over()

    def _tell_refused(self, path: str, refused: str, err: Exception) -> None:
        if path in self._refused_pages or len(self._refused_pages) >= 100:
            return
        self._refused_pages.add(path)
        log.error("web: the page %s tried to write to the database, which refused it (%s); "
                  "the pages only read: this is a bug", path, refused, exc_info=err)  # fmt: skip


async def _unavailable(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"retry-after", RETRY_AFTER.encode()),
                (b"cache-control", b"no-store"),
                (b"content-length", str(len(_PAGE)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": _PAGE})

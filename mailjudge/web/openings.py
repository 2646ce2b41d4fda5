"""The openings on the web: /openings (a page) and /openings.atom (a feed), built from
game/openings.py's public view: the game, the power, its centres and units, the phase
and how to take it over; never who played it, an address, orders on file or press, and
no game the public may not see."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from urllib.parse import quote

from starlette.requests import Request

from mailjudge.engine.timing import show
from mailjudge.game.openings import last_change, public_openings
from mailjudge.render import render
from mailjudge.service.openings import recruiting
from mailjudge.web.cache import Page


def _page(body: str, changed: datetime | None, media_type: str) -> Page:
    tag = 'W/"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'
    return Page(body, changed, media_type, tag)


def _judge(request: Request) -> dict[str, str]:
    address = str(request.app.state.settings.judge.address)
    return {"address": address, "mailto": "mailto:" + quote(address, safe="@")}


def openings_page(request: Request) -> Page:
    body = render("web/openings.html.j2", openings=public_openings(), show=show,
                  judge=_judge(request), recruiting=recruiting())  # fmt: skip
    return _page(body, last_change(), "text/html")


def openings_feed(request: Request) -> Page:
    """Atom (RFC 4287): one entry an opening; ids from web.base_url when set, else tag:
    URIs of the judge's domain (never from the request's Host header)."""
    settings = request.app.state.settings
    base = str(settings.web.base_url or "").rstrip("/")
    domain = str(settings.judge.address).rpartition("@")[2] or "localhost"
    ids = base or f"tag:{domain},2026:"
    shown = public_openings()
    updated = last_change() or datetime(2026, 1, 1, tzinfo=UTC)
    body = render(
        "web/openings.atom.j2", openings=shown, base=base, ids=ids, updated=updated,
        judge=_judge(request)["address"],
        iso=lambda moment: moment.astimezone(UTC).isoformat(timespec="seconds"),
    )  # fmt: skip
    return _page(body, last_change(), "application/atom+xml")

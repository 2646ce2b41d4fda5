"""The public web site: Starlette routes over the read model in pages.py.

Read-only: no page writes to the database, so a second machine serving the pages from the
same PostgreSQL needs nothing but `mailjudge web`. Every page is rendered from the same
Jinja templates folder as the mails (templates/web/), and answers a repeated request for
an unchanged page with 304 (ETag and Last-Modified).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mailjudge.models import GAME_STATES, Game, GameState, PhaseRecord
from mailjudge.render import render
from mailjudge.render.chart import centre_chart
from mailjudge.service.archive import export_game
from mailjudge.service.schedule import timing_of
from mailjudge.service.state import game_map
from mailjudge.timing import show
from mailjudge.variants import variant_of
from mailjudge.web import pages
from mailjudge.web.cache import Page, PageCache

# Zones offered in the deadline's picker; any other IANA name works typed into ?tz=.
ZONES = (
    "UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Helsinki",
    "Europe/Moscow", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney",
    "Pacific/Auckland", "America/Sao_Paulo", "America/New_York", "America/Chicago",
    "America/Denver", "America/Los_Angeles", "Pacific/Honolulu",
)  # fmt: skip


def _respond(request: Request, page: Page) -> Response:
    """The page, or 304 when the client's copy (by ETag, else by date) is still right."""
    headers = {"ETag": page.etag, "Cache-Control": "no-cache"}
    if page.changed is not None:
        headers["Last-Modified"] = format_datetime(page.changed.astimezone(UTC), usegmt=True)
    if _still_fresh(request, page.etag, page.changed):
        return Response(status_code=304, headers=headers)
    return Response(page.body, media_type=page.media_type + "; charset=utf-8", headers=headers)


def _page(body: str, changed: datetime | None, media_type: str = "text/html") -> Page:
    tag = 'W/"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'
    return Page(body, changed, media_type, tag)


GameBuilder = Callable[[Request, Game], Page]


def _cached(build: GameBuilder) -> Callable[[Request], Awaitable[Response]]:
    """A game's page: from the cache while the game's stamp is unchanged, else built."""

    async def endpoint(request: Request) -> Response:
        name = request.path_params["name"]
        stamp = pages.game_stamp(name)
        if stamp is None:
            raise HTTPException(404, "There is no public game of that name.")
        cache: PageCache = request.app.state.pages
        key = request.url.path + "?" + request.url.query
        page = cache.get(key, stamp)
        if page is None:
            game = pages.public_game(name)
            if game is None:
                raise HTTPException(404, "There is no public game of that name.")
            page = build(request, game)
            cache.put(key, stamp, page)
        return _respond(request, page)

    return endpoint


def _still_fresh(request: Request, tag: str, changed: datetime | None) -> bool:
    """RFC 9110: If-None-Match decides when sent; otherwise If-Modified-Since does."""
    match = request.headers.get("if-none-match")
    if match is not None:
        return match.strip() == "*" or tag in {t.strip() for t in match.split(",")}
    since = _parse_date(request.headers.get("if-modified-since"))
    return changed is not None and since is not None and changed.replace(microsecond=0) <= since


def _parse_date(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None


def _zone(request: Request) -> str:
    name = request.query_params.get("tz", "UTC")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return name


async def index(request: Request) -> Response:
    state = request.query_params.get("state") or None
    if state is not None and state not in GAME_STATES:
        state = None
    games = pages.game_lines(state)
    newest = PhaseRecord.select(PhaseRecord.processed_at).order_by(
        PhaseRecord.processed_at.desc()
    ).first()  # fmt: skip
    body = render("web/index.html.j2", games=games, state=state, states=GAME_STATES, show=show)
    return _respond(request, _page(body, newest.processed_at if newest else None))


def game_page(request: Request, game: Game) -> Page:
    zone = _zone(request)
    records = pages.played_phases(game)
    powers = game_map(game).power_names
    history = pages.centre_history(game, records)
    context: dict[str, Any] = {
        "game": game,
        "phase": pages.phase_name(game.phase),
        "zone": zone,
        "zones": ZONES if zone in ZONES else (*ZONES, zone),
        "game_zone": timing_of(game).zone,
        "show": show,
        "seats": pages.seat_lines(game),
        "rules": pages.rule_lines(game),
        "counts": pages.centre_counts(game.position),
        "phases": [(r.phase, pages.phase_name(r.phase)) for r in records],
        "sections": variant_of(game).public_sections(game),
        "board": None,
        "chart": centre_chart(history, powers, game.victory_count) if history else None,
        "deadline": game.deadline if game.state == GameState.ACTIVE else None,
    }
    if game.position:
        title = f"{game.name}: {pages.phase_name(game.position['phase'])}"
        context["board"] = pages.board_svg(game, game.position, [], title)
    body = render("web/game.html.j2", **context)
    return _page(body, pages.last_changed(game))


def phase_page(request: Request, game: Game) -> Page:
    page = pages.phase_page(game, request.path_params["phase"])
    if page is None:
        raise HTTPException(404, "The game has no processed phase of that name.")
    body = render("web/phase.html.j2", game=game, page=page)
    return _page(body, page.processed_at)


def press_page(request: Request, game: Game) -> Page:
    body = render("web/press.html.j2", game=game, press=pages.public_press(game), show=show)
    return _page(body, pages.last_changed(game))


def feed(request: Request, game: Game) -> Page:
    base = str(request.base_url).rstrip("/")
    entries = []
    for record in pages.played_phases(game):
        phase = pages.phase_page(game, record.phase)
        if phase is None:
            continue
        entries.append({
            "id": f"{base}/games/{game.name}/phases/{record.phase}",
            "title": f"Results of {phase.name}",
            "updated": record.processed_at,
            "link": f"{base}/games/{game.name}/phases/{record.phase}",
            "text": "\n".join(phase.results),
        })  # fmt: skip
    for item in pages.public_press(game):
        entries.append({
            "id": f"{base}/games/{game.name}/press#press-{item.id}",
            "title": f"Broadcast from {item.sender}",
            "updated": item.sent_at,
            "link": f"{base}/games/{game.name}/press#press-{item.id}",
            "text": item.body,
        })  # fmt: skip
    entries.sort(key=lambda e: e["updated"], reverse=True)
    changed = pages.last_changed(game)
    body = render(
        "web/feed.atom.j2", game=game, base=base, entries=entries, updated=changed,
        iso=lambda moment: moment.astimezone(UTC).isoformat(timespec="seconds"),
    )  # fmt: skip
    return _page(body, changed, media_type="application/atom+xml")


def api_game(request: Request, game: Game) -> Page:
    body = json.dumps(export_game(game), indent=1, ensure_ascii=False) + "\n"
    return _page(body, pages.last_changed(game), media_type="application/json")


async def not_found(request: Request, exc: Exception) -> Response:
    detail = exc.detail if isinstance(exc, HTTPException) else "Not found."
    status = exc.status_code if isinstance(exc, HTTPException) else 404
    body = render("web/not_found.html.j2", detail=detail, status=status)
    return Response(body, status_code=status, media_type="text/html; charset=utf-8")


def make_app(cache_seconds: float = 5.0) -> Starlette:
    """The site; the database must already be connected (db.connect)."""
    routes = [
        Route("/", index),
        Route("/games/{name}", _cached(game_page)),
        Route("/games/{name}/phases/{phase}", _cached(phase_page)),
        Route("/games/{name}/press", _cached(press_page)),
        Route("/games/{name}/feed.atom", _cached(feed)),
        Route("/api/games/{name}", _cached(api_game)),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found})
    app.state.pages = PageCache(lifetime=cache_seconds)
    return app

"""The public web site: Starlette routes over the read model in pages.py.

Read-only: no page writes to the database, so a second machine serving the pages from the
same PostgreSQL needs nothing but `mailjudge web`. Every page is rendered from the same
Jinja templates folder as the mails (templates/web/), and answers a repeated request for
an unchanged page with 304 (ETag and Last-Modified).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from urllib.parse import quote

from peewee import PeeweeException
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from mailjudge.config.settings import Settings, current_settings
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.timing import known_zone, show
from mailjudge.game.calendar import game_feed
from mailjudge.game.schedule import timing_of
from mailjudge.game.state import game_map
from mailjudge.render import render
from mailjudge.render.board.closeup import closeup, region_of
from mailjudge.render.board.style import PALETTES, legend_height
from mailjudge.render.chart import centre_chart
from mailjudge.render.undrawn import NOTE_SIZE
from mailjudge.service.archive import export_game
from mailjudge.store import db
from mailjudge.store.health import problems, unreachable
from mailjudge.store.models import GAME_STATES, Game, GameState, PhaseRecord, utcnow
from mailjudge.variants import variant_of
from mailjudge.web import openings, pages
from mailjudge.web.cache import Page, PageCache
from mailjudge.web.outage import WhileAway
from mailjudge.web.players import ROUTES as PLAYER_ROUTES
from mailjudge.web.ratings import ROUTES as RATING_ROUTES
from mailjudge.web.stats import ROUTES as STATS_ROUTES
from mailjudge.web.tournaments import ROUTES as TOURNAMENT_ROUTES

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


def cache_key(request: Request, depends_on: tuple[str, ...]) -> str:
    """The path and, of the query, only the parameters the page is built from, each as
    the page reads it (an unknown zone is UTC): ``?tz=UTC&junk=1`` and ``?`` are one page."""
    readers: dict[str, Callable[[Request], object]] = {
        "tz": _zone, "palette": _palette, "page": _page_number, "around": _around,
    }  # fmt: skip
    parts = [f"{name}={readers[name](request)}" for name in depends_on]
    return request.url.path + "?" + "&".join(parts)


def _cached(
    build: GameBuilder, depends_on: tuple[str, ...] = ()
) -> Callable[[Request], Awaitable[Response]]:
    """A game's page: from the cache while the game's stamp is unchanged, else built.
    ``depends_on``: the query parameters the page reads; any other is ignored."""

    async def endpoint(request: Request) -> Response:
        name = request.path_params["name"]
        stamp = pages.game_stamp(name)
        if stamp is None:
            raise HTTPException(404, "There is no public game of that name.")
        cache: PageCache = request.app.state.pages
        key = cache_key(request, depends_on)
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


def _palette(request: Request) -> str:
    """?palette=colourblind or standard; else the judge's web.palette."""
    asked = request.query_params.get("palette", "")
    return asked if asked in PALETTES else str(request.app.state.settings.web.palette)


def _page_number(request: Request) -> int:
    text = request.query_params.get("page", "1")
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 6 else 1


def _join(request: Request) -> dict[str, str]:
    """How to join: the judge's address (public by nature: every player writes to it)."""
    address = str(request.app.state.settings.judge.address)
    return {"address": address, "mailto": "mailto:" + quote(address, safe="@")}


def _zone(request: Request) -> str:
    name = request.query_params.get("tz", "UTC")
    return name if known_zone(name) is not None else "UTC"


async def index(request: Request) -> Response:
    state = request.query_params.get("state") or None
    if state is not None and state not in GAME_STATES:
        state = None
    games = pages.game_lines(state)
    newest = PhaseRecord.select(PhaseRecord.processed_at).order_by(
        PhaseRecord.processed_at.desc()
    ).first()  # fmt: skip
    body = render(
        "web/index.html.j2", games=games, state=state, states=GAME_STATES, show=show,
        join=_join(request),
    )  # fmt: skip
    return _respond(request, _page(body, newest.processed_at if newest else None))


# The variant's records (Democratic: each country's election counts) on the game page: the
# newest this many; older ones on /games/NAME/records?page=N, as many a page.
RECORDS_ON_GAME_PAGE = 14
RECORDS_PER_PAGE = 28


def _board_title(game: Game, position: dict[str, Any]) -> str:
    return f"{game.name}: {pages.phase_name(position['phase'])}"


def game_page(request: Request, game: Game) -> Page:
    zone = _zone(request)
    palette = _palette(request)
    records = pages.played_phases(game)
    gmap = game_map(game)
    powers = gmap.power_names
    titles = {power: gmap.power_title(power) for power in powers}  # names for people
    history = pages.centre_history(game, records)
    sections = pages.public_sections(game)
    older = 0
    for section in sections:  # the newest records here, the rest on the records pages
        older += max(0, len(section.texts) - RECORDS_ON_GAME_PAGE)
        section.texts = section.texts[:RECORDS_ON_GAME_PAGE]
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
        "power_titles": titles,
        "phases": [(r.phase, pages.phase_name(r.phase)) for r in records],
        "sections": sections,
        "older_records": older,
        "board": None,
        "closeups": [],
        "last": None,
        "units": pages.unit_lines(game, game.position),
        "chart": centre_chart(history, powers, game.victory_count, titles) if history else None,
        "deadline": game.deadline if game.state == GameState.ACTIVE else None,
        "owing": pages.owing_orders(game),
        "join": _join(request) if game.state == GameState.FORMING else None,
        "anonymous": variant_of(game).people.anonymous,
        "palette": palette,
        "palette_query": "" if palette == "standard" else f"?palette={palette}",
        "map_title": game_map(game).title,
        "map_drawn": bool(game_map(game).positions),
    }
    if game.position:
        title = _board_title(game, game.position)
        context["board"] = pages.board_svg(game, game.position, [], title, palette)
        context["closeups"] = _closeup_links(game)
    if records:
        # Linked, not inline: a second board in the page would double its size.
        last = records[-1]
        gmap = game_map(game)
        width, height = gmap.board_size if gmap.positions else NOTE_SIZE
        legend = legend_height(len(gmap.power_names)) if gmap.positions else 0
        context["last"] = {
            "code": last.phase, "name": pages.phase_name(last.phase),
            "width": width, "height": height + legend,
        }  # fmt: skip
    body = render("web/game.html.j2", **context)
    return _page(body, pages.last_changed(game))


def _closeup_links(game: Game) -> list[tuple[str, str]]:
    """(power, its title) for each power with a region to show close up."""
    gmap = game_map(game)
    if not gmap.positions:
        return []
    board = position_from_dict(game.position, gmap)
    return [(p, gmap.power_title(p)) for p in gmap.power_names if region_of(gmap, board, p)[2]]


def records_page(request: Request, game: Game) -> Page:
    """The variant's older records, RECORDS_PER_PAGE a page, newest first."""
    number = _page_number(request)
    sections = pages.public_sections(game)
    texts = [text for section in sections for text in section.texts][RECORDS_ON_GAME_PAGE:]
    last_page = max(1, -(-len(texts) // RECORDS_PER_PAGE))
    if number > last_page:
        raise HTTPException(404, f"The records have {last_page} page(s).")
    shown = texts[(number - 1) * RECORDS_PER_PAGE : number * RECORDS_PER_PAGE]
    body = render(
        "web/records.html.j2", game=game, texts=shown, number=number, last_page=last_page,
    )  # fmt: skip
    return _page(body, pages.last_changed(game))


def phase_page(request: Request, game: Game) -> Page:
    palette = _palette(request)
    page = pages.phase_page(game, request.path_params["phase"], palette)
    if page is None:
        raise HTTPException(404, "The game has no processed phase of that name.")
    body = render(
        "web/phase.html.j2", game=game, page=page,
        palette_query="" if palette == "standard" else f"?palette={palette}",
    )  # fmt: skip
    return _page(body, page.processed_at)


def board_now(request: Request, game: Game) -> Page:
    """The board now as an SVG file of its own, full size (to zoom on a phone)."""
    if not game.position:
        raise HTTPException(404, "The game has not started: there is no board yet.")
    svg = pages.board_svg(
        game, game.position, [], _board_title(game, game.position), _palette(request)
    )
    around = _around(request)
    if around:  # ?around=FRANCE: that power's region at full size, for a phone
        svg = _closeup(game, svg, around)
    return _page(svg, pages.last_changed(game), media_type="image/svg+xml")


def _around(request: Request) -> str:
    """The power of ``?around=``, as the map spells powers (none: the whole board)."""
    return request.query_params.get("around", "").strip().upper()[:40]


def _closeup(game: Game, svg: str, power: str) -> str:
    gmap = game_map(game)
    board = position_from_dict(game.position, gmap)
    box = region_of(gmap, board, power) if power in gmap.powers else (0.0, 0.0, 0.0, 0.0)
    if not box[2]:
        known = ", ".join(p for p, _ in _closeup_links(game))
        raise HTTPException(404, f"No close-up of {power}: write ?around= and one of {known}.")
    return closeup(svg, box)


def phase_board(request: Request, game: Game) -> Page:
    page = pages.phase_page(game, request.path_params["phase"], _palette(request))
    if page is None:
        raise HTTPException(404, "The game has no processed phase of that name.")
    return _page(page.svg, page.processed_at, media_type="image/svg+xml")


def press_page(request: Request, game: Game) -> Page:
    body = render("web/press.html.j2", game=game, press=pages.public_press(game), show=show)
    return _page(body, pages.last_changed(game))


def _feed_ids(request: Request, game: Game) -> tuple[str, str]:
    """(link base, id base) for the feed: from web.base_url when set; otherwise links
    relative to the site and ids as tag: URIs. Never from the request's Host header: the
    page cache serves one copy to every reader, and a visitor must not choose its links."""
    base = request.app.state.settings.web.base_url
    if base:
        base = str(base).rstrip("/")
        return base, base
    domain = str(request.app.state.settings.judge.address).rpartition("@")[2] or "localhost"
    return "", f"tag:{domain},{game.created_at:%Y-%m-%d}:"


def feed(request: Request, game: Game) -> Page:
    base, ids = _feed_ids(request, game)
    entries = []
    records = pages.played_phases(game)
    for i, record in enumerate(records):
        path = f"/games/{game.name}/phases/{record.phase}"
        entries.append({
            "id": ids + path,
            "title": f"Results of {pages.phase_name(record.phase)}",
            "updated": record.processed_at,
            "link": base + path,
            "text": "\n".join(pages.phase_results(game, records, i)),
        })  # fmt: skip
    for item in pages.public_press(game):
        path = f"/games/{game.name}/press#press-{item.id}"
        entries.append({
            "id": ids + path,
            "title": f"Broadcast from {item.sender}",
            "updated": item.sent_at,
            "link": base + path,
            "text": item.body,
        })  # fmt: skip
    if game.state == GameState.FINISHED and game.finished_at is not None:
        path = f"/games/{game.name}#over"  # a reader of the feed learns the game ended
        entries.append({
            "id": ids + path, "title": f"The game is over: {game.outcome or 'ended'}",
            "updated": game.finished_at, "link": base + path,
            "text": f"{game.name} is over: {game.outcome or 'ended'}.",
        })  # fmt: skip
    entries.sort(key=lambda e: e["updated"], reverse=True)
    changed = pages.last_changed(game)
    body = render(
        "web/feed.atom.j2", game=game, base=base, ids=ids, entries=entries, updated=changed,
        iso=lambda moment: moment.astimezone(UTC).isoformat(timespec="seconds"),
    )  # fmt: skip
    return _page(body, changed, media_type="application/atom+xml")


def deadlines_ics(request: Request, game: Game) -> Page:
    """The game's deadlines for a calendar to subscribe to (game/calendar.py). Its ETag
    leaves out DTSTAMP (the time of the request), so a client polling an unchanged feed
    gets 304; no Last-Modified, since a moved deadline changes no date the page knows."""
    settings = request.app.state.settings
    body = game_feed(game, settings=settings).decode("utf-8")
    kept = "".join(line for line in body.splitlines(True) if not line.startswith("DTSTAMP:"))
    tag = 'W/"' + hashlib.sha256(kept.encode()).hexdigest()[:32] + '"'
    return Page(body, None, "text/calendar", tag)


def api_game(request: Request, game: Game) -> Page:
    """The game as `mailjudge export` writes it, with no seat name made from an address."""
    made = pages.names_from_addresses(game)
    body = json.dumps(_scrubbed(export_game(game), made), indent=1, ensure_ascii=False) + "\n"
    return _page(body, pages.last_changed(game), media_type="application/json")


def _scrubbed(value: Any, made: dict[str, str]) -> Any:
    if isinstance(value, str):
        return pages.without_address_names(value, made)
    if isinstance(value, list):
        return [_scrubbed(item, made) for item in value]
    if isinstance(value, dict):
        return {key: _scrubbed(item, made) for key, item in value.items()}
    return value


def _uncached(build: Callable[[Request], Page]) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return _respond(request, build(request))

    return endpoint


# How long /health's answer is kept: a monitor asking every second costs a few counts
# every HEALTH_SECONDS, whatever the number of monitors.
HEALTH_SECONDS = 2.0


# The site's icon: a supply centre's disc on the sea. Browsers ask for /favicon.ico by
# themselves, and take an SVG served there (every page's <link rel="icon"> says so).
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="6" fill="#a2c7ff"/>'
    '<circle cx="16" cy="16" r="9" fill="#d94f4f" stroke="#1f3550" stroke-width="3"/></svg>'
)


async def favicon(request: Request) -> Response:
    return Response(ICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


async def health(request: Request) -> Response:
    """200 "ok", or 503 with what stops the judge doing its job, one problem a line
    (mailjudge.store.health: never an address or a secret), for a load balancer or a monitor."""
    state = request.app.state
    asked = time.monotonic()
    if state.health is None or asked - state.health[0] > HEALTH_SECONDS:
        try:
            found = [p.summary for p in problems(utcnow(), db.sqlite_file())]
        except PeeweeException as err:
            found = [unreachable(err).summary]
            with contextlib.suppress(Exception):  # the next question connects anew
                db.database_proxy.close()
        state.health = (asked, found)
    found = state.health[1]
    body = "ok\n" if not found else "".join(f"{line}\n" for line in found)
    return PlainTextResponse(
        body, status_code=503 if found else 200, headers={"Cache-Control": "no-store"}
    )


async def not_found(request: Request, exc: Exception) -> Response:
    detail = exc.detail if isinstance(exc, HTTPException) else "Not found."
    status = exc.status_code if isinstance(exc, HTTPException) else 404
    body = render("web/not_found.html.j2", detail=detail, status=status)
    return Response(body, status_code=status, media_type="text/html; charset=utf-8")


def make_app(cache_seconds: float = 5.0, settings: Settings | None = None) -> Starlette:
    """The site; the database must already be connected (db.connect). ``settings``: the
    judge's (its address for joining, web.base_url, web.palette); the current ones if None."""
    routes = [
        Route("/", index),
        Route("/games/{name}", _cached(game_page, ("tz", "palette"))),
        Route("/games/{name}/board.svg", _cached(board_now, ("palette", "around"))),
        Route("/games/{name}/records", _cached(records_page, ("page",))),
        Route("/games/{name}/phases/{phase}", _cached(phase_page, ("palette",))),
        Route("/games/{name}/phases/{phase}/board.svg", _cached(phase_board, ("palette",))),
        Route("/games/{name}/press", _cached(press_page)),
        Route("/games/{name}/feed.atom", _cached(feed)),
        Route("/games/{name}/deadlines.ics", _cached(deadlines_ics)),
        Route("/api/games/{name}", _cached(api_game)),
        Route("/openings", _uncached(openings.openings_page)),
        Route("/openings.atom", _uncached(openings.openings_feed)),
        *PLAYER_ROUTES,  # the records players made public
        *STATS_ROUTES,  # the missed-turn figures
        *RATING_ROUTES,  # the public ladder
        *TOURNAMENT_ROUTES,  # the standings
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/favicon.ico", favicon),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found},
        # Compressed for a client that accepts gzip (the Known World's page: 432 KB plain,
        # ~60 KB so); 503 while the database is away.
        middleware=[Middleware(GZipMiddleware, minimum_size=1024), Middleware(WhileAway)],
    )
    app.state.pages = PageCache(lifetime=cache_seconds)
    app.state.health = None  # (when it was asked, the problems found): see health
    app.state.settings = settings if settings is not None else current_settings()
    return app

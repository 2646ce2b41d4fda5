"""/stats: the judge's missed-turn figures in public (service/stats.py), with their
definitions; /stats.json the same as JSON. Counts only: no address, no player's own
figures (a player shows theirs on /players by SET RECORD PUBLIC)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mailjudge.render import render
from mailjudge.render.stats import LEVER_WORDS, percent
from mailjudge.service import stats


async def stats_page(request: Request) -> Response:
    doc = stats.stats().as_json()
    body = render("web/stats.html.j2", doc=doc, levers=LEVER_WORDS, percent=percent)
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})  # fmt: skip


async def stats_json(request: Request) -> Response:
    return JSONResponse(stats.stats().as_json(), headers={"Cache-Control": "no-cache"})


ROUTES = [Route("/stats", stats_page), Route("/stats.json", stats_json)]

"""/ratings: the public ladder of skill ratings (service/ratings.py), one table a map and
press kind, of the players who made their record public (SET RECORD PUBLIC AS name), by
that name only, never an address."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mailjudge.render import render
from mailjudge.service import ratings


async def ladder_page(request: Request) -> Response:
    body = render("web/ratings.html.j2", ladder=ratings.ladder(), formula=ratings.FORMULA)
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})  # fmt: skip


ROUTES = [Route("/ratings", ladder_page)]

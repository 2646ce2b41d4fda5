"""/tournaments/NAME: a tournament's standings (service/tournaments.py), by the names the
players chose (or "player N" while an anonymous one runs), never an address."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mailjudge.game.errors import NotFound
from mailjudge.render import render
from mailjudge.service import tournaments


async def standings_page(request: Request) -> Response:
    name = request.path_params["name"]
    try:
        found = tournaments.tournament(name)
    except NotFound:
        raise HTTPException(404, "No tournament is called that.") from None
    rows = tournaments.standings(name)
    body = render("web/tournament.html.j2", t=found, rows=rows)
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})  # fmt: skip


ROUTES = [Route("/tournaments/{name}", standings_page)]

"""The players' records on the web: /players lists the records their players made public
(SET RECORD PUBLIC AS name), /players/NAME shows one. Only the name each player chose is
shown, never an address, nor the games a record comes from (a record's name must not
tell who plays which power in a game)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mailjudge.render import render
from mailjudge.service import records
from mailjudge.service.records import NEW_BELOW, Record


def share(record: Record) -> str:
    """The share on time as the web shows it: "new" below NEW_BELOW counted phases."""
    got = record.share
    if got is None or record.is_new():
        return "new"
    return f"{float(got):.0%}"


def _html(body: str) -> Response:
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})  # fmt: skip


async def players(request: Request) -> Response:
    found = records.public_records()
    return _html(render("web/players.html.j2", found=found, share=share, new_below=NEW_BELOW))


async def player(request: Request) -> Response:
    name = request.path_params["name"]
    found = records.public_record(name)
    if found is None:
        raise HTTPException(404, "No player shows a record under that name.")
    shown, record = found
    body = render("web/player.html.j2", shown=shown, record=record, share=share,
                  new_below=NEW_BELOW)  # fmt: skip
    return _html(body)


ROUTES = [Route("/players", players), Route("/players/{name}", player)]

"""The web pages only read: `mailjudge web` (and serve's web process) open the database
read-only (PostgreSQL's default_transaction_read_only, SQLite's query_only), so that a
page that tried to write would be refused, on a primary as on a standby. Such a page is
answered 503 and named once in the log, and the site goes on: a bug is not an outage.
Against a real standby: tests/ops/test_failover.py."""

from __future__ import annotations

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from mailjudge.service import games
from mailjudge.store import db
from mailjudge.store.models import Game
from mailjudge.web.app import make_app


async def _writes(request: Request) -> Response:
    Game.update(phase=Game.phase).where(Game.name == request.path_params["name"]).execute()
    return Response("written")


def test_a_page_that_writes_is_refused_503_and_the_site_goes_on(
    any_db: str, caplog: pytest.LogCaptureFixture
) -> None:
    games.create_game("ivory", "gm@example.com", "gm-pw")
    db.close()
    db.connect(any_db, read_only=True)
    app = make_app(cache_seconds=0)
    app.add_route("/games/{name}/touch", _writes)
    with TestClient(app) as client:
        assert client.get("/games/ivory/touch").status_code == 503
        assert client.get("/games/ivory/touch").status_code == 503
        assert client.get("/").status_code == 200
        assert client.get("/games/ivory").status_code == 200
    told = [r.getMessage() for r in caplog.records if "tried to write" in r.getMessage()]
    assert len(told) == 1 and "/games/ivory/touch" in told[0], told  # once a page
    assert not [r for r in caplog.records if "cannot be used" in r.getMessage()]

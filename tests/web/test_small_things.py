"""The small things a visitor notices (issue 54, point 5): the site has an icon; the inline
board is one picture to a screen reader (role="img", named by its title); the tables of a
game page have header cells; a finished game's Atom feed says that it is over."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from mailjudge.benchmarks.sizes import GAME, played_site
from mailjudge.game.state import finish_game, get_game

ATOM = "{http://www.w3.org/2005/Atom}"


def test_what_a_visitor_notices(tmp_path: Path, cheap_scrypt: None) -> None:
    with played_site("standard", 2, 1, tmp_path) as (web, played):
        icon = web.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
        assert icon.text.startswith("<svg")
        page = web.get(f"/games/{GAME}").text
        assert '<link rel="icon" href="/favicon.ico"' in page
        board = page[page.index('<div class="board"><svg') :]
        head = board[: board.index(">", board.index("<svg"))]
        assert 'role="img"' in head and 'aria-label="' in head
        for table in ("counts", "seats"):
            shown = page[page.index(f'<table class="{table}">') :]
            shown = shown[: shown.index("</table>")]
            assert '<th scope="col">Power</th>' in shown and '<th scope="row">' in shown
        phase = web.get(f"/games/{GAME}/phases/{played[-1]}").text
        assert 'role="img"' in phase

        feed = ET.fromstring(web.get(f"/games/{GAME}/feed.atom").content)
        titles = [e.findtext(f"{ATOM}title") for e in feed.iter(f"{ATOM}entry")]
        assert not any(t and "over" in t for t in titles)  # the game goes on
        finish_game(get_game(GAME), "DRAW FRANCE GERMANY")
        feed = ET.fromstring(web.get(f"/games/{GAME}/feed.atom").content)
        newest = next(feed.iter(f"{ATOM}entry"))
        assert newest.findtext(f"{ATOM}title") == "The game is over: DRAW FRANCE GERMANY"
        link = newest.find(f"{ATOM}link")
        assert link is not None and link.get("href", "").endswith(f"/games/{GAME}#over")
        assert 'id="over"' in web.get(f"/games/{GAME}").text

"""/ratings: the ladder of those who made their record public, under their chosen name,
best first, with the formula; nobody else, and no address."""

from __future__ import annotations

import re

import html5lib
import pytest
from starlette.testclient import TestClient
from unit.test_ratings import POWERS, play

from mailjudge.service import records
from mailjudge.web.app import make_app

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@pytest.mark.usefixtures("sqlite_db")
def test_the_ladder_shows_only_the_public_records() -> None:
    people = [f"l{n}@players.test" for n in range(7)]
    play("ladder", dict(zip(POWERS, people, strict=True)), "DRAW AUSTRIA ITALY")
    records.set_public(people[0], "Habsburg")  # Austria: in the draw
    records.set_public(people[1], "Albion")  # England: out of it
    with TestClient(make_app()) as client:
        page = client.get("/ratings").text
    html5lib.HTMLParser(strict=True).parse(page)
    names = re.findall(r'<a href="/players/(\w+)">', page)
    assert names == ["Habsburg", "Albion"]  # the drawer above
    assert "standard, press" in page and "Plackett-Luce" in page
    assert ADDRESS.search(page) is None

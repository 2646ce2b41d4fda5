"""Powers of several words shown with their spaces (HELP MAPS, the board's legend, the game
page), and a map's own dummy (The Known World 901's NEUTRALSTATE) never owing orders: the
page, readiness, the openings and the draws leave it out while a played power counts."""

from __future__ import annotations

import random

from starlette.testclient import TestClient

from mailjudge.engine.catalogue import describe, playable_powers
from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.reader import power_prefix
from mailjudge.engine.state import initial_position
from mailjudge.game.openings import open_powers
from mailjudge.game.state import current_position, get_game
from mailjudge.render.board import draw_picture
from mailjudge.service import openings, processing
from mailjudge.service.draws import survivors
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Game
from mailjudge.web import pages
from mailjudge.web.app import make_app


def started_on(map_name: str, name: str = "titled") -> Game:
    """A game on ``map_name`` with a player for each power the map lets people play."""
    game = create_game(name, "master@example.org", "master-pw", map_name=map_name)
    rng = random.Random(3)
    for i in range(len(playable_powers(load_map(map_name)))):
        join(game, f"player{i}@example.org", f"pw{i}", rng=rng)
    game = get_game(name)
    assert game.state == "active"
    return game


def test_help_maps_names_several_word_powers_with_spaces() -> None:
    empire = " ".join(describe(load_map("empire")))
    assert "British Columbia (" in empire and "New York (" in empire
    assert "Britishcolumbia" not in empire
    world = " ".join(describe(load_map("world")))
    assert "United States (" in world and "Frozen Antarctica (" in world
    assert "played by nobody: Neutral State" in " ".join(describe(load_map("known_world_901")))
    assert "Austria (3), England (3)" in " ".join(describe(load_map("standard")))


def test_a_power_is_read_by_its_code_or_its_title() -> None:
    empire = load_map("empire")
    for written in ("[British Columbia]", "[BritishColumbia]", "[BRITISHCOLUMBIA]"):
        assert power_prefix(f"{written} A VAN H", empire) == ("BRITISHCOLUMBIA", "A VAN H")
    assert power_prefix("[England] F LON H", load_map("standard")) == ("ENGLAND", "F LON H")


def test_the_legend_names_several_word_powers_with_spaces() -> None:
    gmap = load_map("world")
    svg = draw_picture(gmap, initial_position(gmap), (), "world", png=False).svg
    for title in ("United States", "South Africa", "Near East", "Western Canada"):
        assert f">{title}<" in svg, title
    assert "Unitedstates" not in svg


def test_the_game_page_names_several_word_powers_with_spaces(sqlite_db: str) -> None:
    game = started_on("empire")
    with TestClient(make_app()) as web:
        page = web.get(f"/games/{game.name}").text
    assert "British Columbia" in page and "New York" in page
    assert "Britishcolumbia" not in page and "Newyork" not in page
    assert "British Columbia" in pages.owing_orders(game)
    seats = [line.power for line in pages.seat_lines(game)]
    assert "British Columbia" in seats and "Cuba" in seats


def test_the_maps_dummy_owes_no_orders_and_is_not_late(sqlite_db: str) -> None:
    game = started_on("known_world_901", "kw")
    late = processing.late_powers(game)
    assert "NEUTRALSTATE" not in late and "ARABIA" in late
    state = processing.readiness(game)
    assert not state.ready and "NEUTRALSTATE" not in state.waiting_for
    owing = pages.owing_orders(game)
    assert "Arabia" in owing and "Neutral State" not in owing
    with TestClient(make_app()) as web:
        page = web.get("/games/kw").text
    assert '<th scope="row">Neutral State</th><td>nobody: a dummy of the map' in page
    owed = page[page.index('<p class="owing">') :]
    owed = owed[: owed.index("</p>")]
    assert "Arabia" in owed and "Neutral State" not in owed
    assert "NEUTRALSTATE" not in survivors(game) and "ARABIA" in survivors(game)

    # Every played power orders: the game is ready without a word from the dummy.
    gmap = load_map("known_world_901")
    orders = random_orders(gmap, current_position(game), random.Random(5))
    for power in playable_powers(gmap):
        report = submit_orders(game, seat_for_power(game, power), power, orders[power])
        assert not report.errors, report.errors
    assert processing.late_powers(game) == []
    assert processing.readiness(game).ready
    done = processing.process(game)
    assert done is not None
    openings.after_phase(get_game("kw"), done)
    assert "NEUTRALSTATE" not in open_powers(get_game("kw"))  # nobody is asked to take it
    assert "NEUTRALSTATE" not in processing.late_powers(get_game("kw"))

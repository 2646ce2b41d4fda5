"""Each drawn map's board in the game page, in a real browser at phone width (390 px):
a game is put on the map (its map and starting position written into the game, as CREATE
... MAP will), and the page shows the board in one column, in a frame no wider than the
screen (the board pans in it at its own size: tests/web/test_board_on_a_phone.py), with
a shape for every province of the map, each of its powers in the legend, and a picture
that is not blank."""

from __future__ import annotations

from pathlib import Path

from helpers.browser import chromium, require_browser
from helpers.e2e import JUDGE, Harness, seated
from unit.test_outlines import DRAWN

from mailjudge.demo import mailroom
from mailjudge.engine.interchange import position_to_dict
from mailjudge.engine.maps import load_map
from mailjudge.engine.state import initial_position
from mailjudge.store.models import Game
from web.test_web_browser import keep, not_blank


def test_every_drawn_maps_board_reads_in_the_game_page_at_phone_width(
    tmp_path: Path, smtp_sink: object, cheap_scrypt: None
) -> None:
    from selenium.webdriver.common.by import By

    require_browser()
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:
        seated(Harness(h.judge, h.sink), "atlas").sign_on()
        base = f"http://127.0.0.1:{h.judge.web_port}"
        with chromium(390, 844) as phone:
            for name in DRAWN:
                gmap = load_map(name)
                # A new sequence number changes the game's stamp: its page is drawn anew.
                changed = Game.update(
                    map_name=name,
                    position=position_to_dict(initial_position(gmap)),
                    sequence=Game.sequence + 1,
                ).where(Game.name == "atlas")
                assert changed.execute() == 1
                phone.get(base + "/games/atlas")
                width = phone.execute_script("return document.documentElement.clientWidth")
                wide = phone.execute_script("return document.documentElement.scrollWidth")
                assert wide <= width, f"{name}: the page is wider than the phone's screen"
                board = phone.find_element(By.CSS_SELECTOR, ".board svg")
                frame = phone.find_element(By.CSS_SELECTOR, ".board")  # the board pans in it
                assert board.is_displayed() and 300 < frame.rect["width"] <= width, name
                shapes = board.find_elements(By.CSS_SELECTOR, "[id^='province-']")
                assert len(shapes) == len(gmap.outlines), name
                legend = (board.get_attribute("textContent") or "").lower()  # all, not just shown
                assert all(gmap.power_title(p).lower() in legend for p in gmap.power_names), name
                shot = tmp_path / f"web-map-{name}-390.png"
                phone.save_screenshot(str(shot))
                assert not_blank(shot) > 50, name
                keep(shot, f"web-map-{name}-390.png")

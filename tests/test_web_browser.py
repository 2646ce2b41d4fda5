"""The web pages in a real browser (Debian's chromium, headless, JavaScript off): from the
list of games to a game, then to a phase, as a visitor clicks; the board's SVG and the
results are in the page, the screenshot is not blank, and at phone width the page is one
column with nothing wider than the screen.

MAILJUDGE_SCREENSHOTS=DIR keeps the screenshots there (the README's picture comes from it).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium, require_browser
from e2e import JUDGE, Harness, seated
from PIL import Image

from mailjudge.demo import mailroom


@pytest.fixture
def served(tmp_path: Path, smtp_sink: object, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge whose pages are served (on a free port) beside its SMTP listener."""
    require_browser()
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:
        assert h.judge.web_port
        yield Harness(h.judge, h.sink)


def play(h: Harness) -> None:
    table = seated(h, "lookout")
    table.sign_on()
    table.play_phase({
        "FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"],
        "GERMANY": ["A MUN - RUH", "F KIE - HOL", "A BER - KIE"],
        "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    })  # fmt: skip
    table.play_phase({
        "FRANCE": ["A BUR - BEL", "A SPA H", "F MAO - POR"],
        "GERMANY": ["A RUH - BEL", "F HOL S A RUH - BEL", "A KIE - DEN"],
    })  # fmt: skip


def not_blank(path: Path) -> int:
    """How many colours the screenshot has: a blank or broken page has one or two."""
    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return len(colours or [])


def keep(path: Path, name: str) -> None:
    folder = os.environ.get("MAILJUDGE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / name)


def test_a_visitor_clicks_from_the_games_to_a_phase(served: Harness, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    play(served)
    base = f"http://127.0.0.1:{served.judge.web_port}"
    with chromium(1280, 1100) as browser:
        browser.get(base + "/")
        assert "The games" in browser.title
        browser.find_element(By.LINK_TEXT, "lookout").click()
        assert browser.current_url == base + "/games/lookout"
        board = browser.find_element(By.CSS_SELECTOR, ".board svg")
        assert board.size["width"] > 300 and board.size["height"] > 250
        assert browser.find_element(By.CSS_SELECTOR, ".chart svg").is_displayed()
        shot = tmp_path / "web-game.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 50
        keep(shot, "web-game.png")

        browser.find_element(By.LINK_TEXT, "Fall 1901 movement").click()
        assert browser.current_url == base + "/games/lookout/phases/F1901M"
        assert browser.find_element(By.CSS_SELECTOR, ".board svg").is_displayed()
        results = browser.find_element(By.CSS_SELECTOR, "pre.results").text
        assert "F HOL S A RUH - BEL" in results and "A BUR - BEL" in results
        shot = tmp_path / "web-phase.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 50
        browser.find_element(By.CSS_SELECTOR, 'a[rel="prev"]').click()
        assert browser.current_url.endswith("/phases/S1901M")


def test_the_game_page_is_one_column_at_phone_width(served: Harness, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    play(served)
    base = f"http://127.0.0.1:{served.judge.web_port}"
    with chromium(390, 844) as phone:
        phone.get(base + "/games/lookout")
        width = phone.execute_script("return document.documentElement.clientWidth")
        wide = phone.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width, "the page is wider than the phone's screen"
        board = phone.find_element(By.CSS_SELECTOR, ".board svg").rect
        side = phone.find_element(By.CSS_SELECTOR, ".side").rect
        assert side["y"] > board["y"] + board["height"] - 1, "the side column sits below"
        assert board["width"] <= width
        shot = tmp_path / "web-phone.png"
        phone.save_screenshot(str(shot))
        assert not_blank(shot) > 50
        keep(shot, "web-phone.png")

"""The web pages in a real browser (Debian's chromium, headless, JavaScript off): from the
list of games to a game, then to a phase, as a visitor clicks; the board's SVG and the
results are in the page, the screenshot is not blank, and at phone width the page is one
column with nothing wider than the screen.

MAILJUDGE_SCREENSHOTS=DIR keeps the screenshots there (the README's picture comes from it).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.browser import chromium, require_browser
from helpers.e2e import JUDGE, MASTER, Harness, join_by_mail, seated
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
        board = phone.find_element(By.CSS_SELECTOR, ".board").rect  # the board pans in it
        side = phone.find_element(By.CSS_SELECTOR, ".side").rect
        assert side["y"] > board["y"] + board["height"] - 1, "the side column sits below"
        assert board["width"] <= width
        shot = tmp_path / "web-phone.png"
        phone.save_screenshot(str(shot))
        assert not_blank(shot) > 50
        keep(shot, "web-phone.png")


def play_more(h: Harness) -> None:
    """A game with one phase played and England's orders in for the next, and a forming
    game with a player who chose a public name."""
    table = seated(h, "watch")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"]})
    table.send_orders("ENGLAND", ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"])
    assert "created" in h.command(MASTER, "CREATE gathering masterpw RULES POWER_CHOICE")
    assert "joined" in h.command("zed.quietly@mail.test", "JOIN gathering pw-z FRANCE AS Marianne")


def overflow(browser: object) -> tuple[int, int]:
    width = browser.execute_script("return document.documentElement.clientWidth")  # type: ignore[attr-defined]
    wide = browser.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    return width, wide


@pytest.mark.parametrize(("width", "height"), [(1280, 1000), (390, 844)])
def test_the_pages_a_player_and_a_visitor_need(
    served: Harness, tmp_path: Path, width: int, height: int
) -> None:
    """At desktop and at phone width: the games list fits the screen, deadline and all, and
    says how to join (a mailto: link to the judge and the JOIN line); a game shows who still
    owes orders (powers only), the deadline counting down (with JavaScript; the date without),
    the board now and the last phase's orders, the units as text, a full-size board, the
    colour-blind palette on a click, and public names only; a forming game says how to join
    it; the feed's links are the site's own."""
    from selenium.webdriver.common.by import By

    play_more(served)
    base = f"http://127.0.0.1:{served.judge.web_port}"
    with chromium(width, height) as browser:
        browser.get(base + "/")
        screen, wide = overflow(browser)
        assert wide <= screen, f"the games list is {wide} px on a {screen} px screen"
        for cell in browser.find_elements(By.CSS_SELECTOR, "table.games td"):
            box = cell.rect
            assert box["x"] >= 0 and box["x"] + box["width"] <= screen + 1, cell.text
        deadline = browser.find_element(By.CSS_SELECTOR, 'td[data-label="Deadline"] time')
        assert deadline.is_displayed() and "UTC" in deadline.text
        mail = browser.find_element(By.CSS_SELECTOR, "section.join a")
        assert mail.get_attribute("href") == f"mailto:{JUDGE}" and mail.text == JUDGE
        assert (
            "JOIN game your-password" in browser.find_element(By.CSS_SELECTOR, "pre.join-line").text
        )
        shot = tmp_path / f"web-index-{width}.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 20
        keep(shot, f"web-index-{width}.png")

        browser.find_element(By.LINK_TEXT, "gathering").click()
        join = browser.find_element(By.CSS_SELECTOR, "pre.join-line").text
        assert join == "JOIN gathering your-password [power] AS your-public-name"
        seats = browser.find_element(By.CSS_SELECTOR, "table.seats").text
        assert "joined: Marianne" in seats and "zed" not in browser.page_source

        browser.get(base + "/games/watch")
        owed = browser.find_element(By.CSS_SELECTOR, "p.owing").text
        assert owed == ("Orders still owed for Fall 1901 movement: "
                        "Austria, France, Germany, Italy, Russia, Turkey.")  # fmt: skip
        assert "LON - NTH" not in browser.page_source
        assert "UTC" in browser.find_element(By.CSS_SELECTOR, "p.deadline time").text
        assert browser.find_element(By.CSS_SELECTOR, ".countdown").text == ""  # no JS: the date
        boards = browser.find_elements(By.CSS_SELECTOR, ".board svg, .board img")
        frames = browser.find_elements(By.CSS_SELECTOR, ".board")  # a board pans in its frame
        assert len(boards) == 2 and all(f.size["width"] <= screen for f in frames)
        last = browser.find_element(By.CSS_SELECTOR, ".board.last img")
        assert browser.execute_script("return arguments[0].naturalWidth", last) == 1000
        assert "Last phase's orders: Spring 1901 movement" in browser.page_source.replace(
            "&#39;", "'"
        )
        units = browser.find_element(By.CSS_SELECTOR, "dl.units")
        assert "Army Burgundy (BUR)" in units.text and units.is_displayed()
        size = browser.execute_script(
            "return parseFloat(getComputedStyle(arguments[0]).fontSize)", units.find_element(By.TAG_NAME, "dd")
        )  # fmt: skip
        assert size >= 12, "the units list is text a phone can read"
        screen, wide = overflow(browser)
        assert wide <= screen
        shot = tmp_path / f"web-game-{width}.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 50
        keep(shot, f"web-game-{width}.png")

        browser.find_element(By.LINK_TEXT, "colours for red-green colour blindness").click()
        assert browser.current_url.endswith("/games/watch?palette=colourblind")
        assert "#379ce7" in browser.page_source  # France in the colour-blind palette
        browser.find_element(By.LINK_TEXT, "The board full size").click()
        assert browser.current_url.endswith("/games/watch/board.svg?palette=colourblind")
        svg = browser.find_element(By.TAG_NAME, "svg")
        assert svg.size["width"] == 1000, "full size: the names at their 11 px"

        browser.get(base + "/games/watch/feed.atom")
        assert 'href="/games/watch' in browser.page_source
        assert "127.0.0.1" not in browser.page_source

    with chromium(width, height, javascript=True) as browser:
        browser.get(base + "/games/watch")
        countdown = browser.find_element(By.CSS_SELECTOR, ".countdown").text
        assert countdown.startswith("(in ") and countdown.endswith("s)"), countdown


@pytest.mark.parametrize(("width", "height"), [(1280, 1000), (390, 844)])
def test_a_long_democratic_game_in_the_browser(
    served: Harness, tmp_path: Path, width: int, height: int
) -> None:
    """A Democratic game of 100 phases of published counts: its page shows the citizens per
    power and the newest counts, stays the size of a young game's and fits the screen; the
    older counts are a click away, page by page."""
    from selenium.webdriver.common.by import By

    from mailjudge.game.state import get_game
    from mailjudge.variants.democratic.country_lists import JUDGE as AUTHOR
    from mailjudge.variants.democratic.public import ELECTION_SUBJECT
    from mailjudge.variants.democratic.tables import ListPost

    h = served
    assert "created" in h.command(MASTER, "CREATE agora masterpw VARIANT democratic")
    for n in range(14):
        join_by_mail(h, f"voter{n}@citizens.test", f"JOIN agora pw{n} AS Voter-{n}")
    assert "started" in h.command(MASTER, "SIGNON Magora masterpw\nSTART").lower()
    game = get_game("agora")
    body = "\n".join(f"Voter-{n}: {n} votes" for n in range(14)) * 10
    base = f"http://127.0.0.1:{h.judge.web_port}"
    with chromium(width, height) as browser:

        def publish(phases: int) -> int:
            for year in range(phases):
                for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA",
                              "TURKEY"):  # fmt: skip
                    ListPost.create(game=game, power=power, phase=f"S{1901 + year}M",
                                    author=AUTHOR, subject=ELECTION_SUBJECT, body=body)  # fmt: skip
            time.sleep(5.1)  # the page cache's lifetime: the counts do not change its stamp
            browser.get(base + "/games/agora")
            return len(browser.page_source.encode())

        young = publish(2)
        old = publish(98)
        assert old < young * 1.05 and old < 300 * 1024, (young, old)
        seats = browser.find_element(By.CSS_SELECTOR, "table.seats").text
        assert "vacant" not in seats and seats.count("citizen") == 7
        screen, wide = overflow(browser)
        assert wide <= screen
        browser.find_element(By.PARTIAL_LINK_TEXT, "earlier records").click()
        assert browser.current_url.endswith("/games/agora/records")
        browser.find_element(By.CSS_SELECTOR, 'a[rel="next"]').click()
        assert browser.current_url.endswith("/games/agora/records?page=2")
        assert len(browser.find_elements(By.CSS_SELECTOR, "main pre")) == 28
        screen, wide = overflow(browser)
        assert wide <= screen

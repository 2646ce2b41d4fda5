"""The players' public records (/players) in a real browser (Debian's chromium, headless,
JavaScript off): from the games to the players by the header's link, then to one player;
only the names the players chose, never an address, and the table fits a phone's screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.browser import chromium, require_browser
from helpers.e2e import JUDGE, MASTER, Harness, player, seated

from mailjudge.demo import mailroom
from web.test_web_browser import keep, not_blank

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@pytest.fixture
def served(tmp_path: Path, smtp_sink: object, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge whose pages are served (on a free port) beside its SMTP listener."""
    require_browser()
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:  # type: ignore[arg-type]
        assert h.judge.web_port
        yield Harness(h.judge, h.sink)


def play(h: Harness) -> None:
    """One phase: France and Germany order, the rest do not (the master's PROCESS!); France
    and Germany show their records, Italy keeps its own private."""
    table = seated(h, "records")
    table.sign_on()
    table.send_orders("FRANCE", ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"])
    table.send_orders("GERMANY", ["A MUN - RUH", "F KIE - HOL", "A BER - KIE"])
    table.say(table.master, "SIGNON Mrecords masterpw\nPROCESS!", "processed")
    h.wait_until(lambda: any(r.rcpt_tos == [MASTER] for r in table.results("S1901M")))
    assert "public as Marianne" in h.command(player("FRANCE"), "SET RECORD PUBLIC AS Marianne")
    assert "public as Otto_B" in h.command(player("GERMANY"), "SET RECORD PUBLIC AS Otto_B")


@pytest.mark.parametrize(("width", "height"), [(1280, 1000), (390, 844)])
def test_a_visitor_reads_the_public_records(
    served: Harness, tmp_path: Path, width: int, height: int
) -> None:
    from selenium.webdriver.common.by import By

    play(served)
    base = f"http://127.0.0.1:{served.judge.web_port}"
    with chromium(width, height) as browser:
        browser.get(base + "/")
        browser.find_element(By.LINK_TEXT, "the players").click()
        assert browser.current_url == base + "/players"
        assert "The players' records" in browser.title
        names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "table.players td a")]
        assert names == ["Marianne", "Otto_B"]
        assert ADDRESS.search(browser.page_source) is None
        assert "players.test" not in browser.page_source and "Italy" not in browser.page_source
        shares = browser.find_elements(By.CSS_SELECTOR, "table.players td.share")
        assert [s.text for s in shares] == ["new", "new"]  # one phase each: newcomers
        width_now = browser.execute_script("return document.documentElement.clientWidth")
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width_now, f"the records are {wide} px on a {width_now} px screen"
        shot = tmp_path / f"web-players-{width}.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 20
        keep(shot, f"web-players-{width}.png")

        browser.find_element(By.LINK_TEXT, "Marianne").click()
        assert browser.current_url == base + "/players/Marianne"
        assert browser.find_element(By.TAG_NAME, "h1").text == "Marianne"
        assert browser.find_element(By.CSS_SELECTOR, "td.owed").text == "1"
        assert browser.find_element(By.CSS_SELECTOR, "td.on-time").text == "1"
        assert ADDRESS.search(browser.page_source) is None

        browser.get(base + "/players/nobody")
        assert "No player shows a record under that name." in browser.page_source

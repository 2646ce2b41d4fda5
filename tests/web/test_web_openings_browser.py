"""The openings page in a real browser (Debian's chromium, headless, JavaScript off): from
the list of games a visitor clicks to /openings, reads each open power (game, power,
centres, units, why, the TAKEOVER line), follows the link to its game; at phone width
the page is one card an opening with nothing wider than the screen; once the power is
taken over by mail, the page no longer lists it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.browser import chromium, require_browser
from helpers.e2e import JUDGE, MASTER, POWERS, Harness, player, seated, secret, takeover_by_mail

from mailjudge.demo import mailroom
from web.test_web_browser import keep, not_blank, overflow


@pytest.fixture
def served(tmp_path: Path, smtp_sink: object, cheap_scrypt: None) -> Iterator[Harness]:
    require_browser()
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:
        assert h.judge.web_port
        yield Harness(h.judge, h.sink)


@pytest.mark.parametrize(("width", "height"), [(1280, 1000), (390, 844)])
def test_a_visitor_finds_a_power_to_take_over(
    served: Harness, tmp_path: Path, width: int, height: int
) -> None:
    from selenium.webdriver.common.by import By

    table = seated(served, "vacancy")
    table.sign_on()
    table.say(table.master, "SIGNON Mvacancy masterpw\nEJECT AUSTRIA", "eject done")
    table.say(table.players["TURKEY"], table.signon("TURKEY") + "\nRESIGN", "is vacant")
    base = f"http://127.0.0.1:{served.judge.web_port}"
    with chromium(width, height) as browser:
        browser.get(base + "/")
        browser.find_element(By.LINK_TEXT, "Openings").click()
        assert browser.current_url == base + "/openings"
        assert "Openings" in browser.title
        rows = browser.find_elements(By.CSS_SELECTOR, "table.openings tbody tr")
        assert len(rows) == 2
        text = browser.find_element(By.CSS_SELECTOR, "table.openings").text
        assert "Austria" in text and "Turkey" in text
        assert "3: BUD, TRI, VIE" in text and "A BUD" in text
        lines = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "code.takeover")]
        assert sorted(lines) == ["TAKEOVER austria@vacancy password",
                                 "TAKEOVER turkey@vacancy password"]  # fmt: skip
        source = browser.page_source
        for power in POWERS:
            assert player(power) not in source and secret(power) not in source
        assert MASTER not in source
        screen, wide = overflow(browser)
        assert wide <= screen, f"the openings are {wide} px on a {screen} px screen"
        for cell in browser.find_elements(By.CSS_SELECTOR, "table.openings td"):
            box = cell.rect
            assert box["x"] >= 0 and box["x"] + box["width"] <= screen + 1, cell.text
        shot = tmp_path / f"web-openings-{width}.png"
        browser.save_screenshot(str(shot))
        assert not_blank(shot) > 20
        keep(shot, f"web-openings-{width}.png")
        feed = browser.find_element(By.LINK_TEXT, "Atom feed").get_attribute("href")
        assert feed == base + "/openings.atom"

        answer = takeover_by_mail(
            served, "newcomer@players.test", "TAKEOVER austria@vacancy pw-new-1"
        )
        assert "you now play AUSTRIA in vacancy" in answer
        browser.refresh()
        rows = browser.find_elements(By.CSS_SELECTOR, "table.openings tbody tr")
        assert len(rows) == 1 and "Turkey" in rows[0].text
        browser.find_element(By.LINK_TEXT, "vacancy").click()
        assert browser.current_url == base + "/games/vacancy"

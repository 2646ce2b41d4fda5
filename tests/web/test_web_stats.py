"""/stats on the web: the figures of a simulated year as service/stats.py counts them, the
same as /stats.json and `mailjudge stats`, with their definitions, no address and no
player's own figures; and the page in a real browser (headless chromium), at desk and
phone width."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import html5lib
import pytest
import uvicorn
from helpers.browser import chromium, require_browser
from starlette.testclient import TestClient

from mailjudge.benchmarks.year import Rates, simulate, with_tokens
from mailjudge.config import settings as settings_module
from mailjudge.render.stats import stats_text
from mailjudge.service import stats
from mailjudge.tools.cli import main
from mailjudge.web.app import make_app

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@pytest.fixture
def year(sqlite_db: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """One game year simulated into the test's database; its URL."""
    monkeypatch.setattr(settings_module, "_CURRENT",
                        with_tokens(settings_module.current_settings()))  # fmt: skip
    simulate(games=2, years=1, seed=3, rates=Rates(miss=0.2, abandon=0.0, standin=0.5))
    return sqlite_db


def test_the_page_shows_the_figures_and_what_they_mean(year: str) -> None:
    doc = stats.stats().as_json()
    with TestClient(make_app()) as client:
        page = client.get("/stats")
        served = client.get("/stats.json").json()
        home = client.get("/").text
    assert page.status_code == 200
    html5lib.HTMLParser(strict=True).parse(page.text)
    assert served == doc
    total = doc["total"]
    assert f"{total['seat_phases']} seat-phases owed orders" in page.text
    assert f"{total['nmr']} NMR ({total['nmr_percent']:.1f} %)" in page.text
    for name in doc["definitions"]:
        assert f"<dt>{name}</dt>" in page.text
    for game in ("year0", "year1"):
        assert f">{game}" in page.text
    assert ADDRESS.search(page.text) is None and "players.test" not in page.text
    assert 'href="/stats"' in home


def test_the_command_prints_the_same_figures(
    year: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = stats.stats().as_json()
    config = tmp_path / "stats.toml"
    config.write_text(f'[database]\nurl = "{year}"\n', encoding="utf-8")
    assert main(["stats", "--json", "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    assert main(["stats", "--config", str(config)]) == 0
    text = capsys.readouterr().out
    assert text == stats_text(doc)
    assert f"NMR: {doc['total']['nmr']} ({doc['total']['nmr_percent']:.1f} %)" in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(year: str) -> Iterator[str]:
    require_browser()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.mark.parametrize(("width", "height"), [(1280, 1000), (390, 844)])
def test_a_visitor_reads_the_figures_in_a_browser(served: str, width: int, height: int) -> None:
    from selenium.webdriver.common.by import By

    total = stats.stats().total
    with chromium(width, height) as browser:
        browser.get(served + "/")
        browser.find_element(By.LINK_TEXT, "missed turns").click()
        assert browser.current_url == served + "/stats"
        summary = browser.find_element(By.ID, "summary").text
        assert f"{total.owed} seat-phases owed orders" in summary
        assert f"{total.nmr} NMR" in summary
        assert len(browser.find_elements(By.CSS_SELECTOR, "table.stats")) == 3
        assert ADDRESS.search(browser.page_source) is None
        width_now = browser.execute_script("return document.documentElement.clientWidth")
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width_now, f"the figures are {wide} px on a {width_now} px screen"

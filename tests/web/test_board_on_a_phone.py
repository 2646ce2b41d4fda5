"""The board read on a phone (issue 54, point 1), in a real browser at 390 CSS px: on every
map with a drawing, the game page shows the board at a scale where no label is under 9
CSS px and a unit is a finger's target, in a frame that pans (no script); the page itself
stays as wide as the screen; a close-up of each power's region is linked, and is that
region at full size. The figures per map are printed (`-s`); MAILJUDGE_SCREENSHOTS=DIR
keeps the screenshots (the README's come from it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.browser import as_phone, chromium, require_browser

from mailjudge.benchmarks.sizes import GAME, played_site
from mailjudge.engine.catalogue import map_names
from mailjudge.engine.maps import load_map
from mailjudge.render.board.style import UNIT_RADIUS
from web.test_web_browser import keep

DRAWN = [name for name in map_names() if load_map(name).positions]
SMALLEST_LABEL = 9.0  # CSS px
SMALLEST_UNIT = 16.0  # CSS px across: a fingertip's target, about

MEASURE = """
const svg = document.querySelector('.board svg');
const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')));
document.querySelector('.board').scrollIntoView();
return [scale, Math.min(...sizes) * scale, document.documentElement.clientWidth,
        document.documentElement.scrollWidth, document.querySelector('.board').getBoundingClientRect().width];
"""


@pytest.mark.parametrize("map_name", DRAWN)
def test_the_board_reads_on_a_phone(map_name: str, tmp_path: Path, cheap_scrypt: None) -> None:
    require_browser()
    with played_site(map_name, 1, 1, tmp_path) as (web, _):
        page = tmp_path / "game.html"
        page.write_text(web.get(f"/games/{GAME}").text)
        links = [a for a in page.read_text().split('href="')[1:] if "board.svg?around=" in a]
        assert links, "a close-up of each power's region is linked"
        power = links[0].split("around=", 1)[1].split('"', 1)[0]
        close = web.get(f"/games/{GAME}/board.svg?around={power}")
        assert close.status_code == 200 and 'viewBox="0 0 ' not in close.text[:400]
        assert web.get(f"/games/{GAME}/board.svg?around=NOBODY").status_code == 404
    with chromium(500, 900) as phone:
        as_phone(phone)
        phone.get(page.as_uri())
        scale, label, screen, wide, frame = phone.execute_script(MEASURE)
        shot = tmp_path / f"phone-{map_name}.png"
        phone.save_screenshot(str(shot))
    unit = 2 * UNIT_RADIUS * scale
    print(f"{map_name}: at 390 px, board scale {scale:.2f}, smallest label {label:.1f} px, "
          f"unit {unit:.0f} px")  # fmt: skip
    assert screen == 390 and wide <= screen, "the page is wider than the phone's screen"
    assert frame <= screen, "the board's frame fits the screen; the board pans in it"
    assert label >= SMALLEST_LABEL, f"labels of {label:.1f} CSS px on a phone"
    assert unit >= SMALLEST_UNIT
    if map_name in ("standard", "known_world_901"):
        keep(shot, f"phone-board-{map_name}.png")

"""The results mail's HTML part in a real browser at a phone's width (390 CSS px): nothing
in it is wider than the screen, on the standard map and on the Known World, whose centre
line ran 1,693 px in the ``<pre>`` it had (issue 54)."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from helpers.browser import as_phone, chromium, require_browser
from helpers.played_maps import played_map


@pytest.mark.parametrize("map_name", ["standard", "known_world_901"])
def test_the_results_mail_fits_a_phone(map_name: str, tmp_path: Path, cheap_scrypt: None) -> None:
    require_browser()
    raw = max(played_map(map_name).mails, key=len)
    message = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    html = message.get_body(("html",))
    assert html is not None
    page = tmp_path / "results.html"
    page.write_text(html.get_content())
    with chromium(390, 844) as phone:
        as_phone(phone)
        phone.get(page.as_uri())
        screen = phone.execute_script("return document.documentElement.clientWidth")
        wide = phone.execute_script("return document.documentElement.scrollWidth")
        widest = phone.execute_script(
            "return Math.max(...[...document.querySelectorAll('div')].map(d => d.scrollWidth))"
        )
    assert screen == 390
    assert wide <= screen, f"the mail is {wide} px wide on a {screen} px screen"
    assert widest <= screen

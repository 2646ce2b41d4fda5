"""The results mail's HTML part in a real browser at a phone's width (390 CSS px): nothing
in it is wider than the screen, on the standard map and on the Known World, whose centre
line ran 1,693 px in the ``<pre>`` it had (issue 54)."""

from __future__ import annotations

import base64
import email
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from helpers.browser import as_phone, chromium, require_browser
from helpers.played_maps import played_map

from web.test_web_browser import keep


def shown(message: EmailMessage, html: str) -> str:
    """The HTML part with its inline pictures in place, as a mail client shows it (a file
    in a browser knows no cid: address)."""
    for part in message.walk():
        cid = str(part.get("Content-ID", "")).strip("<>")
        if cid and part.get_content_type() == "image/png":
            data = base64.b64encode(part.get_content()).decode("ascii")
            html = html.replace(f"cid:{cid}", f"data:image/png;base64,{data}")
    return html


@pytest.mark.parametrize("map_name", ["standard", "known_world_901"])
def test_the_results_mail_fits_a_phone(map_name: str, tmp_path: Path, cheap_scrypt: None) -> None:
    require_browser()
    mails = [m for m in played_map(map_name).mails if b"\nTo: gm@" not in m]  # a player's
    message = email.message_from_bytes(max(mails, key=len), policy=policy.default)
    assert isinstance(message, EmailMessage)
    html = message.get_body(("html",))
    assert html is not None
    page = tmp_path / "results.html"
    page.write_text(shown(message, html.get_content()))
    with chromium(390, 844) as phone:
        as_phone(phone)
        phone.get(page.as_uri())
        screen = phone.execute_script("return document.documentElement.clientWidth")
        wide = phone.execute_script("return document.documentElement.scrollWidth")
        shot = tmp_path / f"results-mail-{map_name}.png"
        phone.save_screenshot(str(shot))
        keep(shot, f"phone-results-mail-{map_name}.png")
        widest = phone.execute_script(  # the right edge of every block, frames included
            "return Math.max(...[...document.querySelectorAll('div')]"
            ".map(d => d.getBoundingClientRect().right))"
        )
    assert screen == 390
    assert wide <= screen, f"the mail is {wide} px wide on a {screen} px screen"
    assert widest <= screen

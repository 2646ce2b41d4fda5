"""The results mail's HTML part reads on a phone (issue 54): no ``<pre>`` that keeps a line
as wide as it was written, every line a block that wraps, no word wider than a phone's
screen outside a link (which breaks anywhere), and the phase's web address a link of its
own, never run into the sentence after it, in the HTML part and in the text part."""

from __future__ import annotations

import email
import re
from email import policy
from email.message import EmailMessage

import pytest
from helpers.played_maps import played_map

from mailjudge.benchmarks.sizes import BASE_URL

PHONE = 390  # CSS px: the screen of a common phone
BODY_PADDING = 8  # px each side (results.html.j2)
LETTER = 13 * 0.6  # px: a letter of the 13 px monospace text
LINE = re.compile(r'<div(?: style="padding-left: ([\d.]+)em;")?>(.*?)</div>')
LINK = re.compile(r"<a href=[^>]*>.*?</a>")


def parts(raw: bytes) -> tuple[str, str]:
    message = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    html, text = message.get_body(("html",)), message.get_body(("plain",))
    assert html is not None and text is not None
    return html.get_content(), text.get_content()


def widest_word_px(html: str) -> float:
    """The widest run of letters a line cannot break (its indent included), outside links."""
    widest = 0.0
    for indent, words in LINE.findall(html):
        margin = float(indent or 0) * 13
        for word in LINK.sub(" ", words).split():
            widest = max(widest, margin + len(word) * LETTER)
    return widest


@pytest.mark.parametrize("map_name", ["standard", "known_world_901"])
def test_the_results_html_wraps_at_a_phones_width(map_name: str, cheap_scrypt: None) -> None:
    mails = played_map(map_name).mails
    assert mails
    for raw in mails:
        html, text = parts(raw)
        assert "<pre" not in html
        assert "white-space: pre-wrap" in html and "overflow-wrap: anywhere" in html
        assert 'name="viewport"' in html
        lines = LINE.findall(html)
        assert len(lines) >= len(text.strip().splitlines()) // 2  # the text, line by line
        assert widest_word_px(html) <= PHONE - 2 * BODY_PADDING
        # The longest line of the text would have run this wide in the <pre>.
        longest = max(len(line) for line in text.splitlines())
        assert map_name == "standard" or longest * LETTER > PHONE


@pytest.mark.parametrize("map_name", ["standard"])
def test_the_phase_address_stands_alone(map_name: str, cheap_scrypt: None) -> None:
    game = played_map(map_name)
    phase = game.played[-1]
    address = f"{BASE_URL}/games/sizes/phases/{phase}"
    html, text = parts(game.mails[-1])
    assert f'<a href="{address}">{address}</a></div>' in html
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if address in line)
    assert lines[at].endswith(address)  # nothing after it on its line
    assert lines[at + 1].startswith("The board is drawn")  # the next sentence: its own line


def test_powers_are_headed_by_their_spaced_names(cheap_scrypt: None) -> None:
    """World's FROZENANTARCTICA heads its orders as the map names it, FROZEN ANTARCTICA;
    a code that is its name (FRANCE on the standard map) stays as it is."""
    _, text = parts(played_map("world").mails[-1])
    assert "\nFROZEN ANTARCTICA:" in text and "\nFROZENANTARCTICA:" not in text
    assert "-> FROZENANTARCTICA" not in text and "    FROZENANTARCTICA " not in text
    _, text = parts(played_map("standard").mails[-1])
    assert "\nFRANCE:" in text


@pytest.mark.parametrize("map_name", ["standard", "known_world_901"])
def test_a_player_sees_their_part_of_the_board_close_up(map_name: str, cheap_scrypt: None) -> None:
    """The close-up is the same inline picture in a frame that shows the player's region:
    no second picture in the mail; the master's mail has none."""
    seen = {"player": 0, "master": 0}
    for raw in played_map(map_name).mails:
        message = email.message_from_bytes(raw, policy=policy.default)
        html, _ = parts(raw)
        who = "master" if str(message["To"]).startswith("gm@") else "player"
        framed = re.search(
            r'overflow: hidden;[^>]*><img src="cid:([^"]+)"[^>]*margin: -(\d+)px 0 0 -(\d+)px', html
        )
        if who == "master":
            assert framed is None
            continue
        assert framed is not None and "Your part of the board, close up" in html
        assert html.count(f'src="cid:{framed.group(1)}"') == 2  # the board and its close-up
        assert sum(1 for p in message.walk() if p.get_content_type() == "image/png") == 1
        seen[who] += 1
    assert seen["player"] > 0

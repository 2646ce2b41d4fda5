"""Replies as real mail clients write them (tests/data/replies/: mutt, Thunderbird, Gmail,
Outlook, Apple Mail; English, French, German, Spanish, Italian, Dutch; top and bottom
posted, HTML-only), each sent through the judge's SMTP listener after the orders are on
file: none is answered with an error, and none changes an order it does not name."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e import Harness, player, seated, set_up_game, text_of

from mailjudge.service.state import get_game, orders_on_file

CORPUS = Path(__file__).parent / "data" / "replies"
ORDERS = ["A MAR H", "A PAR - BUR", "F BRE - MAO"]
# The samples whose writer changed an order: the unit's new order, replacing its old one.
CHANGES = {"mutt-interleaved-order": ("A MAR H", "A MAR - SPA"),
           "gmail-order-change": ("A MAR H", "A MAR - SPA")}  # fmt: skip


def samples() -> list[Path]:
    return sorted(CORPUS.glob("*.eml"))


def test_the_corpus_covers_the_common_clients_and_languages() -> None:
    names = {p.stem for p in samples()}
    for client in ("mutt", "thunderbird", "gmail", "outlook", "apple-mail"):
        assert any(n.startswith(client) for n in names), client
    for language in ("fr", "de", "es", "it", "nl"):
        assert any(n.endswith(f"-{language}") for n in names), language
    assert "gmail-html-only" in names and "mutt-bottom" in names


def france_orders() -> list[str]:
    return sorted(line.text for line in orders_on_file(get_game("corpus")).get("FRANCE", []))


@pytest.mark.parametrize("sample", samples(), ids=lambda p: p.stem)
def test_a_reply_from_a_real_client_keeps_the_orders(harness: Harness, sample: Path) -> None:
    h = harness
    set_up_game(h, "corpus")
    table = seated(h, "corpus")
    table.send_orders("FRANCE", ["ORDERS", *ORDERS, "END"])
    assert france_orders() == sorted(ORDERS)
    raw = sample.read_bytes().replace(b"pw-france-7", table.players["FRANCE"].password.encode())
    h.deliver(player("FRANCE"), raw)
    reply = text_of(h.reply(f"<{sample.stem}@players.test>"))
    assert "ERROR" not in reply and "not accepted" not in reply, reply
    expected = list(ORDERS)
    if sample.stem in CHANGES:
        old, new = CHANGES[sample.stem]
        expected[expected.index(old)] = new
    else:
        assert "orders on file are unchanged" in reply, reply
    assert france_orders() == sorted(expected)

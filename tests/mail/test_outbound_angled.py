"""The sender writes MAIL FROM and RCPT TO itself (outbound.send.angled): the same bytes
smtplib would send, for every address, plain or not."""

from __future__ import annotations

import random
import smtplib

from mailjudge.addresses import bounce_address
from mailjudge.outbound.send import angled

CHARACTERS = "abcXYZ09!#$%&'*+/=?^_`{|}~-.@ <>\"()[],;:\\\t"
LOCAL = "abc09!#$%&'*+/=?^_`{|}~-."
DOMAIN = "ab0-."


def test_an_address_is_angled_as_smtplib_quotes_it() -> None:
    known = [
        bounce_address("judge@example.org", 12345, "<abc@example.org>"),
        "alice@example.com", "o'brien+dip@mail.example.co.uk", "Alice <alice@example.com>",
        "<alice@example.com>", '"odd local"@example.com', "alice@[127.0.0.1]", "", " ",
        "alice", "alice@", "@example.com", "a..b@example.com", ".a@example.com",
        "a.@example.com", "alice@example..com", "alice@-example.com", "ALICE@EXAMPLE.COM",
    ]  # fmt: skip
    for address in known:
        assert angled(address) == smtplib.quoteaddr(address), address


def test_random_addresses_are_angled_as_smtplib_quotes_them() -> None:
    draw = random.Random(37)
    for _ in range(20000):
        if draw.random() < 0.5:
            address = "".join(draw.choice(CHARACTERS) for _ in range(draw.randint(1, 12)))
        else:
            local = "".join(draw.choice(LOCAL) for _ in range(draw.randint(1, 8)))
            domain = "".join(draw.choice(DOMAIN) for _ in range(draw.randint(1, 8)))
            address = f"{local}@{domain}"
        assert angled(address) == smtplib.quoteaddr(address), address

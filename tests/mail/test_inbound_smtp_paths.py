"""The listener reads plain MAIL and RCPT addresses itself (inbound.smtp.plain_path): for
every argument it reads, it gives what aiosmtpd's own reading gives, limits included."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest
from aiosmtpd.smtp import SMTP

from mailjudge.inbound.smtp import SpoolHandler, _JudgeLMTP, _JudgeSMTP, plain_path


@pytest.fixture
def sessions() -> Iterator[tuple[SMTP, SMTP]]:
    """The listener's session and aiosmtpd's, on a loop of their own."""
    loop = asyncio.new_event_loop()
    handler = SpoolHandler("judge@example.org")
    try:
        yield _JudgeSMTP(handler, loop=loop), SMTP(handler, loop=loop)
    finally:
        loop.close()


def reading(session: SMTP, arg: str) -> object:
    try:
        return session._getaddr(arg)
    except Exception as err:  # the email package fails on some (aiosmtpd answers 500)
        return type(err)


def same_reading(sessions: tuple[SMTP, SMTP], arg: str) -> bool:
    """Both sessions read ``arg`` alike; True when the plain reading was used."""
    assert reading(sessions[0], arg) == reading(sessions[1], arg), arg
    return plain_path(arg) is not None


PLAIN = [
    "<player@example.com>",
    "<Player.Name+tag@Sub.Example.COM> SIZE=1234 BODY=8BITMIME",
    "<a!#$%&'*+-/=?^_`{|}~z@x.y>\tSMTPUTF8",
    "<judge+game@example.org>   \x0b NOTIFY=NEVER (comment)",
]
OTHER = [
    "",
    "<>",
    "player@example.com",
    "< player@example.com >",
    '<"quoted name"@example.com>',
    "<a..b@example.com>",
    "<.a@example.com>",
    "<a@[192.0.2.1]>",
    "<@relay.example:a@example.com>",
    "<a@example.com>(comment) SIZE=1",
    "<a@example.com>SIZE=1",
    "<a@example.com> ",
    "<a@example.com",
    "<jüdge@example.org>",
    "<a b@example.com>",
]


@pytest.mark.parametrize("arg", PLAIN)
def test_plain_addresses_are_read_as_aiosmtpd_reads_them(
    sessions: tuple[SMTP, SMTP], arg: str
) -> None:
    assert same_reading(sessions, arg)


@pytest.mark.parametrize("arg", OTHER)
def test_other_addresses_are_left_to_aiosmtpd(sessions: tuple[SMTP, SMTP], arg: str) -> None:
    assert not same_reading(sessions, arg)


def test_the_local_part_limit_holds_for_plain_addresses(sessions: tuple[SMTP, SMTP]) -> None:
    for session in sessions:
        session.local_part_limit = 5
    assert same_reading(sessions, "<short@example.com>")
    assert same_reading(sessions, "<longer@example.com>")
    assert sessions[0]._getaddr("<longer@example.com>") == (None, None)


ATEXT = ["a", "Z9", "+", "-", "x.y", ".", "'", "~"]
OTHERS = ["<", ">", "@", " ", "\t", "\x0b", "(", ")", '"', "[", "]", ":", ",", "é", "="]


def random_text(rng: random.Random, most: int) -> str:
    pieces = (rng.choice(ATEXT if rng.random() < 0.85 else OTHERS) for _ in range(most))
    return "".join(pieces)


def test_random_arguments_are_read_as_aiosmtpd_reads_them(sessions: tuple[SMTP, SMTP]) -> None:
    rng = random.Random(37)
    plain = 0
    for _ in range(3000):
        local, domain = random_text(rng, rng.randint(0, 5)), random_text(rng, rng.randint(0, 3))
        tail = rng.choice(["", " ", " SIZE=1", "\t(c) X", "  \x0bBODY=7BIT", "x"])
        plain += same_reading(sessions, f"<{local}@{domain}>{tail}")
    assert plain > 200  # the plain reading was tried, not always left to aiosmtpd


def test_lmtp_sessions_read_addresses_the_same_way() -> None:
    loop = asyncio.new_event_loop()
    try:
        session = _JudgeLMTP(SpoolHandler("judge@example.org", source="lmtp"), loop=loop)
        assert session._getaddr("<a@b.c> X") == ("a@b.c", "X")
    finally:
        loop.close()

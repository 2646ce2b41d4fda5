"""inbound.plain_head reads plain header blocks without the email package: for every
block it answers, its values are those of the parser (parse.header_text), so a mail's
identity (spool.identity) is the same whichever way its headers were read."""

from __future__ import annotations

import random
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from mailjudge.inbound import spool
from mailjudge.inbound.parse import header_text, parse_headers
from mailjudge.inbound.plain_head import plain_header_values

NAMES = ("message-id", "from", "to", "cc", "date", "subject", "x-a", "received", "")


def parsed_values(raw: bytes, names: tuple[str, ...] = NAMES) -> dict[str, str]:
    headers = parse_headers(raw)
    return {name: header_text(headers, name) for name in names}


def assert_as_parsed(raw: bytes) -> bool:
    """The plain reading equals the parser's for every name; True when it answered."""
    plain = plain_header_values(raw)
    if plain is None:
        return False
    names = NAMES + tuple(plain)
    assert {name: plain.get(name, "") for name in names} == parsed_values(raw, names), raw
    return True


def bench_mail() -> bytes:
    msg = EmailMessage()
    msg["From"] = "france@bench.test"
    msg["To"] = "judge@bench.test"
    msg["Subject"] = "orders"
    msg["Message-ID"] = make_msgid(domain="bench.test")
    msg.set_content("SIGNON france@bench pw\nA PAR H\n")
    return msg.as_bytes().replace(b"\n", b"\r\n")


PLAIN = [
    bench_mail(),
    bench_mail().replace(b"\r\n", b"\n"),
    b"From: a@b.c\r\nSubject:  two\r\n  lines\r\n\tand a tab\r\nTo: j@x.org\r\n\r\nbody",
    b"Subject: first\r\nsubject: second\r\nSUBJECT: third\r\n\r\n",
    b"Message-ID:<id@x>\r\nTo:\r\nCc: \r\n\r\n\r\n",
    b"X-A: \x1cfile\x1dseparators\x1f are space\x0b\x0cto split\r\n\r\nbody\r\n",
    b"From: a@b.c\r\nDate: Thu, 26 Nov 2026 07:00:00 +0000\r\n\r\n\r\nFrom x\r\n",
]

NOT_PLAIN = [
    b"Subject: =?utf-8?q?caf=C3=A9?=\r\n\r\nbody",  # an encoded word
    "Subject: café\r\n\r\nbody".encode(),  # 8-bit
    b"Subject: a\rb\r\nTo: j@x.org\r\n\r\nbody",  # a lone CR
    b"Subject: a\nTo: j@x.org\r\n\r\nbody",  # mixed line ends
    b"Subject: no blank line after the header",
    b" folded first\r\nSubject: a\r\n\r\n",
    b"From someone Thu Nov 26 2026\r\nSubject: a\r\n\r\n",  # an mbox separator
    b"Subject: a\r\nnot a field\r\nTo: j@x.org\r\n\r\nbody",
    b": empty name\r\n\r\n",
    b"\r\n\r\nbody only",
]


@pytest.mark.parametrize("raw", PLAIN)
def test_plain_blocks_are_read_as_the_parser_reads_them(raw: bytes) -> None:
    assert assert_as_parsed(raw)


@pytest.mark.parametrize("raw", NOT_PLAIN)
def test_other_blocks_are_left_to_the_parser(raw: bytes) -> None:
    assert plain_header_values(raw) is None


PIECES = [
    b"Subject: ",
    b"subject:",
    b"From: ",
    b"Message-ID: ",
    b"To:",
    b"Cc: ",
    b"X-A: ",
    b"Date:",
    b"<id@x>",
    b"a@b.c",
    b"word",
    b" ",
    b"\t",
    b"  ",
    b"\r\n",
    b"\n",
    b"\r",
    b"\r\n ",
    b"\n\t",
    b":",
    b"=?",
    b"?=",
    b"\x00",
    b"\x1e",
    b"\xc3\xa9",
    b"From ",
    b"<",
    b">",
]


def test_random_header_blocks_read_plainly_agree_with_the_parser() -> None:
    rng = random.Random(37)
    answered = 0
    for _ in range(4000):
        head = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        ending = rng.choice([b"\r\n\r\n", b"\n\n", b"\r\n\r\nbody\r\n", b"\n\nbody\n ", b""])
        raw = head + ending
        answered += assert_as_parsed(raw)
        assert spool.identity(raw) == reference_identity(raw)
    assert answered > 200  # the plain reading was tried, not always left to the parser


def reference_identity(raw: bytes) -> tuple[str | None, str]:
    """spool.identity as it was before the plain reading: every header by the parser."""
    import hashlib

    from mailjudge.inbound.parse import message_id_of
    from mailjudge.store.models import MESSAGE_ID_LENGTH

    headers = parse_headers(raw)
    message_id = message_id_of(header_text(headers, "Message-ID"))
    if message_id is not None and len(message_id) > MESSAGE_ID_LENGTH:
        message_id = None
    digest = hashlib.sha256()
    for name in ("From", "To", "Cc", "Date", "Subject"):
        digest.update(f"{name}: {header_text(headers, name)}\n".encode("utf-8", "replace"))
    digest.update(b"\n")
    body = spool._body(raw)
    digest.update(b"\n".join(line.rstrip() for line in body.splitlines()).rstrip())
    return message_id, digest.hexdigest()


@pytest.mark.parametrize("raw", PLAIN + NOT_PLAIN)
def test_identity_is_the_parsers_either_way(raw: bytes) -> None:
    assert spool.identity(raw) == reference_identity(raw)

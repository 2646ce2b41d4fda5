"""parse_mail reads a plain mail (one text/plain part, a plain header block) without the
email package (parse._plain_mail): for every mail it answers, its headers and body are
those the email package's reading gives (parse._parsed_mail), on the sample mails and
on many random ones."""

from __future__ import annotations

import random
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailjudge.inbound.parse import _parsed_mail, _plain_mail, parse_mail

HERE = Path(__file__).parents[1]  # tests/
SAMPLES = sorted(
    [*HERE.glob("data/replies/**/*.eml"), *Path("/work/shared/mail-samples").glob("**/*.eml")]
)


def agrees(raw: bytes, envelope_from: str | None = "player@x.test") -> bool:
    """The plain reading equals the email package's; True when it answered at all."""
    plain = _plain_mail(raw, envelope_from)
    if plain is None:
        return False
    assert plain == _parsed_mail(raw, envelope_from), raw
    return True


def order_mail(body: str = "SIGNON france@g pw\nA PAR H\n", **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "France <france@bench.test>"
    msg["To"] = "judge@bench.test"
    msg["Subject"] = "orders"
    msg["Message-ID"] = make_msgid(domain="bench.test")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg.as_bytes().replace(b"\n", b"\r\n")


def test_an_order_mail_is_read_plainly_as_the_parser_reads_it() -> None:
    raw = order_mail(Reply_To="other@bench.test", In_Reply_To="<a@b>", References="<a@b> <c@d>")
    assert agrees(raw)
    assert agrees(raw, None)  # the Return-Path header stands in for the envelope
    assert agrees(raw.replace(b"\r\n", b"\n"))
    assert parse_mail(raw).text == "SIGNON france@g pw\nA PAR H"


PLAIN = [
    # Forged and doubled senders: both readings take the same one.
    b"From: a@b.c\r\nFrom: evil@x.y\r\nTo: j@x\r\n\r\nA PAR H\r\n",
    b"From: a@b.c (comment <evil@x.y>)\r\nReply-To: evil@x.y, other@z\r\n\r\nA PAR H\r\n",
    b'From: "evil@x.y" <a@b.c>\r\nReply-To: <evil@x.y>\r\nReply-To: second@z\r\n\r\nhi\r\n',
    b"From: a@b.c\r\nSender: evil@x.y\r\nReturn-Path: <evil@x.y>\r\n\r\nhi\r\n",
    b"From: a@b.c,\r\n evil@x.y\r\nTo: j@x\r\n\r\nhi\r\n",
    b"From:a@b.c\r\nreply-to:   evil@x.y  \r\n\r\nhi\r\n",
    b"From: <>\r\n\r\nhi\r\n",
    b"From: undisclosed-recipients:;\r\n\r\nhi\r\n",
    b"From: a@b.c\r\nMessage-ID: <x@y>\r\nMessage-ID: <z@w>\r\nIn-Reply-To: <1@2> <3@4>\r\n\r\nhi\r\n",
    b"From: a@b.c\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\n\r\nhi\r\n",
    b"From: a@b.c\r\nAuto-Submitted: auto-replied\r\nPrecedence: bulk\r\n\r\nhi\r\n",
    b"From: a@b.c\r\nContent-Type: text/plain; format=flowed; delsp=yes\r\n\r\nA PAR \r\nH\r\n",
    b"From: a@b.c\r\nContent-Type: TEXT/PLAIN;charset=latin1\r\n\r\ncaf\xe9\r\n",
    b'From: a@b.c\r\nContent-Type: text/plain; charset="x-unknown"\r\n\r\n\xff\xfe',
    b"From: a@b.c\r\nContent-Transfer-Encoding: 8bit\r\n\r\nA PAR\rH\r\n",
    b"From: a@b.c\r\nContent-Type: text/plain; charset=utf-16\r\n\r\n\xff\xfeA\x00",
    b"From: x\r\nSender: s@b.c\r\nTo: , j@x.org, <k@x>\r\nCc: L <l@x>\r\n\r\n",
    b"From: a@b.c\n\n\n",
]

NOT_PLAIN = [
    b"From: a@b.c\r\nContent-Type: text/html\r\n\r\n<p>A PAR H</p>",
    b"From: a@b.c\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n\r\nhi\r\n--x--\r\n",
    b"From: a@b.c\r\nContent-Transfer-Encoding: base64\r\n\r\nQSBQQVIgSA==\r\n",
    b"From: a@b.c\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nA=20PAR\r\n",
    b"From: a@b.c\r\nContent-Disposition: attachment\r\n\r\nA PAR H\r\n",
    b'From: a@b.c\r\nContent-Type: text/plain; charset="utf 8"\r\n\r\nA PAR H\r\n',
    b"From: a@b.c\r\nContent-Type: text/plain; charset*=utf-8''x\r\n\r\nA PAR H\r\n",
    b"From: a@b.c\r\nAuthentication-Results: mx; dkim=pass header.d=b.c\r\n\r\nhi\r\n",
    b"Subject: =?utf-8?q?caf=C3=A9?=\r\n\r\nbody",
]


@pytest.mark.parametrize("raw", PLAIN)
def test_plain_mails_are_read_as_the_parser_reads_them(raw: bytes) -> None:
    assert agrees(raw)


@pytest.mark.parametrize("raw", NOT_PLAIN)
def test_other_mails_are_left_to_the_parser(raw: bytes) -> None:
    assert _plain_mail(raw, None) is None


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_mails_agree(path: Path) -> None:
    raw = path.read_bytes()
    agrees(raw)
    agrees(raw.replace(b"\r\n", b"\n"))
    agrees(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


def test_the_samples_hold_plain_mails() -> None:
    answered = 0
    for path in SAMPLES:
        raw = path.read_bytes()
        answered += agrees(raw) + agrees(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert answered >= 20


NAMES = [
    "From", "To", "Cc", "Sender", "Reply-To", "Subject", "Message-ID", "In-Reply-To",
    "References", "Return-Path", "Delivered-To", "X-Original-To", "Auto-Submitted",
    "Precedence", "List-Id", "X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress",
    "Content-Type", "content-type", "Content-Transfer-Encoding", "Content-Disposition",
    "MIME-Version", "Received", "X-Other",
]  # fmt: skip
VALUES = [
    "a@b.c", "A <a@b.c>", '"Q, R" <q@r.s>', "a@b.c, d@e.f", "<a@b.c>", "x", "", " ",
    "text/plain", 'text/plain; charset="utf-8"', "text/plain; charset=iso-8859-1",
    "text/plain;format=flowed", "text/plain; format=flowed; delsp=yes", "text/plain ;",
    "text/html", "text/calendar; method=REPLY", "multipart/report", "text/plain; charset=",
    "text/plain; charset=x-bogus", "text/plain; charset=utf-7", "textplain", "a/b/c",
    "7bit", "8BIT", "binary", "base64", "quoted-printable", "inline", "attachment",
    "<m@x>", "<m@x> <n@y>", "auto-replied", "bulk", "no", "all, autoreply", "list <l.x>",
    "ÿ", "=?utf-8?q?x?=", "a\r\n b", "a\r\n\tb  c", "(comment) a@b.c", "a@b.c (Name)",
    "undisclosed-recipients:;", "Group: a@b.c, c@d.e;", "mailer-daemon@x.y",
]  # fmt: skip
BODIES = [
    b"", b"A PAR H\r\n", b"A PAR \r\nH\r\n", b"caf\xc3\xa9\r\n", b"caf\xe9\n", b"a\rb\r\n",
    b"SIGNON france@g pw\r\n> quoted\r\n-- \r\nsig\r\n", b"\x00\xff", b" space-stuffed\r\n",
    b"--x\r\n\r\nhi\r\n--x--\r\n", b"QSBQQVIgSA==\r\n", b"A=20PAR=\r\nH\r\n",
]  # fmt: skip


def random_mail(rng: random.Random) -> bytes:
    newline = rng.choice([b"\r\n", b"\n"])
    lines = [
        f"{rng.choice(NAMES)}:{rng.choice(['', ' ', '  '])}{rng.choice(VALUES)}".encode()
        for _ in range(rng.randint(0, 9))
    ]
    head = newline.join(lines).replace(b"\r\n", newline)
    return head + newline + newline + rng.choice(BODIES)


def test_random_mails_read_plainly_agree_with_the_parser() -> None:
    rng = random.Random(37)
    answered = sum(agrees(random_mail(rng), rng.choice([None, "e@f.g"])) for _ in range(3000))
    assert answered > 500  # the plain reading was tried, not always left to the parser


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(BODIES))
def test_any_bytes_read_plainly_agree_with_the_parser(head: bytes, body: bytes) -> None:
    agrees(b"From: a@b.c\r\n" + head + b"\r\n\r\n" + body)
    agrees(head + b"\n\n" + body)

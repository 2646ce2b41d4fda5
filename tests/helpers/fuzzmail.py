"""Hypothesis strategies for raw mail as the outside world writes it (malformed headers,
bodies over the size limit, wrong and unknown charsets, broken base64 and
quoted-printable, nested multipart, HTML only, automatic and list mail, no From), and
the check that runs one through the judge's real inbound path: stored in the spool,
processed in its transaction, the answer queued and rendered as it would be sent.

`expect_answer` is what the mail's makings say (RFC 3834: automatic, list or bulk mail
and bounces get no answer; nor does a mail with nobody to answer), not what the judge
decides, so that the check can disagree with it.
"""

from __future__ import annotations

import base64
import email
import email.policy
import itertools
from dataclasses import dataclass

from hypothesis import strategies as st

from mailjudge.app import pipeline
from mailjudge.config.settings import Settings
from mailjudge.inbound import spool
from mailjudge.outbound.outbox import render_draft
from mailjudge.store.models import InboundMessage, Outbox

JUDGE = "judge@example.test"
LIMIT = 256 * 1024
_serial = itertools.count()


@dataclass(frozen=True)
class FuzzMail:
    raw: bytes
    envelope_from: str
    expect_answer: bool


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
_commands = st.lists(
    st.sampled_from(
        ["HELP", "LIST", "SIGNON france@nogame pw", "A PAR - BUR", "JOIN x", "VOTE OUT X 3",
         "> quoted HELP", "-- ", "// comment", "PRESS TO ALL", "ENDPRESS", "\u00a0HELP\u200b"]
    ) | _text,
    max_size=12,
).map("\n".join)  # fmt: skip
_charset = st.sampled_from(["utf-8", "iso-8859-1", "windows-1252", "x-unknown-8", "utf-16", ""])


@st.composite
def _part(draw: st.DrawFn, depth: int = 0) -> bytes:
    """One MIME part (headers and body), maybe multipart with parts of its own."""
    kind = draw(st.sampled_from(["plain", "html", "multipart", "binary"] if depth < 3 else
                                ["plain", "html"]))  # fmt: skip
    if kind == "multipart":
        boundary = f"b{depth}{draw(st.integers(0, 999))}"
        parts = draw(st.lists(_part(depth + 1), min_size=0, max_size=3))
        subtype = draw(st.sampled_from(["alternative", "mixed", "related", "weird"]))
        body = b"".join(b"--" + boundary.encode() + b"\r\n" + p + b"\r\n" for p in parts)
        closing = draw(st.booleans())  # a missing closing boundary is common
        body += (b"--" + boundary.encode() + b"--\r\n") if closing else b""
        head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n'
        return head.encode() + b"\r\n" + body
    text = draw(_commands)
    if kind == "html":
        text = f"<html><body><p>{text.replace(chr(10), '<br>')}</p><script>x</script></body></html>"
    charset = draw(_charset)
    data = text.encode(charset if charset and charset != "x-unknown-8" else "utf-8", "replace")
    if kind == "binary":
        data = draw(st.binary(max_size=300))
    encoding = draw(st.sampled_from(["7bit", "8bit", "base64", "quoted-printable", "x-uuencode"]))
    if encoding == "base64":
        data = base64.encodebytes(data)
        if draw(st.booleans()):  # broken base64
            data = data[: max(0, len(data) - draw(st.integers(1, 5)))] + b"!*"
    elif encoding == "quoted-printable" and draw(st.booleans()):
        data += b"=ZZ=\r\n=4"  # broken escapes
    subtype = {"plain": "text/plain", "html": "text/html", "binary": "application/octet-stream"}
    ctype = subtype[kind] + (f'; charset="{charset}"' if charset else "")
    head = f"Content-Type: {ctype}\r\nContent-Transfer-Encoding: {encoding}\r\n"
    return head.encode() + b"\r\n" + data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


@st.composite
def fuzz_mails(draw: st.DrawFn) -> FuzzMail:
    # A fresh Message-ID each time (hypothesis makes like mails often, and the spool rightly
    # stores a mail it has seen once), first: a broken line further down (a bare CR in the
    # Subject) may end the header early, and the answer must still name what it answers.
    headers: list[bytes] = [f"Message-ID: <fuzz{next(_serial)}@players.test>".encode()]
    has_from = draw(st.integers(0, 9)) > 0
    if has_from:
        name = draw(
            st.sampled_from(["", "Ann", "=?utf-8?b?w4lsw6ls?=", "=?x-bogus?q?=FF?=", '"A, B"'])
        )
        headers.append(f"From: {name} <player{draw(st.integers(0, 20))}@players.test>".encode())
    headers.append(
        f"To: {draw(st.sampled_from([JUDGE, 'judge+game@example.test', '<<>>', '']))}".encode()
    )
    subject = draw(
        st.sampled_from(["orders", "=?utf-8?q?caf=C3=A9?=", "=?bad?B?####?=", ""]) | _text
    )
    loop = False
    auto = draw(st.sampled_from(["no", "auto-replied", "auto-generated", "Auto-Notified; x"]))
    auto = auto if draw(st.integers(0, 4)) == 0 else None
    if auto is not None:
        headers.append(f"Auto-Submitted: {auto}".encode())
        loop |= auto != "no"
    precedence = draw(st.sampled_from(["bulk", "list", "junk", "first-class"]))
    precedence = precedence if draw(st.integers(0, 4)) == 0 else None
    if precedence is not None:
        headers.append(f"Precedence: {precedence}".encode())
        loop |= precedence in ("bulk", "list", "junk")
    if draw(st.integers(0, 9)) == 0:
        headers.append(b"List-Id: <players.lists.test>")
        loop = True
    junk = draw(st.sampled_from([b"", b"This line has no colon", b"X-Long: " + b"y" * 3000,
                                 b"Date: yesterday-ish", b"X-8bit: \xff\xfe\x80"]))  # fmt: skip
    if junk:
        headers.append(junk)
    # Last but MIME: a bare CR in it ends the header for the parser (an open finding: the
    # headers after it, loop markers included, go unseen).
    headers.append(b"Subject: " + subject.encode("utf-8", "replace").replace(b"\n", b" "))
    headers.append(b"MIME-Version: 1.0")
    body = draw(_part())
    if draw(st.integers(0, 14)) == 0:  # over the size limit
        body += b"\r\n" + b"A PAR H\r\n" * (LIMIT // 9 + draw(st.integers(1, 2000)))
    envelope_from = "" if draw(st.integers(0, 14)) == 0 else "player@players.test"
    loop |= envelope_from == ""
    raw = b"\r\n".join(headers) + b"\r\n" + body
    return FuzzMail(raw, envelope_from, expect_answer=has_from and not loop)


def check_one(mail: FuzzMail, settings: Settings) -> str:
    """Through the spool and the pipeline; 'answered', 'silent' or 'duplicate' (a mail
    hypothesis made twice, stored once). Raises AssertionError on anything else."""
    row, new = spool.store(mail.raw, mail.envelope_from, [JUDGE], "smtp")
    if not new:
        return "duplicate"

    def handle(stored: InboundMessage, prepared: object = None) -> None:
        pipeline.handle(stored, settings, prepared=prepared)  # type: ignore[arg-type]

    spool.process_pending(handle, prepare=lambda stored: pipeline.prepare(stored, settings))
    done = InboundMessage.get_by_id(row.id)
    assert done.state == "done", f"the mail was {done.state}: {done.error}"
    replies = list(Outbox.select().where(Outbox.inbound == row.id))
    assert len(replies) == (1 if mail.expect_answer else 0), [r.subject for r in replies]
    for reply in replies:
        raw = render_draft(reply.draft) if reply.draft is not None else reply.raw
        sent = email.message_from_bytes(raw, policy=email.policy.default)
        assert sent["In-Reply-To"] and sent["Auto-Submitted"] == "auto-replied"
        assert sent["To"]
    return "answered" if replies else "silent"

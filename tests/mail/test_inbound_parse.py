"""Reading players' mail: the command text, the headers an answer needs, loop safety,
and never a crash on whatever arrives."""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailjudge.addresses import is_judge_address, judge_detail
from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.parse import (
    MailLimitError,
    MailTooLarge,
    ParsedMail,
    TooManyLines,
    parse_mail,
    return_path_header,
)
from mailjudge.inbound.silence import silence_reason
from mailjudge.inbound.spool import identity

JUDGE = "judge@example.org"


def mail(body: str | bytes, *, headers: str = "", content_type: str = "text/plain") -> bytes:
    head = (
        "From: Alice Player <Alice@Example.COM>\r\n"
        "To: judge@example.org\r\n"
        "Subject: orders\r\n"
        "Message-ID: <m1@example.com>\r\n"
        f"Content-Type: {content_type}\r\n"
        f"{headers}\r\n"
    ).encode()
    return head + (body.encode() if isinstance(body, str) else body)


# -- the command text ---------------------------------------------------------------------


def test_quotes_signature_and_comments_are_left_out() -> None:
    body = (
        "\r\n"
        "SIGNON Fivory secret\r\n"
        "// my opening, do not tell anyone\r\n"
        "A PAR - BUR\r\n"
        "   > quoted with a space before it\r\n"
        "> On Monday the judge wrote:\r\n"
        ">> A PAR - PIC\r\n"
        "F BRE - MAO\r\n"
        "\r\n"
        "-- \r\n"
        "Alice, Paris\r\n"
        "A MAR - SPA\r\n"
    )
    parsed = parse_mail(mail(body))
    assert parsed.text == "SIGNON Fivory secret\nA PAR - BUR\nF BRE - MAO"


def test_signature_line_without_its_trailing_space_still_ends_the_commands() -> None:
    assert parse_mail(mail("HELP\n--\nsent from my phone\n")).text == "HELP"


def test_invisible_characters_and_non_breaking_spaces_are_cleaned() -> None:
    raw = mail(
        "\ufeffA PAR\u00a0-\u00a0BUR\u200b\n".encode(), content_type="text/plain; charset=utf-8"
    )
    assert parse_mail(raw).text == "A PAR - BUR"


def test_format_flowed_lines_are_joined() -> None:
    body = "PRESS TO FRANCE\r\nLet us split the Low \r\nCountries, you and I.\r\nENDPRESS\r\n"
    parsed = parse_mail(mail(body, content_type="text/plain; format=flowed"))
    assert parsed.text.splitlines() == [
        "PRESS TO FRANCE",
        "Let us split the Low Countries, you and I.",
        "ENDPRESS",
    ]


def test_first_plain_part_wins_over_html_and_attachments() -> None:
    body = (
        "--b1\r\nContent-Type: multipart/alternative; boundary=b2\r\n\r\n"
        "--b2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA PAR - BUR\r\n"
        "--b2\r\nContent-Type: text/html\r\n\r\n<p>A PAR - PIC</p>\r\n--b2--\r\n"
        "--b1\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=x.txt\r\n"
        "\r\nA PAR - GAS\r\n--b1--\r\n"
    )
    raw = mail(body, content_type='multipart/mixed; boundary="b1"')
    assert parse_mail(raw).text == "A PAR - BUR"


def test_attachment_only_plain_part_is_not_read() -> None:
    body = (
        "--b1\r\nContent-Type: text/html\r\n\r\n<div>STATUS</div>\r\n"
        "--b1\r\nContent-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\nHELP\r\n"
        "--b1--\r\n"
    )
    assert parse_mail(mail(body, content_type="multipart/mixed; boundary=b1")).text == "STATUS"


def test_html_only_mail_is_converted() -> None:
    html = (
        "<html><head><title>t</title><style>p {color: red}</style></head><body>"
        "<div>SIGNON Fivory secret</div><div>A PAR&nbsp;-&gt; BUR<br>F   BRE\n - MAO</div>"
        "<p>PRESS TO ENGLAND</p><p>Caf&eacute; &amp; croissants</p><p>ENDPRESS</p>"
        "<script>alert('x')</script>"
        "<blockquote>On Monday the judge wrote: A PAR - PIC</blockquote></body></html>"
    )
    parsed = parse_mail(mail(html, content_type="text/html; charset=utf-8"))
    assert parsed.text.splitlines() == [
        "SIGNON Fivory secret",
        "A PAR -> BUR",
        "F BRE - MAO",
        "PRESS TO ENGLAND",
        "Café & croissants",
        "ENDPRESS",
    ]


def test_html_to_text_keeps_preformatted_lines() -> None:
    assert html_to_text("<pre>A PAR - BUR\nF BRE - MAO</pre>after").splitlines() == [
        "A PAR - BUR",
        "F BRE - MAO",
        "after",
    ]


@pytest.mark.parametrize(
    ("charset", "encoded"),
    [
        ("iso-8859-1", "Zürich élève".encode("iso-8859-1")),
        ("windows-1252", "“Zürich” – élève".encode("windows-1252")),
        ("koi8-r", "Москва".encode("koi8-r")),
        ("shift_jis", "東京".encode("shift_jis")),
        ("utf-8", "Zürich ✓".encode()),
    ],
)
def test_declared_charsets_are_decoded(charset: str, encoded: bytes) -> None:
    parsed = parse_mail(mail(encoded, content_type=f"text/plain; charset={charset}"))
    assert parsed.text == encoded.decode(charset)


def test_transfer_encodings_are_undone() -> None:
    b64 = base64.b64encode("A PAR – BUR\n".encode()).decode()
    raw = mail(
        b64,
        content_type="text/plain; charset=utf-8",
        headers="Content-Transfer-Encoding: base64\r\n",
    )
    assert parse_mail(raw).text == "A PAR – BUR"
    qp = mail(
        "Caf=C3=A9 =3D ok=\r\n, fine\r\n",
        content_type="text/plain; charset=utf-8",
        headers="Content-Transfer-Encoding: quoted-printable\r\n",
    )
    assert parse_mail(qp).text == "Café = ok, fine"


def test_bad_bytes_and_unknown_charsets_are_replaced_not_fatal() -> None:
    for charset in ("x-no-such-charset", "base64", "utf-8", "us-ascii", '"'):
        raw = mail(b"A PAR - BUR \xff\xfe\n", content_type=f"text/plain; charset={charset}")
        text = parse_mail(raw).text
        assert text.startswith("A PAR - BUR")
        text.encode("utf-8")  # no surrogates left


def test_no_text_at_all_gives_empty_text() -> None:
    raw = mail(b"\x89PNG...", content_type="image/png")
    assert parse_mail(raw).text == ""


# -- headers ------------------------------------------------------------------------------


def test_headers_an_answer_needs() -> None:
    headers = (
        "Reply-To: =?utf-8?q?Alice_=C3=A0_la_maison?= <alice@home.example>\r\n"
        "Cc: Bob <bob@example.com>, judge+ivory@example.org\r\n"
        "In-Reply-To: <r1@example.org>\r\n"
        "References: <r0@example.org>\r\n <r1@example.org>\r\n"
        "Delivered-To: judge+ivory@example.org\r\n"
    )
    raw = mail("HELP", headers=headers).replace(
        b"Subject: orders", b"Subject: =?iso-8859-1?q?ordres_=E9t=E9?=\r\n\tfor ivory"
    )
    parsed = parse_mail(raw, envelope_from="alice@example.com")
    assert parsed.sender == "alice@example.com"
    assert parsed.sender_name == "Alice Player"
    assert parsed.reply_to == "alice@home.example"
    assert parsed.return_path == "alice@example.com"
    assert parsed.to == ("judge@example.org", "bob@example.com", "judge+ivory@example.org")
    assert parsed.delivered_to == ("judge+ivory@example.org",)
    assert parsed.subject == "ordres été for ivory"
    assert parsed.message_id == "<m1@example.com>"
    assert parsed.in_reply_to == "<r1@example.org>"
    assert parsed.references == ("<r0@example.org>", "<r1@example.org>")
    assert parsed.reply_references == ("<r0@example.org>", "<r1@example.org>", "<m1@example.com>")


def test_raw_utf8_headers_are_read() -> None:
    raw = mail("HELP").replace(b"Subject: orders", "Subject: Ordres pour l'été".encode())
    assert parse_mail(raw).subject == "Ordres pour l'été"


def test_message_id_without_brackets_is_normalised() -> None:
    raw = mail("HELP").replace(b"<m1@example.com>", b" m1@example.com ")
    assert parse_mail(raw).message_id == "<m1@example.com>"


def test_return_path_from_envelope_or_header() -> None:
    raw = mail("HELP", headers="Return-Path: <Bounce@Example.com>\r\n")
    assert parse_mail(raw).return_path == "bounce@example.com"
    assert parse_mail(raw, envelope_from="").return_path == ""
    assert return_path_header(raw) == "bounce@example.com"
    assert return_path_header(mail("HELP", headers="Return-Path: <>\r\n")) == ""
    assert parse_mail(mail("HELP")).return_path is None


# -- limits -------------------------------------------------------------------------------


def test_too_large_mail_raises_with_headers_for_the_reply() -> None:
    raw = mail("A PAR - BUR\n" * 100)
    with pytest.raises(MailTooLarge) as caught:
        parse_mail(raw, max_bytes=1000)
    assert caught.value.mail.sender == "alice@example.com"
    assert caught.value.mail.message_id == "<m1@example.com>"
    assert "1000 bytes" in str(caught.value)
    assert parse_mail(raw, max_bytes=len(raw)).text.count("A PAR") == 100


def test_too_many_command_lines_raises() -> None:
    body = "A PAR - BUR\n\n" * 11 + "> quoted lines do not count\n" * 50
    with pytest.raises(TooManyLines) as caught:
        parse_mail(mail(body), max_lines=10)
    assert "11 command lines" in str(caught.value) and "at most 10" in str(caught.value)
    assert caught.value.mail.subject == "orders"
    assert len(parse_mail(mail(body), max_lines=11).text.splitlines()) == 21


# -- loop safety --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "envelope_from", "reason"),
    [
        ("Auto-Submitted: auto-replied\r\n", None, "Auto-Submitted: auto-replied"),
        ("Auto-Submitted: Auto-Generated; owner-email=x@y\r\n", None, "auto-generated"),
        ("Precedence: bulk\r\n", None, "Precedence: bulk"),
        ("Precedence: List\r\n", None, "Precedence: list"),
        ("Precedence: junk\r\n", None, "Precedence: junk"),
        ("List-Id: Ivory France <france.ivory.example.org>\r\n", None, "List-Id"),
        ("", "", "empty"),
        ("Return-Path: <>\r\n", None, "empty"),
    ],
)
def test_automatic_mail_is_never_answered(
    headers: str, envelope_from: str | None, reason: str
) -> None:
    parsed = parse_mail(mail("HELP", headers=headers), envelope_from=envelope_from)
    found = silence_reason(parsed, JUDGE)
    assert found is not None and reason in found


def test_mail_from_the_judge_itself_is_never_answered() -> None:
    for sender in ("judge@example.org", "Judge+Ivory@EXAMPLE.org"):
        raw = mail("HELP").replace(b"Alice Player <Alice@Example.COM>", sender.encode())
        assert "judge's own address" in (silence_reason(parse_mail(raw), JUDGE) or "")


def test_bounces_and_reports_are_never_answered() -> None:
    raw = mail("x", content_type="multipart/report; report-type=delivery-status; boundary=z")
    assert "report" in (silence_reason(parse_mail(raw), JUDGE) or "")
    daemon = mail("x").replace(b"Alice Player <Alice@Example.COM>", b"MAILER-DAEMON@mx.example")
    assert silence_reason(parse_mail(daemon), JUDGE) is not None


def test_ordinary_mail_is_answered() -> None:
    parsed = parse_mail(
        mail("HELP", headers="Auto-Submitted: no\r\nPrecedence: normal\r\n"),
        envelope_from="alice@example.com",
    )
    assert silence_reason(parsed, JUDGE) is None


def test_judge_addresses() -> None:
    assert judge_detail("Judge@Example.ORG", JUDGE) == ""
    assert judge_detail("judge+Ivory@example.org", JUDGE) == "ivory"
    assert judge_detail("<judge+a+b@example.org>", JUDGE) == "a+b"
    assert judge_detail("judge+@example.org", JUDGE) is None
    assert judge_detail("judges@example.org", JUDGE) is None
    assert judge_detail("judge@example.org.evil", JUDGE) is None
    assert not is_judge_address("judge", JUDGE)


# -- never a crash --------------------------------------------------------------------------

_CHARSETS = st.sampled_from(
    ["utf-8", "iso-8859-1", "koi8-r", "x-unknown", "utf-16", "base64", "idna", "", '"', "utf-7"]
)
_HEADER_NAMES = st.sampled_from(
    [
        "From",
        "To",
        "Cc",
        "Reply-To",
        "Subject",
        "Message-ID",
        "References",
        "In-Reply-To",
        "Return-Path",
        "Auto-Submitted",
        "Precedence",
        "List-Id",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Content-Disposition",
        "Delivered-To",
    ]
)
_NASTY_VALUES = st.sampled_from(
    [
        "=?utf-8?b?!!!?=",
        "=?x-bogus?q?caf=E9?=",
        "=?utf-8?q?unterminated",
        "<<<>>>",
        '"unclosed <a@b',
        "@@@",
        "multipart/mixed; boundary=",
        'multipart/alternative; boundary="zz"',
        "text/html; charset*=utf-8''%ff%fe",
        "text/plain; format=flowed; delsp=yes",
        "message/rfc822",
        "base64",
        "quoted-printable",
        "x-uuencode",
        "attachment; filename*=x''bad",
        "",
    ]
)
_BODY_PIECES = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from(
        [
            b"--zz\r\nContent-Type: text/plain\r\n\r\nA PAR - BUR\r\n",
            b"--zz\r\nContent-Type: text/html; charset=koi8-r\r\n\r\n<p>\xc1\xc2<br><b>x",
            b"--zz\r\nContent-Type: multipart/mixed; boundary=zz\r\n\r\n",
            b"--zz--\r\n",
            b"<html><body><blockquote><div>",
            b"</pre></pre><script>",
            b"=\r\n=ZZ=4",
            b"> quoted\r\n-- \r\nsig\r\n// note\r\n",
            b"begin 644 x\r\n`\r\nend\r\n",
            b"\r\n.\r\n",
        ]
    ),
)


@st.composite
def malformed_mail(draw: st.DrawFn) -> bytes:
    headers = draw(
        st.lists(
            st.tuples(_HEADER_NAMES, st.one_of(_NASTY_VALUES, st.text(max_size=60))),
            max_size=10,
        )
    )
    charset = draw(_CHARSETS)
    kind = draw(st.sampled_from(["text/plain", "text/html", "multipart/mixed", "", "x/y"]))
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    if kind:
        head += f'Content-Type: {kind}; charset="{charset}"; boundary="zz"\r\n'
    if draw(st.booleans()):
        head += "Content-Transfer-Encoding: " + draw(_NASTY_VALUES) + "\r\n"
    body = b"".join(draw(st.lists(_BODY_PIECES, max_size=8)))
    separator = draw(st.sampled_from([b"\r\n", b"\n", b""]))
    return head.encode("utf-8", "surrogatepass") + separator + body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(malformed_mail(), st.binary(max_size=600)))
def test_any_bytes_parse_without_crashing(raw: bytes) -> None:
    try:
        parsed = parse_mail(raw, max_bytes=4000, max_lines=40)
    except MailLimitError as exc:
        parsed = exc.mail
    assert isinstance(parsed, ParsedMail)
    for text in (parsed.text, parsed.subject, parsed.sender, parsed.reply_to, parsed.list_id):
        text.encode("utf-8")  # clean text: nothing undecoded is passed on
    silence_reason(parsed, JUDGE)
    return_path_header(raw)
    message_id, body_hash = identity(raw)  # what the spool stores it under
    assert len(body_hash) == 64 and (message_id is None or message_id.startswith("<"))


def test_deeply_nested_multiparts_do_not_crash() -> None:
    depth = 3000
    opening = b"".join(
        b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (i, i + 1)
        for i in range(depth)
    )
    raw = mail(
        opening + b"--b%d\r\nContent-Type: text/plain\r\n\r\nHELP\r\n" % depth,
        content_type="multipart/mixed; boundary=b0",
    )
    parsed = parse_mail(raw, max_bytes=len(raw))
    assert parsed.sender == "alice@example.com"  # the headers survive for the answer
    assert parsed.text in ("HELP", "")


def test_a_lone_cr_in_a_header_hides_no_header_after_it() -> None:
    raw = (
        b"From: robot@example.org\r\nSubject: out of\roffice\r\nMessage-ID: <cr@example.org>\r\n"
        b"Auto-Submitted: auto-replied\r\nList-Id: <l.example.org>\r\n\r\nHELP\r\n"
    )
    mail = parse_mail(raw)
    assert mail.message_id == "<cr@example.org>"
    assert mail.auto_submitted == "auto-replied" and mail.list_id == "<l.example.org>"
    assert mail.subject == "out of office" and mail.text == "HELP"

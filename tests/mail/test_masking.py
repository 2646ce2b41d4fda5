"""Passwords masked in the stored copy of a mail, whatever its form."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from mailjudge.secrecy.masking import mask_mail, mask_text


def test_a_plain_mail_is_masked_byte_for_byte_elsewhere() -> None:
    raw = (b"From: a@example.org\r\nSubject: orders \xc3\xa9\r\n\r\n"
           b"SIGNON france@g s3cret\r\nA PAR H\r\nmerci \xc3\xa9\r\n")  # fmt: skip
    masked = mask_mail(raw)
    assert b"s3cret" not in masked and b"SIGNON france@g ****" in masked
    assert masked.replace(b"****", b"s3cret") == raw  # nothing else moved
    assert (
        mask_mail(b"From: a@example.org\r\n\r\nLIST\r\n") == b"From: a@example.org\r\n\r\nLIST\r\n"
    )


def test_a_multipart_base64_mail_is_masked_in_every_text_part() -> None:
    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg.set_content("JOIN g hunter2 FRANCE\n", charset="utf-8", cte="base64")
    msg.add_alternative("<p>\nSET PASSWORD hunter3\n</p>\n", subtype="html", cte="base64")
    masked = message_from_bytes(mask_mail(msg.as_bytes()), policy=policy.default)
    texts = [part.get_content() for part in masked.walk() if part.get_content_maintype() == "text"]
    assert len(texts) == 2 and "JOIN g **** FRANCE" in texts[0]
    assert "hunter2" not in "".join(texts) and "hunter3" not in "".join(texts)
    assert mask_text("SET PASSWORD hunter3") == "SET PASSWORD ****"


def test_every_word_after_the_name_on_a_signon_line_is_masked() -> None:
    """A typo (SIGNON austria vic pw) must not show the password: the reader takes vic
    for it, the person meant pw."""
    assert mask_text("SIGNON austria vic s3cret") == "SIGNON austria **** ****"
    assert mask_text("signon france@g s3cret extra") == "signon france@g **** ****"
    # JOIN keeps what follows its password: the power asked for and the name
    assert mask_text("JOIN g hunter2 FRANCE AS bob") == "JOIN g **** FRANCE AS bob"


def test_invisible_characters_quote_marks_and_spacing_do_not_hide_a_command() -> None:
    for line in (
        "\u200bSIGNON france@g s3cret",
        "\u2062\u200e  SIGNON france@g s3cret",
        "SIG\u200bNON france@g s3cret",
        "\tsign on france@g s3cret",
        "> SIGNON france@g s3cret",
        "SIGNON\u00a0france@g\u00a0s3cret",
        "SIGNON=france@g s3cret",
        "SIGNON: france@g s3cret",
        "SIGN ON = france@g s3cret",
        "SIGNON\nfrance@g\ns3cret",
        "SIGNON france@g\n\ns3cret",
        "RESIGN russia@g s3cret",
        "SET PASSWORD s3cret",
        "SET PASSWORD=s3cret",
        "TAKEOVER russia@g s3cret",
        "OBSERVE me@g s3cret",
        "CREATE g s3cret VARIANT standard",
        "ACCEPT g s3cret AS bob",
    ):
        masked = mask_text(line)
        assert "s3cret" not in masked and "****" in masked, line


def test_text_without_passwords_is_left_alone() -> None:
    for text in ("A PAR H\nF BRE - MAO\n", "JOINED the game late\n", "\n" * 50, "", "a@b.c x"):
        assert mask_text(text) == text


def test_an_html_only_mail_is_masked_in_its_markup() -> None:
    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg.set_content(
        "<html><body><div>SIGNON&nbsp;austria@g&nbsp;s3cret</div>"
        "<p>SIGNON austria vic hunter2</p><p>A VIE H</p></body></html>\n",
        subtype="html",
    )
    masked = mask_mail(msg.as_bytes())
    text = message_from_bytes(masked, policy=policy.default).get_body().get_content()  # type: ignore[union-attr]
    assert "s3cret" not in text and "hunter2" not in text and "vic" not in text
    assert "A VIE H" in text and "SIGNON" in text


def test_a_utf16_body_is_masked() -> None:
    body = "SIGNON france@g s3cret\r\nA PAR H\r\n".encode("utf-16")
    raw = (
        b"From: a@example.org\r\nContent-Type: text/plain; charset=utf-16\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\n" + body
    )
    masked = message_from_bytes(mask_mail(raw), policy=policy.default)
    text = masked.get_content()  # type: ignore[attr-defined]
    assert "s3cret" not in text and "SIGNON france@g ****" in text and "A PAR H" in text


def test_a_latin1_mail_keeps_its_bytes_and_loses_its_password() -> None:
    raw = (
        b"From: a@example.org\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\n"
        b"SIGNON\xa0france@g s3cret\r\nmerci \xe9\r\n"
    )
    masked = mask_mail(raw)
    assert b"s3cret" not in masked and masked.replace(b"****", b"s3cret") == raw


def test_a_password_many_blank_lines_after_its_signon_is_masked() -> None:
    """Issue 38: the old pattern crossed lines with \\s* and took 256 s on 40,000 blank
    lines (test_linear_time measures the growth); a line at a time, the password after
    them is still found."""
    raw = b"From: a@example.org\r\n\r\nSIGNON france@g\r\n" + b"\r\n" * 40_000 + b"s3cret"
    assert mask_mail(raw) == raw.replace(b"s3cret", b"****")


def test_a_password_in_the_subject_is_masked_in_the_stored_copy() -> None:
    raw = b"From: a@example.org\r\nSubject: SIGNON france@g s3cret\r\n\r\nA PAR H\r\n"
    assert mask_mail(raw) == raw.replace(b"s3cret", b"****")
    encoded = b"From: a@example.org\r\nSubject: =?utf-8?q?SIGNON_france@g_s3cret?=\r\n\r\nx\r\n"
    assert b"s3cret" not in mask_mail(encoded) and b"SIGNON france@g ****" in mask_mail(encoded)

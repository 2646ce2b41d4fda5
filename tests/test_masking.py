"""Passwords masked in the stored copy of a mail, whatever its form."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from mailjudge.masking import mask_mail, mask_text


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

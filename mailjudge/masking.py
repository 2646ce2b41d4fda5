"""Passwords out of sight: in what the judge echoes back, and in the stored copy of a mail
once it is parsed. Every spelling the command reader tolerates is covered (SIGNON, SIGN ON,
SIGNON= or SIGNON: with the password after them; JOIN, CREATE, OBSERVE, TAKEOVER, ACCEPT;
SET PASSWORD)."""

from __future__ import annotations

import re
from email import policy
from email.message import Message
from email.parser import BytesParser

MASK = "****"
_COMMAND = r"(?:SIGN\s*ON|JOIN|CREATE|OBSERVE|TAKEOVER|ACCEPT)"
_PATTERNS = (
    # The password is the word after the name: SIGNON france@game pw, JOIN game pw ...
    re.compile(rf"^(\s*{_COMMAND}\s*[=:]?\s*\S+\s+)(\S+)", re.IGNORECASE | re.MULTILINE),
    re.compile(r"^(\s*SET\s+PASSWORD\s*[=:]?\s*)(\S+)", re.IGNORECASE | re.MULTILINE),
    # Any other line with a seat name@game (a game has no dot, a mail domain has) and a
    # word after it: the word is read as a password (RESIGN russia@game pw, mistyped).
    re.compile(r"^([^\n]*?\b[\w.+-]+@[\w-]+\s+)(?!\*\*\*\*)(\S+)", re.MULTILINE),
)


def mask_text(text: str) -> str:
    """The text with every password a command line carries replaced by ****."""
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text


def mask_mail(raw: bytes) -> bytes:
    """A stored mail with the passwords in its text parts masked; unchanged (byte for byte)
    when it carries none."""
    fast = _mask_plain(raw)
    if fast is not None:
        return fast
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        return raw
    changed = False
    for part in message.walk():
        if part.get_content_maintype() != "text" or part.is_multipart():
            continue
        changed |= _mask_part(part)
    if not changed:
        return raw
    try:
        return message.as_bytes()
    except Exception:  # a mail too broken to write back: keep its headers only
        return raw.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n(body removed: it held a password)\r\n"


def _mask_plain(raw: bytes) -> bytes | None:
    """The common case done on the bytes, without parsing and writing back the mail: one
    text part in 7bit or 8bit (what a player's order mail is). None for anything else."""
    for end in (b"\r\n\r\n", b"\n\n"):
        head, sep, body = raw.partition(end)
        if sep:
            break
    else:
        return None
    lowered = head.lower()
    if any(word in lowered for word in (b"multipart", b"base64", b"quoted-printable")):
        return None
    # latin-1 maps every byte to one character and back, so the rest stays byte for byte.
    text = body.decode("latin-1")
    masked = mask_text(text)
    return raw if masked == text else head + sep + masked.encode("latin-1")


def _mask_part(part: Message) -> bool:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return False
    charset = part.get_content_charset() or "utf-8"
    try:
        text = payload.decode(charset, "replace")
    except LookupError:
        charset, text = "utf-8", payload.decode("utf-8", "replace")
    masked = mask_text(text)
    if masked == text:
        return False
    del part["Content-Transfer-Encoding"]
    part.set_payload(masked.encode("utf-8"))
    part.set_charset("utf-8")  # encodes the payload again (base64 for utf-8)
    return True

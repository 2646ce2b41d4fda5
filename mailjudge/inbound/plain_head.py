"""A mail's header values read straight from its bytes, when its header block is plain.

The listener works out every mail's identity (spool.identity) from five headers and the
Message-ID. The email package's parser builds a whole Message for that, about a tenth of
a millisecond a mail. Most mails' header blocks are plain: ASCII, one kind of line end,
every line a "Name: value" field or the folded rest of one, no RFC 2047 encoded word.
For those this module gives what parse.header_text would give, without the parser; for
any other it gives None, and the caller parses (tests/mail/test_inbound_plain_head.py holds
the two to the same answers).
"""

from __future__ import annotations

import re

# A header line and the folded lines after it: its name (printable ASCII but the colon, as
# the email package's parser recognises a field; not empty here) and its value. Used on
# blocks whose line ends are all alike (see _head), so \r?\n is either kind.
_FIELD = re.compile(rb"^([\x21-\x39\x3b-\x7e]+):([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)", re.M)


def plain_header_values(raw: bytes) -> dict[str, str] | None:
    """Each header's first value by its lower-case name, unfolded and with every run of
    white space made one space (as parse.header_text gives it); None when the header
    block is not plain (see the module's text) or has no blank line after it."""
    found = plain_head(raw)
    return None if found is None else found[0]


def plain_head(raw: bytes) -> tuple[dict[str, str], int] | None:
    """plain_header_values, and where the body begins (after the blank line): the
    parser's payload of a mail that is not multipart is ``raw`` from there on."""
    head, newline = _head(raw)
    if head is None or not head.isascii() or b"=?" in head or head[:1] in (b" ", b"\t"):
        return None
    fields = _FIELD.findall(head)
    # Plain: every line is a field's first line or a folded one (it opens with white
    # space); any other line would end the header block for the parser.
    folded = head.count(newline + b" ") + head.count(newline + b"\t")
    if len(fields) + folded != head.count(newline) + 1:
        return None
    values: dict[str, str] = {}
    for name, value in fields:
        key = name.decode("ascii").lower()
        if key not in values:
            # Folded lines begin with white space: splitting on it gives the words that
            # header_text keeps, whatever line ends lie between them.
            values[key] = " ".join(value.decode("ascii").split())
    return values, len(head) + 2 * len(newline)


def _head(raw: bytes) -> tuple[bytes | None, bytes]:
    """The header block before the first blank line, and its line end; (None, b"") when
    its line ends are mixed, or a CR stands alone in it, or there is no blank line."""
    end = raw.find(b"\r\n\r\n")
    if end >= 0:
        head = raw[:end]
        pairs = head.count(b"\r\n")
        if head.count(b"\r") != pairs or head.count(b"\n") != pairs:
            return None, b""
        return head, b"\r\n"
    end = raw.find(b"\n\n")
    if end < 0 or b"\r" in raw[:end]:
        return None, b""
    return raw[:end], b"\n"

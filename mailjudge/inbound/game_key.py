"""Which game a stored mail is likely for, worked out from its raw bytes when it is stored.

On PostgreSQL several workers answer at once, and a worker claims the next mails of one
game together (inbound.game_batches): then no two workers hold the row locks of
two games in opposite orders. The key is only a hint for that grouping, read cheaply
without parsing the mail: the game of its first SIGNON line (``power@game``, ``Fgame``),
or else the GAME of a ``judge+GAME@`` recipient. A wrong or missing key costs a mail its
batch (it goes alone, or waits on another game's worker), never its answer.
"""

from __future__ import annotations

import re

# The column's width (models.InboundMessage.game_key).
KEY_LENGTH = 64
# Far enough into the body for a SIGNON after a greeting or a quoted header block.
_SCAN_BYTES = 8192
_SIGNON = re.compile(rb"^[ \t>]*signon[ \t]+(\S+)", re.IGNORECASE | re.MULTILINE)


def game_key(raw: bytes, envelope_to: list[str]) -> str:
    """The game name a mail's SIGNON or judge+GAME@ address names, lower case; "" if none."""
    detail = _address_detail(envelope_to)
    ends = [at for at in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if at >= 0]
    body_at = min(ends) if ends else 0
    found = _SIGNON.search(raw, body_at, body_at + _SCAN_BYTES)
    if found is None:
        return detail
    who = found.group(1).decode("utf-8", "replace")
    if "@" in who:
        return who.partition("@")[2].lower()[:KEY_LENGTH]
    # A bare seat name goes with the address's game; Fgame and Mgame carry their own.
    return detail or who[1:].lower()[:KEY_LENGTH]


def _address_detail(envelope_to: list[str]) -> str:
    for address in envelope_to:
        local = address.partition("@")[0]
        if "+" in local:
            return local.partition("+")[2].lower()[:KEY_LENGTH]
    return ""

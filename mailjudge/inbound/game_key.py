"""Which game a stored mail is likely for, worked out from its raw bytes when it is stored.

On PostgreSQL several workers answer at once, and a worker claims the next mails of one
game together (inbound.game_batches): then no two workers hold the row locks of
two games in opposite orders. The key is only a hint for that grouping, read cheaply
without parsing the mail: the game of its first line that names one, or else the GAME of
a ``judge+GAME@`` recipient. The lines are those of the commands that change a game
named in them: SIGNON (``power@game``, ``Fgame``; SIGN ON too), JOIN, OBSERVE, TAKEOVER,
CREATE and STOP. (The commands that only read a game, LIST and the like, are left to any
worker.) Then two JOINs of one game are answered one after the other, by one worker, as
its players' orders are. A wrong or missing key costs a mail its batch (it goes alone,
or waits on another game's worker), never its answer: what two mails of one game do at
once is kept apart by the game's row lock (game.state.lock_game).
"""

from __future__ import annotations

import re

# The column's width (models.InboundMessage.game_key).
KEY_LENGTH = 64
# Far enough into the body for a SIGNON after a greeting or a quoted header block.
_SCAN_BYTES = 8192
# The first word after the command: ``who`` after SIGNON (seat@game, Fgame, a bare seat),
# ``game`` after JOIN, CREATE and STOP, ``name@game`` after OBSERVE and TAKEOVER.
_GAME_LINE = re.compile(
    rb"^[ \t>]*(?:(?P<signon>sign[ \t]*on)|(?P<game>join|create|stop)|(?:observe|takeover))"
    rb"[ \t]+(?P<word>\S+)",
    re.IGNORECASE | re.MULTILINE,
)


def game_key(raw: bytes, envelope_to: list[str]) -> str:
    """The game name a mail's first line of a game (see above) or its judge+GAME@ address
    names, lower case; "" if none."""
    detail = _address_detail(envelope_to)
    ends = [at for at in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if at >= 0]
    body_at = min(ends) if ends else 0
    found = _GAME_LINE.search(raw, body_at, body_at + _SCAN_BYTES)
    if found is None:
        return detail
    word = found.group("word").decode("utf-8", "replace")
    if found.group("game"):
        return word.lower()[:KEY_LENGTH]
    if "@" in word:
        return word.partition("@")[2].lower()[:KEY_LENGTH]
    if not found.group("signon"):
        return detail  # OBSERVE or TAKEOVER written wrong: the address may still say
    # A bare seat name goes with the address's game; Fgame and Mgame carry their own.
    return detail or word[1:].lower()[:KEY_LENGTH]


def _address_detail(envelope_to: list[str]) -> str:
    for address in envelope_to:
        local = address.partition("@")[0]
        if "+" in local:
            return local.partition("+")[2].lower()[:KEY_LENGTH]
    return ""

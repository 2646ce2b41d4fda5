"""Reply tokens: what the ready-to-send block's SIGNON line carries in place of the password
when the operator trusts its MTA's Authentication-Results (security.trusted_authserv_id).

A token is a keyed hash (security.token_key) of the game, the seat, the phase as it is
played now, the seat's address and its password hash, so nothing needs storing and it dies
by itself: when the phase ends, when SET PASSWORD or TAKEOVER changes the hash, when the
address changes. The phase is named by the game's deadline_sequence, which only ever grows
(a new phase, a ROLLBACK, a moved deadline), never by its name: a ROLLBACK that brings the
phase back does not bring its tokens back, nor does a moved deadline keep them (the mail
that tells of it carries no token; the player's password still works). It is good only with
a mail the MTA vouches came from that address, and only for that seat's orders in that
phase (commands/run.py keeps the rest out).

Backups (issue 52): the key lives outside the database (the judge's settings), so a copy
of the database holds no means to make a token, and `mailjudge backup` of SQLite masks the
tokens the outbox's sent mail keeps (backup.py). A PostgreSQL dump (pg_dump) keeps them:
a token in it is good until its phase's deadline moves on, and rotating token_key voids
every token at once. `mailjudge restore` voids every token sent before (it moves each
game's deadline_sequence on): a restore brings phases back, as a ROLLBACK does, never
their tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from mailjudge.config.settings import SecuritySettings, current_settings
from mailjudge.game.state import person_of
from mailjudge.store.models import Game, Seat

PREFIX = "TOKEN:"
_LENGTH = 16  # base32 characters: 80 bits


def enabled(security: SecuritySettings | None = None) -> bool:
    """Tokens are on when the operator named the MTA's authserv-id and gave a key."""
    security = security or current_settings().security
    return bool(security.trusted_authserv_id and security.token_key)


def is_token(word: str) -> bool:
    return word.upper().startswith(PREFIX)


def _mac(key: str, game: Game, seat: Seat, address: str) -> str:
    fields = (game.name, str(seat.id), str(game.phase), str(game.deadline_sequence),
              address.lower(), seat.password_hash or "")  # fmt: skip
    digest = hmac.new(key.encode(), "\0".join(fields).encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode()[:_LENGTH]


def token_for(game: Game, seat: Seat) -> str | None:
    """The token for ``seat``'s current phase, or None: tokens off, no address or no
    password on the seat, or the game not running."""
    security = current_settings().security
    person = person_of(seat)
    if not enabled(security) or person is None or not seat.password_hash or game.phase is None:
        return None
    assert security.token_key is not None
    return PREFIX + _mac(security.token_key, game, seat, person.email)


def check_token(seat: Seat, word: str, sender: str, proven: bool) -> str | None:
    """Why ``word`` does not sign ``sender`` on to ``seat`` (None when it does)."""
    security = current_settings().security
    if not enabled(security):
        return "this judge takes no tokens"
    person = person_of(seat)
    expected = token_for(seat.game, seat)
    if person is None or expected is None:
        return "this seat takes no token"
    if sender.lower() != person.email.lower():
        return f"the token works only in a mail from {seat.name}'s own address"
    if not hmac.compare_digest(word.upper().encode(), expected.encode()):
        return ("the token is not (or no longer) good: it lasts while its phase's deadline "
                "stands (not past a ROLLBACK), or to a new password")  # fmt: skip
    if not proven:
        return "the judge's mail server could not prove (DKIM, SPF) it came from your address"
    return None

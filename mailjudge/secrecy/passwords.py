"""Password hashing: only salted scrypt hashes are ever stored.

A stored hash names its own parameters (``scrypt$n$r$p$salt$hash``), so the cost can be
raised later without breaking the hashes already stored; `needs_rehash` says when a
password should be hashed again at the next good sign-on.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
import unicodedata

# What stands for the password in the SIGNON line of the ready-to-send block mailed to a
# player (render/ready_block.py): the judge never mails a password, and a block whose SIGNON
# still holds this word was not sent back by its player (inbound/quoted_block.py).
PLACEHOLDER = "YOUR-PASSWORD"

# About 32 MiB and a few tens of milliseconds per hash: slow for a guesser, still cheap
# enough for a judge that checks one password per command mail.
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
_SCHEME = "scrypt"
# A stored string asking for more memory than this is refused rather than run.
_MAX_MEMORY = 2**30
_MAX_P = 16


def hash_password(password: str) -> str:
    """Hash a new password with a fresh random salt."""
    if not password:
        raise ValueError("a password may not be empty; choose one of at least a few characters")
    salt = os.urandom(SALT_BYTES)
    key = _derive(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES)
    return "$".join([_SCHEME, str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(key)])


def verify_password(password: str, stored: str) -> bool:
    """True when `password` matches `stored`; ValueError if `stored` is not one of ours."""
    n, r, p, salt, expected = _parse(stored)
    key = _derive(password, salt, n, r, p, len(expected))
    return hmac.compare_digest(key, expected)


def needs_rehash(stored: str) -> bool:
    """True when `stored` was made with other costs than the current ones."""
    n, r, p, salt, key = _parse(stored)
    return (n, r, p, len(salt), len(key)) != (SCRYPT_N, SCRYPT_R, SCRYPT_P, SALT_BYTES, KEY_BYTES)


def _derive(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    # NFC so that the same typed password matches whichever way a mail client composed it.
    secret = unicodedata.normalize("NFC", password).encode("utf-8")
    return hashlib.scrypt(
        secret, salt=salt, n=n, r=r, p=p, dklen=length, maxmem=_memory(n, r, p) + 2**20
    )


def _memory(n: int, r: int, p: int) -> int:
    """Bytes scrypt needs for these costs (OpenSSL's own reckoning)."""
    return 128 * r * (n + p + 2)


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes]:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != _SCHEME:
        raise ValueError("not a stored scrypt password hash")
    try:
        n, r, p = (int(part) for part in parts[1:4])
        salt = base64.b64decode(parts[4], validate=True)
        key = base64.b64decode(parts[5], validate=True)
    except ValueError as exc:
        raise ValueError("damaged stored scrypt password hash") from exc
    if not (n > 1 and n & (n - 1) == 0 and r > 0 and 0 < p <= _MAX_P) or (
        _memory(n, r, p) > _MAX_MEMORY
    ):
        raise ValueError("stored scrypt password hash has costs out of range")
    if not salt or not key:
        raise ValueError("stored scrypt password hash has an empty salt or key")
    return n, r, p, salt, key


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- a short memory of passwords verified lately ------------------------------------------
# A player sends many mails with the same SIGNON; scrypt on each would cap the judge at a
# few dozen mails a second. Only successful checks are remembered (a guesser pays the full
# cost every time), for a few minutes, under a keyed hash: the password itself is not kept.

VERIFIED_FOR = 600.0  # seconds
_VERIFIED_MAX = 50_000
_PROCESS_KEY = os.urandom(32)
_verified: dict[bytes, float] = {}


def verify_password_remembered(password: str, stored: str) -> bool:
    """verify_password, skipping scrypt for a password verified against `stored` lately."""
    token = hmac.digest(
        _PROCESS_KEY, unicodedata.normalize("NFC", password).encode() + b"\0" + stored.encode(),
        "sha256",
    )  # fmt: skip
    now = time.monotonic()
    until = _verified.get(token)
    if until is not None and until > now:
        return True
    if not verify_password(password, stored):
        return False
    if len(_verified) >= _VERIFIED_MAX:
        for key in [k for k, t in _verified.items() if t <= now] or list(_verified)[
            : _VERIFIED_MAX // 2
        ]:
            _verified.pop(key, None)
    _verified[token] = now + VERIFIED_FOR
    return True


def forget_verified() -> None:
    _verified.clear()

"""Passwords are kept only as salted scrypt hashes."""

import base64
import hashlib

import pytest

from mailjudge.secrecy.passwords import hash_password, needs_rehash, verify_password


def test_round_trip() -> None:
    stored = hash_password("correct horse")
    assert verify_password("correct horse", stored)


def test_wrong_password_is_false() -> None:
    stored = hash_password("correct horse")
    assert not verify_password("correct hors", stored)
    assert not verify_password("Correct horse", stored)
    assert not verify_password("", stored)


def test_two_hashes_of_one_password_differ() -> None:
    first, second = hash_password("same"), hash_password("same")
    assert first != second
    assert first.split("$")[4] != second.split("$")[4]  # the salts
    assert verify_password("same", first)
    assert verify_password("same", second)


@pytest.mark.parametrize("password", ["hunter2", "pässwörd", "x" * 200, "a$b$c"])
def test_stored_string_never_contains_the_password(password: str) -> None:
    stored = hash_password(password)
    assert password not in stored
    assert password.encode() not in base64.b64decode(stored.split("$")[5])
    assert verify_password(password, stored)


def test_stored_string_describes_its_own_parameters() -> None:
    scheme, n, r, p, salt, key = hash_password("pw").split("$")
    assert (scheme, n, r, p) == ("scrypt", "32768", "8", "1")
    assert len(base64.b64decode(salt)) == 16
    assert len(base64.b64decode(key)) == 32


def test_hash_with_other_costs_still_verifies_and_asks_for_rehash() -> None:
    # Written with the cheaper costs a judge might have used before.
    key = hashlib.scrypt(b"old", salt=b"saltsaltsaltsalt", n=16384, r=8, p=1, dklen=32)
    stored = "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$" + base64.b64encode(key).decode()
    assert verify_password("old", stored)
    assert not verify_password("new", stored)
    assert needs_rehash(stored)
    assert not needs_rehash(hash_password("new"))


def test_differently_composed_unicode_matches() -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert verify_password(decomposed, hash_password(composed))


def test_empty_password_is_refused_with_advice() -> None:
    with pytest.raises(ValueError, match="may not be empty"):
        hash_password("")


@pytest.mark.parametrize(
    "stored",
    [
        "hunter2",
        "bcrypt$12$x$y$z$w",
        "scrypt$32768$8$1$not-base64!$AAAA",
        "scrypt$1000$8$1$AAAA$AAAA",  # n not a power of two
        "scrypt$1048576$8$1$AAAA$AAAA",  # more than a gigabyte of memory
        "scrypt$32768$8$1$$AAAA",
    ],
)
def test_damaged_or_foreign_stored_hash_is_an_error_not_a_mismatch(stored: str) -> None:
    with pytest.raises(ValueError, match="scrypt password hash"):
        verify_password("anything", stored)


def test_remembered_verification_skips_scrypt_and_stays_safe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A right password checked once is not put through scrypt again; a wrong one always is
    (a guesser pays the full price), and a password right for one hash is not for another."""
    from mailjudge.secrecy.passwords import forget_verified, verify_password_remembered

    forget_verified()
    stored = hash_password("correct horse")
    other = hash_password("other")
    runs: list[int] = []
    scrypt = hashlib.scrypt

    def counted(*args: object, **kwargs: object) -> bytes:
        runs.append(1)
        return scrypt(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hashlib, "scrypt", counted)
    assert verify_password_remembered("correct horse", stored)
    assert len(runs) == 1
    for _ in range(100):
        assert verify_password_remembered("correct horse", stored)
    assert len(runs) == 1  # remembered: no scrypt the second time
    assert not verify_password_remembered("wrong horse", stored)
    assert not verify_password_remembered("wrong horse", stored)
    assert len(runs) == 3  # a wrong password is never remembered
    assert not verify_password_remembered("correct horse", other)

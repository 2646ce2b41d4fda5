"""A right password and the wrong-password counters: the seat's backoff sends the answer
of a right password from another address to the seat's own, a right password forgets its
sender's guesses and the seat's backoff, and the seat's own address signs on without the
counters being read at all (on PostgreSQL their forgetting goes with the next statement)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers.statements_sent import statements_sent
from unit.test_service_rules import game_with

from mailjudge.config.settings import current_settings
from mailjudge.game import guard
from mailjudge.game.errors import BadSecret
from mailjudge.game.state import check_secret
from mailjudge.service.seats import seat_for_power
from mailjudge.store.db import database_proxy
from mailjudge.store.models import AddressCounter, utcnow

GUESSER = "guesser@evil.test"


def _counter_keys() -> set[str]:
    """The guess counters (the notice's own, once a window, is not one of them)."""
    keys = {str(row.key) for row in AddressCounter.select()}
    return {key for key in keys if key.startswith(("signon:", "signon-seat:"))}


def test_a_seat_under_guessing_answers_a_stranger_at_its_own_address(any_db: str) -> None:
    game = game_with("", "guarded")
    france = seat_for_power(game, "FRANCE")
    own, password = france.person.email, "pw" + france.person.email[1]
    for _ in range(current_settings().security.signon_slow_after):
        with pytest.raises(BadSecret):
            check_secret(france, "guess", GUESSER)
    assert f"signon-seat:{france.id}" in _counter_keys()
    # A right password from elsewhere while guessed at: to the seat's own address; then
    # the backoff and that sender's guesses at the seat are forgotten.
    assert check_secret(france, password, "Traveller@Elsewhere.test") is True
    assert check_secret(france, password, GUESSER) is False
    assert _counter_keys() == {f"signon:*:{GUESSER}"}  # the guesser's count elsewhere stays
    # The owner's own address: the answer goes there anyway, and the backoff is forgotten.
    for _ in range(current_settings().security.signon_slow_after - 1):
        with pytest.raises(BadSecret):
            check_secret(france, "guess", GUESSER)
    assert check_secret(france, password, own) is False
    assert _counter_keys() == {f"signon:{france.id}:{GUESSER}", f"signon:*:{GUESSER}"}


def test_guessing_is_bounded_per_seat_and_per_sender(any_db: str) -> None:
    """Issue 52: guesses from ever new addresses once went on without end (14,000 an hour),
    and a right one after 41 wrong still signed on. Now, past signon_lock_after wrong
    passwords at a seat in the window (from anyone), a SIGNON from any address but the
    seat's own is refused unchecked, a right password too; past address_lock_after wrong
    ones from a mailbox, its SIGNONs anywhere are. The seat's own address always works."""
    limits = current_settings().security
    game = game_with("", "bounded")
    france, italy = seat_for_power(game, "FRANCE"), seat_for_power(game, "ITALY")
    password = "pw" + france.person.email[1]
    for n in range(limits.signon_lock_after):
        with pytest.raises(BadSecret, match="wrong password"):
            check_secret(france, "guess", f"g{n}@forged{n}.test")
    with pytest.raises(BadSecret, match="not checked") as refused:
        check_secret(france, password, "g99@forged99.test")
    assert "sign on from the address its mail goes to" in str(refused.value)
    assert check_secret(france, password, france.person.email) is False  # the owner
    with pytest.raises(BadSecret, match="not checked"):  # which forgets nothing of it
        check_secret(france, password, "traveller@elsewhere.test")
    # One mailbox (its +tags one) guessing at many seats: stopped everywhere.
    others = [seat_for_power(game, p) for p in ("ENGLAND", "GERMANY", "RUSSIA", "TURKEY")]
    for n in range(limits.address_lock_after):
        with pytest.raises(BadSecret, match="wrong password"):
            check_secret(others[n % 4], "guess", f"guesser+{n}@evil.test")
    with pytest.raises(BadSecret, match="not checked"):
        check_secret(italy, "pw" + italy.person.email[1], "guesser@evil.test")
    assert check_secret(italy, "pw" + italy.person.email[1], "someone@else.test") is False


def test_the_owner_is_not_guarded_whatever_the_case_of_its_address(any_db: str) -> None:
    game = game_with("", "owned")
    italy = seat_for_power(game, "ITALY")
    password = "pw" + italy.person.email[1]
    for _ in range(current_settings().security.signon_slow_after + 1):
        with pytest.raises(BadSecret):
            check_secret(italy, "guess", GUESSER)
    assert check_secret(italy, password, italy.person.email.upper()) is False


def test_on_postgresql_the_owner_signs_on_with_one_statement_for_the_counters(pg: str) -> None:
    game = game_with("", "quiet")
    germany = seat_for_power(game, "GERMANY")
    password = "pw" + germany.person.email[1]
    guard.bump(f"signon-seat:{germany.id}", utcnow(), timedelta(hours=1))
    with statements_sent() as sent, database_proxy.atomic():
        assert check_secret(germany, password, germany.person.email) is False
        assert len([s for s in sent if "address_counter" in s]) == 1, sent
        assert _counter_keys() == set()

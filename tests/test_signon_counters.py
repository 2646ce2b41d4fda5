"""A right password and the wrong-password counters: the seat's backoff sends the answer
of a right password from another address to the seat's own, a right password forgets its
sender's guesses and the seat's backoff, and the seat's own address signs on without the
counters being read at all (on PostgreSQL their forgetting goes with the next statement)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from statements_sent import statements_sent
from test_service_rules import game_with

from mailjudge.db import database_proxy
from mailjudge.game import guard
from mailjudge.game.errors import BadSecret
from mailjudge.game.state import check_secret
from mailjudge.models import AddressCounter, utcnow
from mailjudge.service.seats import seat_for_power
from mailjudge.settings import current_settings

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
    # The owner's own address: the answer goes there anyway, and the backoff is forgotten.
    assert check_secret(france, password, own) is False
    assert _counter_keys() == {f"signon:{france.id}:{GUESSER}", f"signon:*:{GUESSER}"}
    for _ in range(current_settings().security.signon_slow_after):
        with pytest.raises(BadSecret):
            check_secret(france, "guess", GUESSER)
    # A right password from elsewhere while guessed at: to the seat's own address; then
    # the backoff and that sender's guesses at the seat are forgotten.
    assert check_secret(france, password, "Traveller@Elsewhere.test") is True
    assert check_secret(france, password, GUESSER) is False
    assert _counter_keys() == {f"signon:*:{GUESSER}"}  # the guesser's count elsewhere stays


def test_the_owner_is_not_guarded_whatever_the_case_of_its_address(any_db: str) -> None:
    game = game_with("", "owned")
    italy = seat_for_power(game, "ITALY")
    password = "pw" + italy.person.email[1]
    for _ in range(current_settings().security.signon_slow_after + 1):
        with pytest.raises(BadSecret):
            check_secret(italy, "guess", GUESSER)
    assert check_secret(italy, password, italy.person.email.upper()) is False


def test_on_postgresql_the_owner_signs_on_without_a_round_trip_for_the_counters(pg: str) -> None:
    game = game_with("", "quiet")
    germany = seat_for_power(game, "GERMANY")
    password = "pw" + germany.person.email[1]
    guard.bump(f"signon-seat:{germany.id}", utcnow(), timedelta(hours=1))
    with statements_sent() as sent, database_proxy.atomic():
        assert check_secret(germany, password, germany.person.email) is False
        assert [s for s in sent if not s.startswith("PREPARE")] == []
        assert _counter_keys() == set()  # this read carried the held DELETE

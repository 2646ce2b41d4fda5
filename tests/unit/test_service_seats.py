"""Seats and the master's tools: sign-on and lock-out, takeover, resign, eject, dummy,
revive, pause and resume, preview, STATUS, orders replacing orders."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mailjudge.config.settings import current_settings
from mailjudge.game.errors import BadSecret, NotAllowed, NotFound, ServiceError
from mailjudge.game.state import current_position, get_game, orders_on_file
from mailjudge.service import processing
from mailjudge.service.games import create_game, pause_game, resume_game
from mailjudge.service.openings import take_over
from mailjudge.service.orders import clear_orders, submit_orders
from mailjudge.service.seats import (
    eject,
    make_dummy,
    resign,
    revive,
    seat_for_power,
    signon,
)
from mailjudge.store.models import Game, OrderLine, Seat, utcnow
from unit.test_service_rules import game_with, hold_all

pytestmark = pytest.mark.usefixtures("sqlite_db")


def test_game_names_and_variants_are_checked() -> None:
    with pytest.raises(ServiceError, match="cannot be a game name"):
        create_game("Bad Name!", "gm@example.org", "pw")
    with pytest.raises(ServiceError, match="unknown variant"):
        create_game("ok", "gm@example.org", "pw", variant="chess")
    create_game("ok", "gm@example.org", "pw")
    with pytest.raises(NotAllowed, match="exists already"):
        create_game("ok", "other@example.org", "pw")
    with pytest.raises(NotFound, match="no game called"):
        get_game("nope")


def test_a_right_password_always_works_and_wrong_ones_go_unanswered() -> None:
    game = game_with("", "locks")
    france = seat_for_power(game, "FRANCE")
    password = "pw" + france.person.email[1]  # p<i>@example.org joined with pw<i>
    assert signon(game, "france", password, france.person.email).id == france.id
    limits = current_settings().security
    told, answered = [], []
    for _ in range(limits.signon_slow_after + 2):
        with pytest.raises(BadSecret, match="wrong password") as wrong:
            signon(game, "france", "guess", france.person.email)  # forged from France
        told.append(wrong.value.tell_owner)
        answered.append(wrong.value.answered)
    assert told == [True] + [False] * (limits.signon_slow_after + 1)  # once a window
    assert answered == [True] * limits.signon_slow_after + [False, False]
    # The password is checked first: the guesses lock nobody out, from anywhere.
    assert signon(game, "france", password, france.person.email).id == france.id
    assert signon(game, "france", password, "guesser@evil.test").id == france.id
    with pytest.raises(NotFound):
        signon(game, "narnia", "pw")
    assert signon(game, "master", "gm-pw").role == "master"


def takeover(game: Game, power: str, address: str, password: str) -> Seat:
    """TAKEOVER from an address that answered the judge before (no CONFIRM to wait for)."""
    seat = take_over(game, power, address, password, utcnow(), proven=True).seat
    assert seat is not None
    return seat


def test_resign_then_takeover() -> None:
    game = game_with("", "swap")
    resign(seat_for_power(game, "FRANCE"))
    with pytest.raises(NotAllowed, match="has a player"):
        takeover(game, "ENGLAND", "new@example.org", "pw")
    seat = takeover(game, "FRANCE", "new@example.org", "newpw")
    assert seat.person.email == "new@example.org"
    assert signon(game, "france", "newpw").id == seat.id
    with pytest.raises(NotAllowed, match="one power per player"):
        resign(seat_for_power(game, "ENGLAND"))
        takeover(game, "ENGLAND", "new@example.org", "pw")


def test_eject_dummy_revive() -> None:
    game = game_with("CD_DUMMIES", "masters")
    eject(game, "ITALY")
    assert seat_for_power(game, "ITALY").person is None
    make_dummy(game, "TURKEY")
    hold_all(game, ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA"])
    assert processing.readiness(game).ready  # vacant Italy and dummy Turkey take defaults
    revive(game, "TURKEY")
    assert not seat_for_power(game, "TURKEY").dummy


def test_pause_and_resume() -> None:
    game = game_with("", "pause")
    pause_game(game)
    with pytest.raises(NotAllowed, match="paused"):
        processing.process(game, force=True)
    with pytest.raises(NotAllowed):
        submit_orders(game, seat_for_power(game, "FRANCE"), "FRANCE", ["A PAR H"])
    resume_game(game)
    assert processing.process(game, force=True) is not None


def test_orders_replace_clear_and_status() -> None:
    game = game_with("", "orders")
    france = seat_for_power(game, "FRANCE")
    report = submit_orders(game, france, "FRANCE", ["A PAR - BUR", "A MAR - MOS"])
    assert report.accepted == ["A PAR - BUR"]
    assert report.errors[0][0] == "A MAR - MOS" and "illegal" in report.errors[0][1]
    assert report.missing == ["F BRE", "A MAR"]  # by province: Brest, Marseilles
    report = submit_orders(game, france, "FRANCE", ["F BRE - MAO"])  # replaces, not adds
    assert [line.text for line in orders_on_file(game)["FRANCE"]] == ["F BRE - MAO"]
    assert orders_on_file(game)["FRANCE"][0].submitted_by.name == "france"
    with pytest.raises(NotAllowed, match="may not order for ENGLAND"):
        submit_orders(game, france, "ENGLAND", ["F LON H"])
    clear_orders(game, france, "FRANCE")
    assert "FRANCE" not in orders_on_file(game)
    state = processing.readiness(game)
    assert "FRANCE" in state.waiting_for
    with pytest.raises(NotAllowed, match="orders are missing from"):
        processing.process(game)


def test_preview_changes_nothing() -> None:
    game = game_with("", "preview")
    submit_orders(game, seat_for_power(game, "FRANCE"), "FRANCE", ["A PAR - BUR"])
    outcome = processing.preview(game)
    assert outcome.after.units["bur"].power == "FRANCE"
    game = get_game("preview")
    assert game.phase == "S1901M" and "bur" not in current_position(game).units
    assert OrderLine.select().count() == 1


def test_old_rate_counters_are_forgotten_but_not_proven_addresses() -> None:
    from mailjudge.game import guard
    from mailjudge.store.models import AddressCounter, utcnow

    then = utcnow() - timedelta(days=3)
    guard.bump("same:robot@example.org:abc", then, timedelta(hours=1))
    guard.mark_proven("player@example.org", then)
    guard.bump("unproven:new@example.org", utcnow(), timedelta(hours=1))
    assert guard.prune_counters(utcnow()) == 1
    assert guard.is_proven("player@example.org")
    assert AddressCounter.select().count() == 2

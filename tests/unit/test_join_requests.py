"""A player's JOIN from an address that never answered the judge (issue 52): checked at once,
kept as a JoinRequest that holds no seat and keeps no power, done when the address answers
its CONFIRM token, checked again then. On both databases."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mailjudge.game import confirmations, guard
from mailjudge.game.errors import NotAllowed, NotFound, ServiceError
from mailjudge.game.state import get_game, players
from mailjudge.service.games import create_game
from mailjudge.service.seats import ask_to_join, confirm_join, join
from mailjudge.store.models import JoinRequest, utcnow

NEW = "newcomer@players.test"


def test_a_join_request_holds_no_seat_until_its_address_answers(any_db: str) -> None:
    game = create_game("wait", "gm@example.org", "gm-pw", rules="POWER_CHOICE")
    token = ask_to_join(game, NEW, "pw-new", "FRANCE", "Newcomer")
    assert token is not None and players(get_game("wait")) == []
    assert ask_to_join(game, "other@players.test", "pw", "ENGLAND") is not None
    with pytest.raises(ServiceError, match="is not a power"):  # refused at once
        ask_to_join(game, "third@players.test", "pw", "ENGLANDX")
    # Nothing is kept for it: another player takes FRANCE meanwhile.
    join(game, "quick@players.test", "pw-quick", "FRANCE")
    with pytest.raises(NotAllowed, match="FRANCE is taken"):
        ask_to_join(game, "third@players.test", "pw", "FRANCE")
    with pytest.raises(NotFound, match="no such confirmation"):
        confirmations.join_request(token, "forger@evil.test")
    request = confirmations.join_request(token, NEW)
    assert request is not None and guard.is_proven(NEW)
    with pytest.raises(NotAllowed, match="FRANCE is taken"):
        confirm_join(request)
    # A new JOIN from it replaces the old request; confirmed, it seats the player.
    again = ask_to_join(get_game("wait"), NEW, "pw-new", "ITALY")
    assert again is not None and JoinRequest.select().count() == 2  # ENGLAND's too
    seat = confirm_join(JoinRequest.get(JoinRequest.token == again))
    assert list(seat.powers) == ["ITALY"] and seat.person.email == NEW


def test_a_join_request_expires_and_a_democratic_join_seats_its_own_way(any_db: str) -> None:
    game = create_game("late", "gm@example.org", "gm-pw")
    token = ask_to_join(game, NEW, "pw-new")
    assert token is not None
    request = JoinRequest.get(JoinRequest.token == token)
    request.created_at = utcnow() - timedelta(days=30)
    request.save()
    with pytest.raises(NotFound, match="send the JOIN again"):
        confirmations.join_request(token, NEW)
    assert not JoinRequest.select().exists()
    assert confirmations.join_request("feedfacecafe", NEW) is None  # another kind's token
    democratic = create_game("dem", "gm@example.org", "gm-pw", variant="democratic")
    assert ask_to_join(democratic, NEW, "pw-new") is None

"""A Democratic game's ballots in the database, on SQLite and PostgreSQL: a ballot cast
again replaces the first, a ranking of a set not offered is refused, and the deadline's
read of every country's ballots at once holds each country's own. Within one transaction
(a worker's batch) a proposal made, or taken back with its savepoint, counts at once."""

from __future__ import annotations

import random

import pytest

from mailjudge.game.errors import ServiceError
from mailjudge.game.state import get_game
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, Seat
from mailjudge.variants import democratic as dem
from mailjudge.variants.democratic.ballots import ballot_groups

pytestmark = pytest.mark.usefixtures("any_db")


def test_ballots_replace_refuse_and_group_by_country() -> None:
    game, by_country = started_game()
    turks, french = by_country["TURKEY"], by_country["FRANCE"]
    holds = ["A CON H", "A SMY H", "F ANK H"]
    for lines in (holds, ["A CON-BUL", "A SMY H", "F ANK H"]):
        dem.propose_orders(game, turks[0], lines)
    dem.propose_orders(game, french[0], ["A PAR H", "A MAR H", "F BRE H"])
    dem.vote_orders(game, turks[0], [1, 2])
    dem.vote_orders(game, turks[0], [2])  # the second ballot replaces the first
    dem.vote_orders(game, turks[1], [2, 1])
    dem.vote_orders(game, french[0], [1])
    with pytest.raises(ServiceError, match="rank TURKEY's order sets"):
        dem.vote_orders(game, turks[2], [3])  # Turkey has two sets
    assert Ballot.select().where(Ballot.voter == turks[0].id).count() == 1
    groups = ballot_groups(game, "orders")
    assert groups == {"TURKEY": {(2,): 1, (2, 1): 1}, "FRANCE": {(1,): 1}}
    assert ballot_groups(game, "orders", "FRANCE") == {"FRANCE": {(1,): 1}}
    count = dem.count_orders(game, "TURKEY", groups["TURKEY"])
    assert count.winner == 2 and count.ballots == 2
    assert dem.count_orders(game, "TURKEY").stages == count.stages  # read alone, the same


def started_game() -> tuple[Game, dict[str, list[Seat]]]:
    game = create_game("vote", "gm@example.org", "pw", variant="democratic")
    for i in range(44):  # two citizens a home centre
        join(game, f"c{i}@example.org", f"pw{i}", name=f"c{i}")
    start_game(get_game("vote"), random.Random(3))
    game = get_game("vote")
    by_country: dict[str, list[Seat]] = {}
    for seat in Seat.select().where((Seat.game == game) & (Seat.role == "citizen")):
        seat.game = game
        by_country.setdefault(dem.country_of(seat) or "", []).append(seat)
    return game, by_country


def test_a_proposal_made_in_the_batch_is_counted() -> None:
    game, by_country = started_game()
    turks = by_country["TURKEY"]
    dem.propose_orders(game, turks[0], ["A CON H", "A SMY H", "F ANK H"])
    with database_proxy.atomic():
        dem.vote_orders(game, turks[0], [1])
        with pytest.raises(ServiceError, match="order sets"):
            dem.vote_orders(game, turks[1], [2])
        dem.propose_orders(game, turks[1], ["A CON-BUL", "A SMY H", "F ANK H"])
        dem.vote_orders(game, turks[1], [2, 1])  # set 2 is there now
    assert ballot_groups(game, "orders") == {"TURKEY": {(1,): 1, (2, 1): 1}}


def test_a_proposal_taken_back_with_its_savepoint_is_not_counted() -> None:
    game, by_country = started_game()
    turks = by_country["TURKEY"]
    dem.propose_orders(game, turks[0], ["A CON H", "A SMY H", "F ANK H"])
    with database_proxy.atomic():
        dem.vote_orders(game, turks[0], [1])
        with database_proxy.atomic() as mail:  # a mail that fails after its PROPOSAL
            dem.propose_orders(game, turks[1], ["A CON-BUL", "A SMY H", "F ANK H"])
            dem.vote_orders(game, turks[1], [2])
            mail.rollback()
        with pytest.raises(ServiceError, match=r"order sets of this phase, each once: 1$"):
            dem.vote_orders(game, turks[2], [2])
    assert ballot_groups(game, "orders") == {"TURKEY": {(1,): 1}}


def test_a_new_phase_counts_its_own_order_sets() -> None:
    game, by_country = started_game()
    turks = by_country["TURKEY"]
    dem.propose_orders(game, turks[0], ["A CON H", "A SMY H", "F ANK H"])
    with database_proxy.atomic():
        dem.vote_orders(game, turks[0], [1])
        game.phase = "F1901M"  # as processing the phase would leave it
        game.save()
        with pytest.raises(ServiceError, match="each once: none yet"):
            dem.vote_orders(game, turks[1], [1])

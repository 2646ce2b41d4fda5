"""A Democratic game's ballots in the database: one citizen's cast, and every country's
read grouped at the deadline. Ballots are secret: nothing here is shown to anyone."""

from __future__ import annotations

import json
from typing import Any

from peewee import fn

from mailjudge.store import games as store_games
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, Seat, utcnow

STANDING = ""  # diplomat ballots stand from phase to phase until changed


def cast_ballot(
    game: Game, seat: Seat, kind: str, phase: str, power: str, ranking: list[Any]
) -> None:
    """The voter's ballot replaces any earlier one of the kind (in a burst of ballots every
    citizen's mail runs this)."""
    store_games.replace_ballot(game.id, seat.id, kind, phase, power, ranking, utcnow())


def order_sets(game: Game, power: str) -> int:
    """How many order sets ``power`` has in this phase (what ``proposals`` lists)."""
    return store_games.order_sets(game.id, game.phase, power)


Groups = dict[tuple[Any, ...], int]  # a country's distinct rankings and how many cast each


def ballot_groups(game: Game, kind: str, power: str | None = None) -> dict[str, Groups]:
    """Each country's ballots of a kind (``power``'s only, if given), grouped by the
    database: a country of a hundred thousand citizens is a few thousand distinct
    rankings. A ballot counts for the country it was cast in (citizens who change country
    lose their standing ballots: see AfterProcess). All the countries are read at once
    when a phase is processed: ballots are found by game, phase and kind, so a query for
    one country would walk the others' too."""
    phase = game.phase if kind == "orders" else STANDING
    which = (Ballot.game == game) & (Ballot.kind == kind) & (Ballot.phase == phase)
    if power is not None:
        which &= Ballot.subject == power
    query = (
        Ballot.select(Ballot.subject, Ballot.content, fn.COUNT(Ballot.id))
        .where(which)
        .group_by(Ballot.subject, Ballot.content)
    )
    found: dict[str, Groups] = {}
    for subject, content, n in database_proxy.execute(query):
        ranking = tuple(json.loads(content) if isinstance(content, str) else content)
        groups = found.setdefault(str(subject), {})
        groups[ranking] = groups.get(ranking, 0) + int(n)
    return found

"""A Democratic game's ballots in the database: one citizen's cast (by statements built
once: in a burst of ballots every citizen's mail runs them), and every country's read
grouped at the deadline. Ballots are secret: nothing here is shown to anyone."""

from __future__ import annotations

import json
from typing import Any

from peewee import fn

from mailjudge.compiled_queries import compiled_sql, execute_compiled_later
from mailjudge.db import database_proxy
from mailjudge.kept_reads import TransactionMemo
from mailjudge.models import Ballot, Game, Proposal, Seat, utcnow

STANDING = ""  # diplomat ballots stand from phase to phase until changed


def cast_ballot(
    game: Game, seat: Seat, kind: str, phase: str, power: str, ranking: list[Any]
) -> None:
    """The voter's ballot replaces any earlier one of the kind. Queries built once: in a
    burst of ballots every citizen's mail runs them."""
    # The statements' expressions are built only the first time (the lambdas): building
    # them cost more than the rest of a ballot's work here.
    # Neither's result is read: on PostgreSQL both go with the mail's next statement (a
    # failure then fails the mail, as any database error in a command does).
    execute_compiled_later(
        "ballot-delete",
        lambda: Ballot.delete().where(
            (Ballot.voter == seat.id) & (Ballot.kind == kind) & (Ballot.phase == phase)
        ),
        [seat.id, kind, phase],
    )
    if not ranking:
        return
    values: dict[str, Any] = {
        "game": game.id, "phase": phase, "kind": kind, "subject": power, "voter": seat.id,
        "content": ranking, "cast_at": utcnow(),
    }  # fmt: skip
    params = [field.db_value(values[field.name]) for field in _BALLOT_FIELDS]
    execute_compiled_later("ballot-insert", lambda: Ballot.insert(**values), params)


# The columns a ballot's INSERT gives, in the order peewee puts them.
_BALLOT_FIELDS = [
    f for f in Ballot._meta.sorted_fields
    if f.name in ("game", "phase", "kind", "subject", "voter", "content", "cast_at")
]  # fmt: skip


def order_sets(game: Game, power: str) -> int:
    """How many order sets ``power`` has in this phase (what ``proposals`` lists), by a
    query built once: every VOTE ORDERS asks. Within a transaction each country's count
    is read once (_counted): a worker answers a batch of a game's ballots in one."""
    counted = _counted.now()
    key = (game.id, game.phase, power)
    if counted is not None and key in counted:
        return int(counted[key])
    params = [game.id, game.phase, "orders", power]
    sql = compiled_sql("order-sets", lambda: _order_sets_query(game, power), params)
    found = int(database_proxy.execute_sql(sql, params).fetchone()[0])
    if counted is not None:
        counted[key] = found
    return found


def _order_sets_query(game: Game, power: str) -> Any:
    here = (Proposal.game == game.id) & (Proposal.phase == game.phase)
    mine = (Proposal.kind == "orders") & (Proposal.power == power)
    return Proposal.select(fn.COUNT(Proposal.id)).where(here & mine)


def proposal_added() -> None:
    """A proposal was made in this thread's transaction: the counts read in it are not
    used again until it ends (a savepoint rolled back may take the proposal back, so
    not even a count read after it is kept)."""
    _counted.spoil()


# Each thread's order-set counts read in its current transaction: (game id, phase,
# country) -> sets. Only this judge adds order sets (propose_orders, which calls
# proposal_added), and on PostgreSQL a game's mails are answered by one worker at a time
# (inbound.game_batches); on SQLite the worker's transaction holds the write lock.
_counted = TransactionMemo()


Groups = dict[tuple[Any, ...], int]  # a country's distinct rankings and how many cast each


def ballot_groups(game: Game, kind: str, power: str | None = None) -> dict[str, Groups]:
    """Each country's ballots of a kind (``power``'s only, if given), grouped by the
    database: a country of a hundred thousand citizens is a few thousand distinct
    rankings. A ballot counts for the country it was cast in (citizens who change country
    lose their standing ballots: see after_process). All the countries are read at once
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

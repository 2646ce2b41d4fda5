"""A game's rows as an order mail reads and writes them (its seat, game and person, the
orders on file, the sender's counters, a Democratic citizen's ballot), each named for what
it does and built once (store.built_once): every order mail runs them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from peewee import EXCLUDED, JOIN, Case, fn

from mailjudge.store import built_once
from mailjudge.store.models import (
    AddressCounter,
    Ballot,
    Game,
    OrderLine,
    Person,
    Proposal,
    Seat,
)

# -- seats, games, people -----------------------------------------------------------------


def seat_game_person(game_name: str, seat_name: str) -> tuple[Seat, Game, Person | None] | None:
    """The seat ``seat_name`` (lower case) of the game ``game_name`` (lower case), its
    game and its person, in one read; None where nobody sits so."""
    found = built_once.joined_rows(
        (Seat, Game, Person),
        "seat-game-person-by-names",
        lambda: (
            Seat.select(Seat, Game, Person)
            .join(Game, on=Seat.game == Game.id)
            .switch(Seat)
            .join(Person, JOIN.LEFT_OUTER, on=Seat.person == Person.id)
            .where((Game.name == game_name) & (Seat.name == seat_name))
        ),
        [game_name, seat_name],
    )
    if not found:
        return None
    seat, game, person = found[0]
    assert isinstance(seat, Seat) and isinstance(game, Game)
    return seat, game, person if isinstance(person, Person) else None


def game_by_id(game_id: int) -> Game:
    (game,) = built_once.rows(
        Game, "game-by-id", lambda: Game.select().where(Game.id == game_id), [game_id]
    )
    return game


def person_by_id(person_id: int) -> Person:
    (person,) = built_once.rows(
        Person, "person-by-id", lambda: Person.select().where(Person.id == person_id), [person_id]
    )
    return person


def seats_of_role(game_id: int, role: str) -> list[Seat]:
    """The game's seats of ``role``, in the order they were taken."""
    return built_once.rows(
        Seat,
        "seats-of-role",
        lambda: Seat.select().where((Seat.game == game_id) & (Seat.role == role)).order_by(Seat.id),
        [game_id, role],
    )


def waiting_players(game_id: int) -> list[str]:
    """The names of the game's players who asked to WAIT, in seat order."""
    cursor = built_once.run(
        "waiting-players",
        lambda: (
            Seat.select(Seat.name)
            .where((Seat.game == game_id) & (Seat.role == "player") & (Seat.wait == True))  # noqa: E712
            .order_by(Seat.id)
        ),
        [game_id, "player", True],
    )
    return [str(name) for (name,) in cursor.fetchall()]


# -- orders -------------------------------------------------------------------------------


def orders_on_file(game_id: int, phase: str | None) -> list[OrderLine]:
    """Every power's orders in ``phase``, by power, each power's in their order."""
    return built_once.rows(
        OrderLine,
        "orders-on-file",
        lambda: (
            OrderLine.select()
            .where((OrderLine.game == game_id) & (OrderLine.phase == phase))
            .order_by(OrderLine.power, OrderLine.line)
        ),
        [game_id, phase],
    )


def order_texts(game_id: int, phase: str | None, power: str) -> list[tuple[str, int | None]]:
    """``power``'s orders in ``phase`` as (text, the seat that sent it), in their order."""
    rows = _power_orders(game_id, phase, power, "order-texts", OrderLine.submitted_by)
    return [(str(text), by) for text, by in rows]


def order_senders(
    game_id: int, phase: str | None, power: str
) -> list[tuple[str, int | None, datetime]]:
    """``power``'s orders in ``phase`` as (text, who sent it, when), in their order."""
    when = OrderLine.submitted_at.python_value
    rows = _power_orders(
        game_id, phase, power, "order-senders", OrderLine.submitted_by, OrderLine.submitted_at
    )
    return [(str(text), by, when(at)) for text, by, at in rows]


def _power_orders(game_id: int, phase: str | None, power: str, key: str, *more: Any) -> list[Any]:
    cursor = built_once.run(
        key,
        lambda: OrderLine.select(OrderLine.text, *more)
        .where((OrderLine.game == game_id) & (OrderLine.phase == phase)
               & (OrderLine.power == power))
        .order_by(OrderLine.line),
        [game_id, phase, power],
    )  # fmt: skip
    return list(cursor.fetchall())


def delete_orders(game_id: int, phase: str | None, power: str, sent_by: int | None = None) -> None:
    """``power``'s orders in ``phase`` (those the seat ``sent_by`` sent, when given) go."""

    def build() -> Any:
        here = (OrderLine.game == game_id) & (OrderLine.phase == phase) & (OrderLine.power == power)
        return OrderLine.delete().where(
            here if sent_by is None else here & (OrderLine.submitted_by == sent_by)
        )

    key, params = "delete-orders", [game_id, phase, power]
    if sent_by is not None:
        key, params = "delete-own-orders", [*params, sent_by]
    built_once.run(key, build, params)


def insert_orders(
    game_id: int, phase: str | None, power: str, lines: Sequence[tuple[str, int | None, datetime]]
) -> None:
    """``power``'s orders in ``phase``: (text, the seat that sent it, when), in order."""
    rows = [
        {"game": game_id, "phase": phase, "power": power, "line": n, "text": text,
         "submitted_by": by, "submitted_at": at}
        for n, (text, by, at) in enumerate(lines)
    ]  # fmt: skip
    when = OrderLine.submitted_at.db_value
    params = [
        v for n, (text, by, at) in enumerate(lines)
        for v in (game_id, phase, power, n, text, by, when(at))
    ]  # fmt: skip
    built_once.run(f"insert-orders-{len(lines)}", lambda: OrderLine.insert_many(rows), params)


# -- the sender's counters ----------------------------------------------------------------


def counters(keys: Sequence[str]) -> list[AddressCounter]:
    """The counters of ``keys`` that exist."""
    return built_once.rows(
        AddressCounter,
        f"counters-{len(keys)}",
        lambda: AddressCounter.select().where(AddressCounter.key.in_(list(keys))),
        list(keys),
    )


def forget_counters(keys: Sequence[str]) -> None:
    built_once.run(
        f"counters-forget-{len(keys)}",
        lambda: AddressCounter.delete().where(AddressCounter.key.in_(list(keys))),
        list(keys),
    )


def bump_counter(key: str, amount: int, now: datetime, cutoff: datetime) -> int:
    """Add ``amount`` to the counter ``key``, started afresh at ``now`` when its window
    began before ``cutoff`` (or it is new); the sum in the window. One statement: an
    insert that, when the counter exists, adds to it instead, and says the sum."""
    when = AddressCounter.window_start.db_value
    params = [key, amount, when(now), when(now), when(cutoff), when(cutoff)]

    def build() -> Any:
        counter = AddressCounter
        over = counter.window_start <= cutoff  # the window ended: count from now, afresh
        added = counter.count + EXCLUDED.count
        return (
            counter.insert(key=key, count=amount, window_start=now, last_at=now)
            .on_conflict(
                conflict_target=[counter.key],
                update={
                    counter.count: Case(None, [(over, EXCLUDED.count)], added),
                    counter.window_start: Case(None, [(over, EXCLUDED.window_start)],
                                               counter.window_start),
                    counter.last_at: EXCLUDED.last_at,
                },
            )
            .returning(counter.count)
        )  # fmt: skip

    return int(built_once.run("counter-bump", build, params).fetchone()[0])


# -- a Democratic citizen's ballot --------------------------------------------------------

# The columns a ballot's INSERT gives, in the order peewee puts them.
_BALLOT_FIELDS = [
    f for f in Ballot._meta.sorted_fields
    if f.name in ("game", "phase", "kind", "subject", "voter", "content", "cast_at")
]  # fmt: skip


def replace_ballot(
    game_id: int, voter: int, kind: str, phase: str, subject: str, content: list[Any] | None,
    cast_at: datetime,
) -> None:  # fmt: skip
    """The voter's ballot of ``kind`` in ``phase`` goes; ``content``, when given, is the new
    one (on ``subject``)."""
    built_once.run(
        "ballot-delete",
        lambda: Ballot.delete().where(
            (Ballot.voter == voter) & (Ballot.kind == kind) & (Ballot.phase == phase)
        ),
        [voter, kind, phase],
    )
    if not content:
        return
    values: dict[str, Any] = {
        "game": game_id, "phase": phase, "kind": kind, "subject": subject, "voter": voter,
        "content": content, "cast_at": cast_at,
    }  # fmt: skip
    params = [field.db_value(values[field.name]) for field in _BALLOT_FIELDS]
    built_once.run("ballot-insert", lambda: Ballot.insert(**values), params)


def order_sets(game_id: int, phase: str | None, power: str) -> int:
    """How many order sets ``power`` has proposed in ``phase``."""
    cursor = built_once.run(
        "order-sets",
        lambda: Proposal.select(fn.COUNT(Proposal.id)).where(
            (Proposal.game == game_id) & (Proposal.phase == phase)
            & (Proposal.kind == "orders") & (Proposal.power == power)
        ),
        [game_id, phase, "orders", power],
    )  # fmt: skip
    return int(cursor.fetchone()[0])

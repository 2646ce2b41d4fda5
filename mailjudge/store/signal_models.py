"""The tables of the signals that two seats of a game may be one person
(service/multiseat.py): for the game's master only, never acted on by the judge."""

from __future__ import annotations

from typing import Any

from peewee import CharField, ForeignKeyField

from mailjudge.store.models import BaseModel, Game, Seat, UTCDateTimeField, utcnow


class SeatSignal(BaseModel):
    """Something a seat's mail (or its JOIN) showed: a DKIM signing domain, a Message-ID
    host, a mail client, a network, a password the seat shares with another (kind
    "password", value the other seat's id). Each (seat, kind, value) once."""

    seat_id: Any

    game = ForeignKeyField(Game, backref="seat_signals", on_delete="CASCADE", index=False)
    seat = ForeignKeyField(Seat, backref="signals", on_delete="CASCADE", index=False)
    kind = CharField(max_length=16)
    value = CharField(max_length=255)
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "seat_signal"
        indexes = ((("seat", "kind", "value"), True), (("game", "kind", "value"), False))


class SeatPairNotice(BaseModel):
    """A pair of seats the master was mailed about, so that they are told once."""

    game = ForeignKeyField(Game, backref="seat_pair_notices", on_delete="CASCADE", index=False)
    pair = CharField(max_length=64)  # "12-15": the two seats' ids, the smaller first
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "seat_pair_notice"
        indexes = ((("game", "pair"), True),)


SIGNAL_MODELS: tuple[type[BaseModel], ...] = (SeatSignal, SeatPairNotice)

"""The tables of the public missed-turn figures (/stats): what service/seat_phases.py notes
as phases are processed and levers used, and service/stats.py counts. Kept apart from
models.py, which holds the games' own tables."""

from __future__ import annotations

from typing import Any

from peewee import BooleanField, CharField, ForeignKeyField, IntegerField

from mailjudge.store.models import (
    BaseModel,
    Game,
    Person,
    PowersField,
    UTCDateTimeField,
    one_of,
    utcnow,
)

# How a seat-phase's orders came (service/stats.py says what each means).
SEAT_PHASE_ORDERS = ("person", "standin", "none")
# The levers a player's orders may have come by, noted as they happen (LeverUse).
LEVERS = ("token", "ready", "reminder")


class SeatPhase(BaseModel):
    """One seat's duty in one processed phase, for the public missed-turn figures
    (service/stats.py): written beside the seat's record entry, with what covered it and
    the levers its orders came by. ``person`` is kept for the reliable-player count only
    and is never shown."""

    person_id: Any

    game = ForeignKeyField(Game, backref="seat_phases", on_delete="CASCADE", index=False)
    person = ForeignKeyField(Person, backref="seat_phases", null=True, on_delete="SET NULL")
    phase = CharField(max_length=16)
    sequence = IntegerField()  # the game's sequence of the phase
    kind = CharField(max_length=16)  # movement, retreat, adjustment
    powers = PowersField(max_length=255, default="")
    outcome = CharField(max_length=16)  # the record entry's outcome
    ordered_by = CharField(max_length=16)  # person, standin, none
    replacement = BooleanField(default=False)  # its player took the power over this phase
    levers = CharField(max_length=64, default="")  # token ready reminder extension grace
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "seat_phase"
        constraints = (one_of("ordered_by", SEAT_PHASE_ORDERS),)
        indexes = ((("game", "sequence"), False), (("at",), False))


class LeverUse(BaseModel):
    """A lever against missed turns used in a game's phase: orders filed by a Reply token
    or a ready-to-send block, a reminder mailed to a power (service/stats.py)."""

    game = ForeignKeyField(Game, backref="lever_uses", on_delete="CASCADE", index=False)
    sequence = IntegerField()
    power = CharField(max_length=32)
    lever = CharField(max_length=16)
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "lever_use"
        constraints = (one_of("lever", LEVERS),)
        indexes = ((("game", "sequence"), False),)


# Every table of this module, for the schema (tools/migrations.ALL_TABLES).
STATS_MODELS: tuple[type[BaseModel], ...] = (SeatPhase, LeverUse)

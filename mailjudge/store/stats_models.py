"""The tables of the judge's public figures: the missed-turn figures of /stats (what
service/seat_phases.py notes as phases are processed and levers used, and service/stats.py
counts), and the skill ratings (service/ratings.py). Kept apart from models.py, which holds
the games' own tables."""

from __future__ import annotations

from typing import Any

from peewee import BooleanField, CharField, FloatField, ForeignKeyField, IntegerField

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


class Rating(BaseModel):
    """A person's skill on one map in one press kind (service/ratings.py): OpenSkill's
    Plackett-Luce mu and sigma, after ``games`` rated games."""

    person = ForeignKeyField(Person, backref="ratings", on_delete="CASCADE", index=False)
    map_name = CharField(max_length=32)
    press = CharField(max_length=16)  # press, no press
    mu = FloatField()
    sigma = FloatField()
    games = IntegerField(default=0)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("person", "map_name", "press"), True),)


class RatedGame(BaseModel):
    """A finished game whose result the ratings took in, once, and by which rule."""

    game = ForeignKeyField(Game, backref="rated", on_delete="CASCADE", unique=True)
    scoring = CharField(max_length=16)
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "rated_game"


# Every table of this module, for the schema (tools/migrations.ALL_TABLES).
STATS_MODELS: tuple[type[BaseModel], ...] = (SeatPhase, LeverUse, Rating, RatedGame)

"""The tables of tournaments (service/tournaments.py): rounds of boards on one map and
rules, their players and the boards' games."""

from __future__ import annotations

from typing import Any

from peewee import BooleanField, CharField, ForeignKeyField, IntegerField

from mailjudge.store.models import (
    BaseModel,
    Game,
    Person,
    PowersField,
    RulesField,
    UTCDateTimeField,
    utcnow,
)


class Tournament(BaseModel):
    name = CharField(max_length=20, unique=True)
    master = ForeignKeyField(Person, backref="tournaments")
    password_hash = CharField(max_length=255)
    map_name = CharField(max_length=32, default="standard")
    rules = RulesField(default="")
    scoring = CharField(max_length=20, default="DRAW_SIZE")
    rounds = IntegerField(default=2)
    round = IntegerField(default=0)  # rounds begun so far
    anonymous = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow)


class TournamentPlayer(BaseModel):
    """A person registered for a tournament, with the password hash their seats take and
    the name standings show (never the address)."""

    person_id: Any

    tournament = ForeignKeyField(Tournament, backref="players", on_delete="CASCADE")
    person = ForeignKeyField(Person, on_delete="CASCADE")
    number = IntegerField()  # 1, 2, ...: "player 3" while the tournament is anonymous
    shown = CharField(max_length=32, default="")
    password_hash = CharField(max_length=255)
    # The CONFIRM token while an address new to the judge registers (a forged From must
    # not register a stranger); null once its address answered.
    token = CharField(max_length=32, null=True, default=None)

    class Meta:
        table_name = "tournament_player"
        indexes = ((("tournament", "person"), True),)


class TournamentSeat(BaseModel):
    """A player's power on one board of one round."""

    game_id: Any
    player_id: Any

    tournament = ForeignKeyField(Tournament, backref="seats", on_delete="CASCADE")
    round = IntegerField()
    game = ForeignKeyField(Game, on_delete="CASCADE")
    player = ForeignKeyField(TournamentPlayer, on_delete="CASCADE")
    powers = PowersField(max_length=64, default="")

    class Meta:
        table_name = "tournament_seat"


TOURNAMENT_MODELS: tuple[type[BaseModel], ...] = (Tournament, TournamentPlayer, TournamentSeat)

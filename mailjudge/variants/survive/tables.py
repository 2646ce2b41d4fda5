"""Survive's table: the powers voted out, and when."""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField

from mailjudge.store.models import BaseModel, Game, one_of

OUTCAST_REASONS = ("voted", "no centres", "tied")


class Outcast(BaseModel):
    """Survive: a power out of the game, from the adjustment phase it went out in.

    ``sequence`` is that phase's; rows of later phases than the game's current one belong
    to a future undone by ROLLBACK and count again on ROLLFORWARD. "tied" rows are the
    candidates of a victor vote (Survive 5b) while it is open.
    """

    game = ForeignKeyField(Game, backref="outcasts", on_delete="CASCADE", index=False)
    power = CharField(max_length=32)
    phase = CharField(max_length=16)
    sequence = IntegerField()
    reason = CharField(max_length=16)

    class Meta:
        constraints = (one_of("reason", OUTCAST_REASONS),)
        indexes = ((("game", "sequence", "power"), True),)

"""Diplonomic's table: every version of a game's numbered rules text."""

from __future__ import annotations

from peewee import ForeignKeyField, IntegerField, TextField

from mailjudge.store.models import BaseModel, Game, Proposal, UTCDateTimeField, utcnow


class Rulebook(BaseModel):
    """A version of a game's numbered rules text (RULEBOOK, enacted proposals)."""

    game = ForeignKeyField(Game, backref="rulebooks", on_delete="CASCADE", index=False)
    version = IntegerField()
    text = TextField()
    proposal = ForeignKeyField(Proposal, null=True, on_delete="SET NULL")
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "version"), True),)

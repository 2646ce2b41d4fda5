"""Democratic's tables: each country's list, and what was posted to it (for digests)."""

from __future__ import annotations

from peewee import BooleanField, CharField, ForeignKeyField, IntegerField, TextField

from mailjudge.store.models import BaseModel, Game, UTCDateTimeField, one_of, utcnow

DIGEST_FORMATS = ("rfc1153", "mime")


class CountryList(BaseModel):
    """A country's list: an outside list the master names, or the judge's own
    (GAME-COUNTRY@); a row exists once the master has said something about it."""

    game = ForeignKeyField(Game, backref="country_lists", on_delete="CASCADE", index=False)
    power = CharField(max_length=32)
    address = CharField(max_length=254)  # "" for the judge's own list
    external = BooleanField(default=False)
    digest_format = CharField(max_length=16, default="rfc1153")
    digest_number = IntegerField(default=0)  # digests sent so far: the next is number + 1
    last_post_id = IntegerField(default=0)  # the last ListPost a digest has carried
    last_digest_at = UTCDateTimeField(null=True)

    class Meta:
        constraints = (one_of("digest_format", DIGEST_FORMATS),)
        indexes = ((("game", "power"), True),)


class ListPost(BaseModel):
    """Everything that went to a country's list, kept for its digests: posts, press the
    country sent or received, nominations, order sets, comments, elections, results.
    Never a ballot, and a count only once its deadline has passed."""

    game = ForeignKeyField(Game, backref="list_posts", on_delete="CASCADE", index=False)
    power = CharField(max_length=32)
    phase = CharField(max_length=16, null=True)
    author = CharField(max_length=100)  # as shown: a citizen's name, a power, "the judge"
    subject = TextField()
    body = TextField()
    posted_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "power", "posted_at"), False),)

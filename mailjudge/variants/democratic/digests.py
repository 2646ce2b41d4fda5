"""Digests of country lists: what went to a country's list since its last digest, as one
mail, at each phase change and otherwise every `judge.digest_hours`.

A digest carries only what the list already received (ListPost): posts, press the country
sent or received, nominations, order sets, comments, the elected diplomat, counts after
their deadline, results. Ballots are never posted to a list, so no digest can show one.
Each list numbers its digests; a compare-and-set on that number means two workers never
send the same digest.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from mailjudge.config.settings import current_settings
from mailjudge.game.state import game_map
from mailjudge.render.digest import DigestHeading, DigestItem, mime_parts, rfc1153, topics
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import Game
from mailjudge.variants.democratic.citizens import citizen_addresses
from mailjudge.variants.democratic.country_lists import JUDGE, country_list, list_address, list_id
from mailjudge.variants.democratic.tables import CountryList, ListPost

# At most this many posts in one digest; the rest wait for the next one.
MAX_ITEMS = 500


def _list_row(game: Game, power: str) -> CountryList:
    row = country_list(game, power)
    if row is None:
        row, _ = CountryList.get_or_create(  # type: ignore[no-untyped-call]
            game=game, power=power, defaults={"address": ""}
        )
    return row


def digest(game: Game, power: str, now: datetime) -> Outgoing | None:
    """The next digest of a country's list, or None when nothing new went to it."""
    row = _list_row(game, power)
    posts = list(
        ListPost.select()
        .where((ListPost.game == game) & (ListPost.power == power)
               & (ListPost.id > row.last_post_id))
        .order_by(ListPost.id)
        .limit(MAX_ITEMS)
    )  # fmt: skip
    if not posts:
        return None
    claimed = (
        CountryList.update(
            digest_number=row.digest_number + 1, last_post_id=posts[-1].id, last_digest_at=now
        )
        .where((CountryList.id == row.id) & (CountryList.digest_number == row.digest_number))
        .execute()
    )
    if not claimed:
        return None  # another worker sent this digest
    address = list_address(game, power)
    heading = DigestHeading(f"{game.name}-{power.lower()}", row.digest_number + 1, address, now)
    # A post over the size limit (kept from before the limit) is never sent again.
    limit = current_settings().security.list_post_bytes
    items = [DigestItem(p.author, p.posted_at, p.subject, p.body) for p in posts
             if p.author == JUDGE or len(p.body.encode("utf-8")) <= limit]  # fmt: skip
    mail = Outgoing(
        to=[address], subject=f"[{game.name}-{power.lower()}] digest #{heading.number}", body="",
        kind="digest", game=game.name, phase=game.phase,
    )  # fmt: skip
    if row.digest_format == "mime":
        mail.body = topics(heading, items)
        mail.digest = mime_parts(heading, items)
    else:
        mail.body = rfc1153(heading, items)
    if not row.external:
        mail.bcc = citizen_addresses(game, power)
        if not mail.bcc:
            return None  # nobody to read it; the posts are marked as carried all the same
        mail.list_id, mail.list_post = list_id(game, power), address
        mail.reply_to = address  # a Reply to the digest is a post to the list, as to a post
    return mail


def for_game(game: Game, now: datetime) -> list[Outgoing]:
    """Every country's digest of one game (at a phase change)."""
    mails = [digest(game, power, now) for power in game_map(game).power_names]
    return [m for m in mails if m is not None]


def due(game: Game, now: datetime, hours: int) -> list[Outgoing]:
    """The game's scheduled digests: lists whose last digest is at least ``hours`` old."""
    if hours <= 0:
        return []
    cutoff = now - timedelta(hours=hours)
    sent = {
        row.power: row.last_digest_at
        for row in CountryList.select().where(CountryList.game == game)
    }
    mails: list[Outgoing] = []
    for power in game_map(game).power_names:
        last = sent.get(power) or game.started_at
        if last is None or last <= cutoff:
            mail = digest(game, power, now)
            if mail is not None:
                mails.append(mail)
    return mails

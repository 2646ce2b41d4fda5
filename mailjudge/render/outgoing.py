"""Drafts of the mail the judge sends besides a reply (press, results, notices), made for
the people seated in a game. The draft type is outbound's (outbound/draft.py); the service
layer, the variants and the commands make drafts here, and the pipeline queues them."""

from __future__ import annotations

import re

from mailjudge.addresses import press_reply_address
from mailjudge.outbound.draft import Outgoing
from mailjudge.store.models import Game, Seat

__all__ = [
    "Outgoing", "answer_subject", "mail_to_everyone", "mail_to_seat", "press_reply_address",
    "role_of",
]  # fmt: skip


def mail_to_seat(
    seat: Seat, subject: str, body: str, kind: str, phase: str | None = None
) -> Outgoing:
    """A mail to the person in a seat, with the game's headers and their role."""
    game = seat.game
    if seat.person is None:
        raise ValueError(f"nobody sits in {seat.name} of {game.name} to mail")
    return Outgoing(
        to=[seat.person.mailbox],
        subject=f"[{game.name}] {subject}",
        body=body,
        kind=kind,
        game=game.name,
        phase=phase or game.phase,
        role=role_of(seat),
    )


def seat_country(seat: Seat) -> str | None:
    """The country of a seat placed on a supply centre (a Democratic citizen): whoever
    owns that centre now; None for a seat placed on none."""
    if not seat.centre:
        return None
    owners = (seat.game.position or {}).get("sc_owners") or {}
    country = owners.get(seat.centre)
    return str(country) if country else None


def role_of(seat: Seat) -> str:
    """The X-Mailjudge-Role of a mail to the person in ``seat``: ``player FRANCE``,
    ``citizen FRANCE`` (the country of a seat placed on a centre, as every mail to them
    names it), ``master``."""
    return f"{seat.role} {seat.powers or seat_country(seat) or ''}".strip()


def mail_to_everyone(
    game: Game, subject: str, body: str, phase: str | None = None
) -> list[Outgoing]:
    """A notice to everyone seated in the game: players, teammates, observers, the master."""
    seats = Seat.select().where((Seat.game == game) & (Seat.status == "active"))
    return [mail_to_seat(s, subject, body, "notice", phase) for s in seats if s.person_id]


def answer_subject(subject: str, game: Game | None) -> str:
    """An answer's Subject: ``Re:`` and the mail's own, then the game and phase the mail
    was about, so that a mailbox tells answers apart: ``Re: my orders [g1 S1901M]``. The
    tag of an earlier answer (a reply to a reply) is replaced, not repeated, since the
    phase may have moved on; ``Re: Re:`` becomes one. An empty Subject reads ``Re: your
    commands``."""
    text = " ".join(subject.split())
    if game is not None:
        tag = rf"\s*\[{re.escape(game.name)}(?: [A-Z0-9]+)?\]"
        text = re.sub(tag, "", text, flags=re.IGNORECASE).strip()
    text = re.sub(r"^(?:re:\s*)+", "", text, flags=re.IGNORECASE)  # one Re:, not Re: Re:
    text = f"Re: {text or 'your commands'}"
    if game is None:
        return text
    return f"{text} [{game.name}{f' {game.phase}' if game.phase else ''}]"

"""A mail the judge will send besides a reply: press, results, notices. The service layer
and the commands make them; the pipeline queues them."""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage

from mailjudge.models import Game, Seat


@dataclass
class Outgoing:
    """A mail the judge will send besides the reply (press, results, notices)."""

    to: list[str]
    subject: str
    body: str
    kind: str  # press, results, notice, list
    game: str | None = None
    phase: str | None = None
    role: str | None = None  # X-Mailjudge-Role for a mail to one person
    html: str | None = None
    attachments: list[tuple[str, str, bytes]] = field(default_factory=list)  # (name, type, data)
    bcc: list[str] = field(default_factory=list)  # envelope only: a list's members
    list_id: str | None = None  # List-Id and List-Post for mail to a country's list
    list_post: str | None = None
    digest: list[EmailMessage] = field(default_factory=list)  # a MIME digest's messages
    board: int | None = None  # a stored BoardPicture: PNG shown in the HTML part, SVG attached
    reply_to: str | None = None  # where a Reply goes: the press's writer, the list


def press_reply_address(judge: str, game: str, powers: list[str]) -> str:
    """judge+GAME-press-FRANCE@domain: a Reply there is press back to FRANCE (several
    powers joined with dots). It names who wrote, never a password."""
    local, _, domain = judge.rpartition("@")
    who = ".".join(p.lower() for p in powers)
    return f"{local}+{game.lower()}-press-{who}@{domain}"


def mail_to_seat(
    seat: Seat, subject: str, body: str, kind: str, phase: str | None = None
) -> Outgoing:
    """A mail to the person in a seat, with the game's headers and their role."""
    game = seat.game
    return Outgoing(
        to=[seat.person.email],
        subject=f"[{game.name}] {subject}",
        body=body,
        kind=kind,
        game=game.name,
        phase=phase or game.phase,
        role=role_of(seat),
    )


def seat_country(seat: Seat) -> str | None:
    """A Democratic citizen's country: whoever owns their centre now."""
    if not seat.centre:
        return None
    owners = (seat.game.position or {}).get("sc_owners") or {}
    country = owners.get(seat.centre)
    return str(country) if country else None


def role_of(seat: Seat) -> str:
    """The X-Mailjudge-Role of a mail to the person in ``seat``: ``player FRANCE``,
    ``citizen FRANCE`` (SPEC section 2), ``master``."""
    if seat.role in ("citizen", "diplomat"):
        return f"{seat.role} {seat_country(seat) or ''}".strip()
    return f"{seat.role} {seat.powers}".strip()


def mail_to_everyone(
    game: Game, subject: str, body: str, phase: str | None = None
) -> list[Outgoing]:
    """A notice to everyone seated in the game: players, teammates, observers, the master."""
    seats = Seat.select().where((Seat.game == game) & (Seat.status == "active"))
    return [mail_to_seat(s, subject, body, "notice", phase) for s in seats if s.person_id]

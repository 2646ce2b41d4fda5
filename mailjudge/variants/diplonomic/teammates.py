"""Diplonomic teammates (rule 7): named by a contestant, confirmed by mail, authorized to
order or not, and announced to everyone in the game.

A teammate sits in a seat of role "teammate" that ``assists`` the contestant's seat and
holds the same powers, so STATUS and ORDERS find the power; ``authorized`` says whether
the teammate's orders are taken. A removed teammate's seat stays (status "ejected", no
password) so the orders they sent still say who sent them.
"""

from __future__ import annotations

from typing import cast

from mailjudge.game.errors import NotAllowed, NotFound
from mailjudge.game.state import person_for, public_name, unique_name
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone, mail_to_seat
from mailjudge.secrecy.passwords import hash_password
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, GameState, Person, Seat


def _in_game(game: Game, person: Person) -> list[Seat]:
    return list(Seat.select().where((Seat.game == game) & (Seat.person == person)))


def require_contestant(seat: Seat) -> None:
    if seat.role != "player" or seat.person_id is None or seat.game.variant != "diplonomic":
        raise NotAllowed("only a contestant of a Diplonomic game names teammates")
    if seat.game.state == GameState.FINISHED:
        raise NotAllowed(f"game {seat.game.name} is over")


def invite(contestant: Seat, address: str, name: str | None = None) -> Seat:
    """TEAMMATE ADD: a seat waiting for the person's ACCEPT."""
    require_contestant(contestant)
    game = contestant.game
    person = person_for(address)
    with database_proxy.atomic():
        for seat in _in_game(game, person):
            if seat.role == "player" and seat.status == "active":
                raise NotAllowed(
                    f"{person.email} is a contestant in {game.name}; a teammate may not be one"
                )
            if seat.role == "teammate" and seat.status in ("active", "invited"):
                if seat.assists_id == contestant.id:
                    raise NotAllowed(f"{person.email} is already your teammate (or invited)")
                raise NotAllowed(
                    f"{person.email} is already another contestant's teammate in {game.name}"
                )
        earlier = next((s for s in _in_game(game, person) if s.role == "teammate"), None)
        seat = earlier or Seat(game=game, person=person, role="teammate")
        if earlier is None:
            seat.name = unique_name(game, name or person.email.split("@")[0])
            seat.public_name = public_name(name)
        seat.assists = contestant
        seat.powers = contestant.powers
        seat.status = "invited"
        seat.authorized = False
        seat.password_hash = None
        seat.save()
    return seat


def invitation(seat: Seat) -> Outgoing:
    body = render(
        "diplonomic/teammate_invite.txt.j2", game=seat.game, seat=seat, contestant=seat.assists
    )
    return mail_to_seat(seat, f"{seat.assists.powers} names you as a teammate", body, "notice")


def accept(game: Game, address: str, password: str, name: str | None = None) -> Seat:
    """ACCEPT game password [AS name], from the address the contestant named."""
    person = Person.get_or_none(Person.email == address.strip().lower())
    seat = None
    if person is not None:
        seat = next(
            (s for s in _in_game(game, person) if s.role == "teammate" and s.status == "invited"),
            None,
        )
    if seat is None:
        raise NotFound(
            f"nobody has named {address} as a teammate in {game.name}; a contestant sends"
            f" TEAMMATE ADD {address} first"
        )
    if name and name.lower() != seat.name:
        taken = Seat.get_or_none((Seat.game == game) & (Seat.name == name.lower()))
        if taken is not None:
            raise NotAllowed(f"the name {name.lower()} is taken in {game.name}; choose another")
        seat.name = unique_name(game, name)
        seat.public_name = public_name(name)
    seat.password_hash = hash_password(password)
    seat.status = "active"
    seat.save()
    return seat


def find(contestant: Seat, who: str) -> Seat:
    """One of the contestant's teammates, by name or address."""
    who = who.strip().lower()
    for seat in contestant.teammates:
        if seat.status in ("active", "invited") and (
            seat.name == who or (seat.person_id and seat.person.email == who)
        ):
            return cast(Seat, seat)
    names = ", ".join(t.name for t in active(contestant)) or "none"
    raise NotFound(f"{who} is not your teammate (your teammates: {names})")


def remove(contestant: Seat, who: str) -> Seat:
    require_contestant(contestant)
    seat = find(contestant, who)
    seat.status = "ejected"
    seat.authorized = False
    seat.password_hash = None
    seat.save()
    return seat


def authorize(contestant: Seat, who: str, allowed: bool) -> Seat:
    require_contestant(contestant)
    seat = find(contestant, who)
    if seat.status != "active":
        raise NotAllowed(f"{seat.name} has not accepted yet; they send ACCEPT first")
    seat.authorized = allowed
    seat.save()
    return seat


def active(contestant: Seat) -> list[Seat]:
    return [s for s in contestant.teammates.order_by(Seat.name) if s.status == "active"]


def of_powers(game: Game, powers: list[str]) -> list[str]:
    """The names of the teammates of the contestants holding ``powers``."""
    wanted = set(powers)
    contestants = Seat.select().where((Seat.game == game) & (Seat.role == "player"))
    return [t.name for c in contestants if wanted & set(c.powers) for t in active(c)]


def announcement(game: Game, teammate: Seat, joined: bool) -> list[Outgoing]:
    """Rule 7: who assists whom is public; everyone in the game is told."""
    body = render(
        "diplonomic/teammate_news.txt.j2", game=game, teammate=teammate, powers=teammate.powers,
        joined=joined,
    )  # fmt: skip
    verb = "joins" if joined else "leaves"
    return mail_to_everyone(game, f"{teammate.name} {verb} {teammate.powers}'s team", body)

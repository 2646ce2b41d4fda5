"""Country lists run by the judge: mail to GAME-COUNTRY@ (the judge's domain) goes to every
citizen of that country.

A post must begin with a SIGNON line (the sender's address proves nothing); the line is
taken off, and the rest goes to the list with List-Id and List-Post, archived as the
country's press. Only the country's citizens (and the master) may post.
"""

from __future__ import annotations

from mailjudge.inbound.addresses import split_address
from mailjudge.models import Game, Press, Seat
from mailjudge.render.outgoing import Outgoing
from mailjudge.service.errors import NotAllowed, ServiceError
from mailjudge.service.seats import authenticate, seat_in


def list_target(address: str, judge_address: str) -> tuple[Game, str] | None:
    """(game, country) when ``address`` is one of the judge's country lists."""
    local, domain = split_address(address)
    if not domain or domain != split_address(judge_address)[1] or "-" not in local:
        return None
    name, _, country = local.lower().rpartition("-")
    game = Game.get_or_none(Game.name == name)
    if game is None or game.variant != "democratic":
        return None
    from mailjudge.service.games import game_map

    power = country.upper()
    return (game, power) if power in game_map(game).powers else None


def post(game: Game, power: str, text: str) -> tuple[Seat, Outgoing]:
    """Check a post's SIGNON and make the list mail; the sender's seat and the mail."""
    from mailjudge.variants.democratic import CITIZEN_ROLES, country_of, list_mail

    lines = text.strip().splitlines()
    words = lines[0].split() if lines else []
    if len(words) != 3 or words[0].upper() != "SIGNON":
        raise ServiceError(
            "a post to a country's list begins with SIGNON name@game password on its first "
            "line; that line is taken off before the post goes out"
        )
    who, _, game_name = words[1].partition("@")
    seat = authenticate(seat_in(game_name or game.name, who), words[2])
    if seat.game_id != game.id:
        raise NotAllowed(f"that SIGNON is for another game than {game.name}")
    if seat.role != "master" and (seat.role not in CITIZEN_ROLES or country_of(seat) != power):
        raise NotAllowed(f"only citizens of {power} post to its list")
    body = "\n".join(lines[1:]).strip()
    if not body:
        raise ServiceError("the post is empty after its SIGNON line")
    Press.create(game=game, phase=game.phase, sender=seat, recipients=power, body=body + "\n")
    mail = list_mail(game, power, f"from {seat.name}", f"{seat.name} writes:\n\n{body}\n")
    if mail is None:
        raise ServiceError(f"{power} has no citizens to write to")
    return seat, mail

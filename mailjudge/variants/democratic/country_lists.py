"""Country lists: each country of a Democratic game has one, either run by the judge
(GAME-COUNTRY@ the judge's domain, sent to every citizen of the country) or an outside list
(a Mailman list, say) whose address the master gives with SET LIST.

A post to the judge's own list must begin with a SIGNON line (the sender's address proves
nothing); the line is taken off, and the rest goes to the list with List-Id and List-Post,
archived as the country's press. Only the country's citizens (and the master) may post.
Everything the judge sends to a list is kept (ListPost) for the list's digests.
"""

from __future__ import annotations

from mailjudge.addresses import judge_detail, split_address
from mailjudge.config.settings import current_settings
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import authenticate, game_map, seat_in
from mailjudge.render.outgoing import Outgoing
from mailjudge.secrecy.masking import password_command
from mailjudge.store.models import Game, Press, Seat
from mailjudge.variants.addresses import ListThread
from mailjudge.variants.democratic.citizens import CITIZEN_ROLES, citizen_addresses, country_of
from mailjudge.variants.democratic.tables import DIGEST_FORMATS, CountryList, ListPost

JUDGE = "the judge"  # the author of what the judge itself posts
DIGEST_WORDS = {"PLAIN": "rfc1153", "RFC1153": "rfc1153", "MIME": "mime"}


def country_list(game: Game, power: str) -> CountryList | None:
    """The master's settings for a country's list; None: the judge's own, plain digests."""
    return CountryList.get_or_none((CountryList.game == game) & (CountryList.power == power))


def list_address(game: Game, power: str, judge: str | None = None) -> str:
    """Where a country's list is: the outside address the master set, else
    GAME-COUNTRY@ the judge's domain."""
    chosen = country_list(game, power)
    if chosen is not None and chosen.external:
        return str(chosen.address)
    domain = (judge or current_settings().judge.address).rpartition("@")[2]
    return f"{game.name}-{power.lower()}@{domain}"


def list_id(game: Game, power: str) -> str:
    """The judge's own list's List-Id (RFC 2919): GAME-COUNTRY.domain."""
    address = list_address(game, power)
    return f"{game.name}-{power.lower()}.{address.rpartition('@')[2]}"


def archive(game: Game, power: str, author: str, subject: str, body: str) -> ListPost:
    return ListPost.create(
        game=game, power=power, phase=game.phase, author=author[:100], subject=subject,
        body=body,
    )  # fmt: skip


def list_mail(
    game: Game, power: str, subject: str, body: str, author: str = JUDGE
) -> Outgoing | None:
    """One mail to a country's list, kept for its digests. To an outside list it goes as
    one mail; the judge's own goes to every citizen (None when there is none). A
    person's post longer than `security.list_post_bytes` is refused: a list multiplies
    every byte by its members."""
    limit = current_settings().security.list_post_bytes
    size = len(body.encode("utf-8"))
    if author != JUDGE and size > limit:
        raise ServiceError(
            f"a post to a country's list is at most {limit} bytes, and this one is {size}: "
            "send a shorter one"
        )
    archive(game, power, author, subject, body)
    chosen = country_list(game, power)
    label = f"[{game.name}-{power.lower()}]"
    tag = subject if label in subject.lower() else f"{label} {subject}"
    if chosen is not None and chosen.external:
        return Outgoing(
            to=[chosen.address], subject=tag, body=body, kind="list", game=game.name,
            phase=game.phase,
        )  # fmt: skip
    members = citizen_addresses(game, power)
    if not members:
        return None
    address = list_address(game, power)
    return Outgoing(
        to=[address], subject=tag, body=body, kind="list", game=game.name, phase=game.phase,
        bcc=members, list_id=list_id(game, power), list_post=address, reply_to=address,
    )  # fmt: skip


def set_list(game: Game, power: str, where: str, digest: str | None) -> CountryList:
    """SET LIST: an outside address for a country's list, or JUDGE for the judge's own;
    PLAIN (RFC 1153) or MIME digests."""
    power = power.upper()
    if power not in game_map(game).powers:
        raise ServiceError(
            f"{power} is not a country of {game.name}; write SET LIST FRANCE address [PLAIN|MIME]"
        )
    external = where.upper() != "JUDGE"
    local, domain = split_address(where)
    judge = current_settings().judge.address
    if external and (judge_detail(where, judge) is not None or list_target(where, judge)):
        raise ServiceError("that is the judge's own address; name the outside list's address")
    if external and (not local or not domain):
        raise ServiceError(
            f"{where!r} is not a mail address; write SET LIST {power} france@lists.example.org, "
            f"or SET LIST {power} JUDGE for the judge's own list"
        )
    fmt = DIGEST_WORDS.get((digest or "").upper()) if digest else None
    if digest and fmt not in DIGEST_FORMATS:
        raise ServiceError("digests are PLAIN (RFC 1153) or MIME (multipart/digest)")
    row = country_list(game, power) or CountryList(game=game, power=power)
    row.address = where.lower() if external else ""
    row.external = external
    if fmt:
        row.digest_format = fmt
    row.save()
    return row


def list_target(address: str, judge_address: str) -> tuple[Game, str] | None:
    """(game, country) when ``address`` is one of the judge's country lists."""
    local, domain = split_address(address)
    if not domain or domain != split_address(judge_address)[1] or "-" not in local:
        return None
    name, _, country = local.lower().rpartition("-")
    game = Game.get_or_none(Game.name == name)
    if game is None or game.variant != "democratic":
        return None
    power = country.upper()
    return (game, power) if power in game_map(game).powers else None


def post(
    game: Game,
    power: str,
    text: str,
    subject: str = "",
    sender: str = "",
    thread: ListThread | None = None,
) -> tuple[Seat, Outgoing]:
    """Check a post's SIGNON and make the list mail (under the poster's Subject, threaded
    under the post: ``thread``); the sender's seat and the mail."""
    chosen = country_list(game, power)
    if chosen is not None and chosen.external:
        raise ServiceError(
            f"{power}'s list is {chosen.address}; the master moved it there, so write to it"
        )

    lines = text.strip().splitlines()
    words = lines[0].split() if lines else []
    if len(words) != 3 or words[0].upper() != "SIGNON":
        raise ServiceError(
            "a post to a country's list begins with SIGNON name@game password on its first "
            "line; that line is taken off before the post goes out"
        )
    who, _, game_name = words[1].partition("@")
    seat = authenticate(seat_in(game_name or game.name, who), words[2], sender)
    if seat.game_id != game.id:
        raise NotAllowed(f"that SIGNON is for another game than {game.name}")
    if seat.role != "master" and (seat.role not in CITIZEN_ROLES or country_of(seat) != power):
        raise NotAllowed(f"only citizens of {power} post to its list")
    body = "\n".join(lines[1:]).strip()
    if not body:
        raise ServiceError("the post is empty after its SIGNON line")
    leaking = next(filter(None, map(password_command, lines[1:])), None)
    if leaking is not None:  # a second SIGNON, a JOIN ...: its password would go out
        raise ServiceError(
            f"the post holds a {leaking} line below its first: it would show a password to "
            "the list, so nothing was posted; send commands to the judge"
        )
    Press.create(game=game, phase=game.phase, sender=seat, recipients=power, body=body + "\n")
    mail = list_mail(
        game, power, subject.strip() or f"from {seat.name}", f"{seat.name} writes:\n\n{body}\n",
        seat.name,
    )  # fmt: skip
    if mail is None:
        raise ServiceError(f"{power} has no citizens to write to")
    if thread is not None:
        mail.in_reply_to, mail.references = thread.headers()
    return seat, mail

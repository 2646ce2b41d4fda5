"""PRESS TO ... ENDPRESS and BROADCAST ... ENDPRESS."""

from __future__ import annotations

from dataclasses import dataclass, field

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.models import Game, Seat
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat, press_reply_address
from mailjudge.service.lists import list_mail
from mailjudge.service.press import MASTER, resolve_recipients, send_press

# A press body with one of these lines would carry a password to other players.
_SECRET_COMMANDS = ("SIGNON", "JOIN", "CREATE", "TAKEOVER", "OBSERVE", "SET PASSWORD")


def _check_body(block: Block) -> str:
    if block.unterminated:
        raise CommandError("no ENDPRESS closes this press; nothing was sent")
    for line in block.body:
        if line.strip().upper().startswith(_SECRET_COMMANDS):
            raise CommandError(
                f"the press holds a line starting {line.split()[0].upper()}: it would show a "
                "password to others, so nothing was sent; put commands outside PRESS ... ENDPRESS"
            )
    body = "\n".join(block.body).strip("\n")
    if not body.strip():
        raise CommandError("the press is empty; nothing was sent")
    return body + "\n"


@dataclass
class Routes:
    """Where a Democratic game's press goes besides the players (seed 000): the diplomats
    of the countries written to, and the country lists it is posted on."""

    diplomats: list[Seat] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)  # countries with no diplomat now


def democratic_routes(game: Game, sender: Seat, recipients: list[str], cc_list: bool) -> Routes:
    """Seed 000: "The selected diplomat of each country communicates with other selected
    diplomats. Updates are posted in the countries mailing list." A diplomat's press to
    another country reaches that country's diplomat only; its citizens read what their
    own diplomat chooses to post. Press to one's own country, and the master's press to
    a country, go to that country's list; CC LIST posts a diplomat's press on their own
    country's list as well."""
    routes = Routes()
    if game.variant != "democratic":
        return routes
    from mailjudge.variants.democratic import country_of, diplomat_of

    own = country_of(sender) if sender.role in ("citizen", "diplomat") else None
    lists: set[str] = set()
    for country in recipients:
        if country == MASTER:
            continue
        if country == own or sender.role != "diplomat":
            lists.add(country)
            continue
        seat = diplomat_of(game, country)
        if seat is None or seat.person_id is None:
            routes.unreached.append(country)
        else:
            routes.diplomats.append(seat)
    if cc_list and own is not None:
        lists.add(own)
    routes.lists = sorted(lists)
    if sender.role == "diplomat" and routes.unreached and not (routes.diplomats or routes.lists):
        raise CommandError(
            f"{', '.join(routes.unreached)} has no diplomat now, and diplomats write only to "
            "diplomats; nothing was sent"
        )
    return routes


def _shown(sender: Seat, grey: bool) -> str:
    if sender.role == "master":
        return "the master"
    if grey:
        return "someone (grey press)"
    if sender.role == "teammate":
        return f"{' '.join(sender.powers.split())} (teammate {sender.name})"
    if sender.role in ("citizen", "diplomat"):
        from mailjudge.variants.democratic import country_of

        return f"{country_of(sender)} ({sender.role} {sender.name})"
    return " ".join(sender.powers.split()) or sender.name


def _writer(sender: Seat) -> list[str]:
    """Whom a Reply to the press goes back to, as press."""
    if sender.role == "master":
        return [MASTER]
    if sender.role == "diplomat":
        from mailjudge.variants.democratic import country_of

        country = country_of(sender)
        return [country] if country else []
    return sender.powers.split()


def deliver(
    ctx: Context, game: Game, sender: Seat, recipients: list[str], body: str, grey: bool,
    routes: Routes | None = None,
) -> None:  # fmt: skip
    """One mail per person the press is for, the sender hidden when GREY; in a Democratic
    game, one per diplomat written to and one per country list (see democratic_routes)."""
    routes = routes or Routes()
    seats = list(Seat.select().where(Seat.game == game))
    targets: list[Seat] = list(routes.diplomats)
    for seat in seats:
        if seat.person is None or seat.id == sender.id:
            continue
        # A Diplonomic teammate negotiates for the country, so its press reaches them too.
        speaks_for = seat.role == "player" or (seat.role == "teammate" and seat.status == "active")
        if (seat.role == "master" and MASTER in recipients) or (
            speaks_for and set(seat.powers.split()) & set(recipients)
        ):
            targets.append(seat)
    shown = _shown(sender, grey)
    broadcast = {p for s in seats for p in s.powers.split()} <= set(recipients)
    to_line = "everyone" if broadcast and game.variant != "democratic" else ", ".join(recipients)
    text = render("press.txt.j2", game=game, sender=shown, to_line=to_line, body=body,
                  answerable=not grey)  # fmt: skip
    # A Reply goes back to the writer as press; grey press must not say who wrote it.
    writer = _writer(sender)
    reply_to = None if grey or not writer else press_reply_address(ctx.judge, game.name, writer)
    for seat in targets:
        mail = mail_to_seat(seat, f"press from {shown}", text, "press")
        mail.reply_to = reply_to
        ctx.outgoing.append(mail)
    for country in routes.lists:
        mail = list_mail(game, country, f"press from {shown}", text, shown)
        if mail is not None:
            ctx.outgoing.append(mail)


def _reach_note(routes: Routes) -> list[str]:
    if not routes.unreached:
        return []
    return [f"not sent to {', '.join(routes.unreached)}: no diplomat there now"]


def _vote_out_in_press(game: Game, seat: Seat, recipients: list[str], block: Block) -> list[str]:
    """Survive players may send their vote-out to the master as press (seed 002, rule 3):
    the VOTE OUT lines of a press to M alone are one ballot, recorded before it is sent."""
    lines = [line.split() for line in block.body if line.upper().split()[:2] == ["VOTE", "OUT"]]
    if game.variant != "survive" or recipients != [MASTER] or not lines:
        return []
    from mailjudge.commands.vote import out_text
    from mailjudge.service.errors import ServiceError
    from mailjudge.variants import vote_out

    try:
        allocation = vote_out.vote_out(game, seat, [w for words in lines for w in words[2:]])
    except ServiceError as err:
        raise CommandError(f"nothing was sent: the press holds a vote-out ballot that does "
                           f"not count. {err}") from None  # fmt: skip
    return [f"vote-out ballot recorded: {out_text(allocation)} (secret; a later one replaces it)"]


@register
class PressTo(Command):
    name = "PRESS TO"
    aliases = ("PRESS",)
    usage = "PRESS TO FRANCE ENGLAND [GREY] [CC LIST] ... ENDPRESS"
    summary = (
        "private press; TO takes powers, initials, M (master), ALL, ALL BUT x; Democratic:"
        " a diplomat's press reaches the other countries' diplomats, and CC LIST posts it"
        " on the diplomat's own country's list too"
    )
    block_end = "ENDPRESS"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        words = list(args)
        if words and words[0].upper() == "TO":
            words = words[1:]
        cc_list = [w.upper() for w in words[-2:]] == ["CC", "LIST"]
        if cc_list:
            words = words[:-2]
        grey = bool(words) and words[-1].upper() == "GREY"
        if grey:
            words = words[:-1]
        if not words:
            raise CommandError("say who the press is for: PRESS TO FRANCE ... ENDPRESS")
        body = _check_body(block)
        recipients = resolve_recipients(game, words)
        routes = democratic_routes(game, seat, recipients, cc_list)
        ballot = _vote_out_in_press(game, seat, recipients, block)
        if ballot:
            ctx.touched.add(game.id)  # the last ballot may complete the phase
        send_press(game, seat, recipients, body, grey)
        deliver(ctx, game, seat, recipients, body, grey, routes)
        sent = f"press sent to {', '.join(recipients)}{' (grey)' if grey else ''}"
        return [sent, *_reach_note(routes), *ballot]


@register
class Broadcast(Command):
    name = "BROADCAST"
    usage = "BROADCAST ... ENDPRESS"
    summary = "press to everyone in the game"
    block_end = "ENDPRESS"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        body = _check_body(block)
        recipients = resolve_recipients(game, ["ALL"])
        routes = democratic_routes(game, seat, recipients, cc_list=False)
        send_press(game, seat, recipients, body, grey=False)
        deliver(ctx, game, seat, recipients, body, False, routes)
        return ["broadcast sent to everyone", *_reach_note(routes)]


def as_press_reply(text: str, powers: list[str]) -> str:
    """A Reply to a press mail, as commands: its SIGNON line, then the rest of what the
    replier wrote as press to the powers that wrote the press."""
    lines = text.strip("\n").splitlines()
    first = lines[0].split() if lines else []
    if not first or first[0].upper() != "SIGNON":
        raise CommandError(
            "a Reply to press goes to its writer as press, and begins with your SIGNON "
            "power@game password line; nothing was sent"
        )
    body = lines[1:]
    return "\n".join([lines[0], f"PRESS TO {' '.join(powers)}", *body, "ENDPRESS"])

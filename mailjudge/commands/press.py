"""PRESS TO ... ENDPRESS and BROADCAST ... ENDPRESS."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.models import Game, Seat
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat
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


def deliver(
    ctx: Context, game: Game, sender: Seat, recipients: list[str], body: str, grey: bool
) -> None:
    """One mail per person the press is for, the sender hidden when GREY."""
    seats = list(Seat.select().where(Seat.game == game))
    targets: list[Seat] = _citizen_targets(game, sender, recipients, seats)
    for seat in seats:
        if seat.person is None or seat.id == sender.id:
            continue
        if (seat.role == "master" and MASTER in recipients) or (
            seat.role == "player" and set(seat.powers.split()) & set(recipients)
        ):
            targets.append(seat)
    if sender.role == "master":
        shown = "the master"
    elif grey:
        shown = "someone (grey press)"
    else:
        shown = " ".join(sender.powers.split()) or sender.name
    broadcast = {p for s in seats for p in s.powers.split()} <= set(recipients)
    to_line = "everyone" if broadcast else ", ".join(recipients)
    text = render("press.txt.j2", game=game, sender=shown, to_line=to_line, body=body)
    for seat in targets:
        ctx.outgoing.append(mail_to_seat(seat, f"press from {shown}", text, "press"))


def _citizen_targets(
    game: Game, sender: Seat, recipients: list[str], seats: list[Seat]
) -> list[Seat]:
    """In a Democratic game a country's press goes to all its citizens (its list); what a
    diplomat sends abroad is copied to the diplomat's own country."""
    if game.variant != "democratic":
        return []
    from mailjudge.variants.democratic import CITIZEN_ROLES, country_of

    owners = dict((game.position or {}).get("sc_owners") or {})
    countries = set(recipients)
    if sender.role == "diplomat":
        countries.add(country_of(sender, owners) or "")
    return [
        s for s in seats
        if s.role in CITIZEN_ROLES and s.person is not None and s.id != sender.id
        and country_of(s, owners) in countries
    ]  # fmt: skip


@register
class PressTo(Command):
    name = "PRESS TO"
    aliases = ("PRESS",)
    usage = "PRESS TO FRANCE ENGLAND [GREY] ... ENDPRESS"
    summary = "private press; TO takes powers, initials, M (master), ALL, ALL BUT x"
    block_end = "ENDPRESS"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        words = list(args)
        if words and words[0].upper() == "TO":
            words = words[1:]
        grey = bool(words) and words[-1].upper() == "GREY"
        if grey:
            words = words[:-1]
        if not words:
            raise CommandError("say who the press is for: PRESS TO FRANCE ... ENDPRESS")
        body = _check_body(block)
        recipients = resolve_recipients(game, words)
        send_press(game, seat, recipients, body, grey)
        deliver(ctx, game, seat, recipients, body, grey)
        return [f"press sent to {', '.join(recipients)}{' (grey)' if grey else ''}"]


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
        send_press(game, seat, recipients, body, grey=False)
        deliver(ctx, game, seat, recipients, body, grey=False)
        return ["broadcast sent to everyone"]

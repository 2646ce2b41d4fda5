"""PRESS TO ... ENDPRESS and BROADCAST ... ENDPRESS."""

from __future__ import annotations

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


def deliver(
    ctx: Context, game: Game, sender: Seat, recipients: list[str], body: str, grey: bool
) -> None:
    """One mail per person the press is for, the sender hidden when GREY; in a Democratic
    game one mail per country's list."""
    seats = list(Seat.select().where(Seat.game == game))
    targets: list[Seat] = []
    for seat in seats:
        if seat.person is None or seat.id == sender.id:
            continue
        # A Diplonomic teammate negotiates for the country, so its press reaches them too.
        speaks_for = seat.role == "player" or (seat.role == "teammate" and seat.status == "active")
        if (seat.role == "master" and MASTER in recipients) or (
            speaks_for and set(seat.powers.split()) & set(recipients)
        ):
            targets.append(seat)
    if sender.role == "master":
        shown = "the master"
    elif grey:
        shown = "someone (grey press)"
    elif sender.role == "teammate":
        shown = f"{' '.join(sender.powers.split())} (teammate {sender.name})"
    else:
        shown = " ".join(sender.powers.split()) or sender.name
    broadcast = {p for s in seats for p in s.powers.split()} <= set(recipients)
    to_line = "everyone" if broadcast else ", ".join(recipients)
    text = render("press.txt.j2", game=game, sender=shown, to_line=to_line, body=body,
                  answerable=not grey)  # fmt: skip
    # A Reply goes back to the writer as press; grey press must not say who wrote it.
    writer = sender.powers.split() if sender.role != "master" else [MASTER]
    reply_to = None if grey or not writer else press_reply_address(ctx.judge, game.name, writer)
    for seat in targets:
        mail = mail_to_seat(seat, f"press from {shown}", text, "press")
        mail.reply_to = reply_to
        ctx.outgoing.append(mail)
    for country in _countries(game, sender, recipients):
        mail = list_mail(game, country, f"press from {shown}", text, shown)
        if mail is not None:
            ctx.outgoing.append(mail)


def _countries(game: Game, sender: Seat, recipients: list[str]) -> list[str]:
    """In a Democratic game a country's press goes to its list; what a diplomat sends
    abroad is copied to the diplomat's own country's list."""
    if game.variant != "democratic":
        return []
    from mailjudge.variants.democratic import country_of

    countries = {r for r in recipients if r != MASTER}
    if sender.role == "diplomat":
        countries.add(country_of(sender) or "")
    return sorted(c for c in countries if c)


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
        ballot = _vote_out_in_press(game, seat, recipients, block)
        if ballot:
            ctx.touched.add(game.id)  # the last ballot may complete the phase
        send_press(game, seat, recipients, body, grey)
        deliver(ctx, game, seat, recipients, body, grey)
        return [f"press sent to {', '.join(recipients)}{' (grey)' if grey else ''}", *ballot]


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

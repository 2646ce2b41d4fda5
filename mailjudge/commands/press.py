"""PRESS TO ... ENDPRESS and BROADCAST ... ENDPRESS."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.game.errors import ServiceError
from mailjudge.models import Game, Seat
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat, press_reply_address
from mailjudge.service.press import MASTER, resolve_recipients, send_press
from mailjudge.variants import variant_of
from mailjudge.variants.base import PressRoutes

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


def _routes(game: Game, seat: Seat, recipients: list[str], cc_list: bool) -> PressRoutes:
    try:
        return variant_of(game).press_routes(game, seat, recipients, cc_list)
    except ServiceError as err:
        raise CommandError(str(err)) from None


def _shown(game: Game, sender: Seat, grey: bool) -> str:
    if sender.role == "master":
        return "the master"
    if grey:
        return "someone (grey press)"
    powers = " ".join(variant_of(game).speaks_for(sender))
    if sender.role in ("teammate", "citizen", "diplomat"):
        return f"{powers} ({sender.role} {sender.name})"
    return powers or sender.name


def _writer(game: Game, sender: Seat) -> list[str]:
    """Whom a Reply to the press goes back to, as press."""
    if sender.role == "master":
        return [MASTER]
    return variant_of(game).speaks_for(sender)


def deliver(
    ctx: Context, game: Game, sender: Seat, recipients: list[str], body: str, grey: bool,
    routes: PressRoutes | None = None,
) -> None:  # fmt: skip
    """One mail per person the press is for, the sender hidden when GREY; in a Democratic
    game, one per diplomat written to and one per country list (the variant's press_routes)."""
    routes = routes or PressRoutes()
    seats = list(Seat.select().where(Seat.game == game))
    targets: list[Seat] = list(routes.seats)
    for seat in seats:
        if seat.person is None or seat.id == sender.id:
            continue
        # A Diplonomic teammate negotiates for the country, so its press reaches them too.
        speaks_for = seat.role == "player" or (seat.role == "teammate" and seat.status == "active")
        if (seat.role == "master" and MASTER in recipients) or (
            speaks_for and set(seat.powers) & set(recipients)
        ):
            targets.append(seat)
    shown = _shown(game, sender, grey)
    held = {p for s in seats for p in s.powers}
    to_line = "everyone" if held and held <= set(recipients) else ", ".join(recipients)
    text = render("press.txt.j2", game=game, sender=shown, to_line=to_line, body=body,
                  answerable=not grey)  # fmt: skip
    # A Reply goes back to the writer as press; grey press must not say who wrote it.
    writer = _writer(game, sender)
    reply_to = None if grey or not writer else press_reply_address(ctx.judge, game.name, writer)
    for seat in targets:
        mail = mail_to_seat(seat, f"press from {shown}", text, "press")
        mail.reply_to = reply_to
        ctx.outgoing.append(mail)
    for country in routes.lists:
        posted = variant_of(game).list_mail(game, country, f"press from {shown}", text, shown)
        if posted is not None:
            ctx.outgoing.append(posted)


def _reach_note(routes: PressRoutes) -> list[str]:
    if not routes.unreached:
        return []
    return [f"not sent to {', '.join(routes.unreached)}: no diplomat there now"]


def _ballot_in_press(game: Game, seat: Seat, recipients: list[str], block: Block) -> list[str]:
    try:
        return variant_of(game).ballot_in_press(game, seat, recipients, list(block.body))
    except ServiceError as err:
        raise CommandError(
            f"nothing was sent: the press holds a ballot that does not count. {err}"
        ) from None


NO_FAKE = (
    "this judge has no fake press (a press that claims another sender): nothing was sent;"
    " PRESS TO ... GREY sends press without your name"
)


def _refuse_fake(words: list[str]) -> None:
    if any(w.upper() in ("FAKE", "FROM") for w in words):
        raise CommandError(NO_FAKE)


def private_press(ctx: Context, words: list[str], block: Block) -> list[str]:
    """PRESS TO x y [GREY] [CC LIST]: also njudge's PRESS GREY TO x, and initials run
    together (PRESS TO EF)."""
    game, seat = ctx.signed_on()
    _refuse_fake(words)
    upper = [w.upper() for w in words]
    grey = "GREY" in upper or "GRAY" in upper
    words = [w for w in words if w.upper() not in ("GREY", "GRAY", "TO")]
    cc_list = [w.upper() for w in words[-2:]] == ["CC", "LIST"]
    if cc_list:
        words = words[:-2]
    if not words:
        raise CommandError("say who the press is for: PRESS TO FRANCE ... ENDPRESS")
    body = _check_body(block)
    recipients = resolve_recipients(game, words)
    routes = _routes(game, seat, recipients, cc_list)
    ballot = _ballot_in_press(game, seat, recipients, block)
    if ballot:
        ctx.touched.add(game.id)  # the last ballot may complete the phase
    send_press(game, seat, recipients, body, grey)
    deliver(ctx, game, seat, recipients, body, grey, routes)
    sent = f"press sent to {', '.join(recipients)}{' (grey)' if grey else ''}"
    return [sent, *_reach_note(routes), *ballot]


@register
class PressTo(Command):
    action = Action.PRESS
    name = "PRESS TO"
    aliases = ("PRESS",)
    usage = "PRESS TO FRANCE ENGLAND [GREY] [CC LIST] ... ENDPRESS"
    summary = (
        "private press; TO takes powers, initials (F E, or run together: FE), M (master),"
        " ALL, ALL BUT x; Democratic: a diplomat's press reaches the other countries'"
        " diplomats, and CC LIST posts it on the diplomat's own country's list too"
    )
    block_end = "ENDPRESS"
    veteran_forms = ("PRESS GREY TO EF", "BROADCAST TO F", "ENDBROADCAST", "SIGNOFF ends press")

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        return private_press(ctx, list(args), block)


@register
class Broadcast(Command):
    action = Action.PRESS
    name = "BROADCAST"
    usage = "BROADCAST ... ENDPRESS"
    summary = "press to everyone in the game (BROADCAST TO F, as on njudge, is press to F)"
    block_end = "ENDPRESS"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _refuse_fake(list(args))
        if args and args[0].upper() == "TO":
            return private_press(ctx, list(args[1:]), block)  # njudge: press to those
        if args:
            raise CommandError("write BROADCAST alone (to everyone) or BROADCAST TO F G")
        return broadcast(ctx, block)


@register
class Official(Command):
    action = Action.PRESS
    name = "OFFICIAL"
    usage = "OFFICIAL ... ENDPRESS"
    summary = "DPjudge's word from the master to everyone: a broadcast by the master"
    block_end = "ENDPRESS"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        if seat.role != "master":
            raise CommandError("OFFICIAL is the master's; players write BROADCAST ... ENDPRESS")
        # DPjudge's OFFICIAL before a PRESS TO line: the press goes where that line says.
        lines = list(block.body)
        first = next((n for n, line in enumerate(lines) if line.strip()), len(lines))
        words = lines[first].split() if first < len(lines) else []
        if words and words[0].upper() in ("PRESS", "BROADCAST"):
            inner = Block(block.line_no, tuple(words), tuple(lines[first + 1 :]),
                          block.unterminated)  # fmt: skip
            if words[0].upper() == "PRESS":
                return private_press(ctx, words[1:], inner)
            return Broadcast().run(ctx, words[1:], inner)
        return broadcast(ctx, block)


def broadcast(ctx: Context, block: Block) -> list[str]:
    game, seat = ctx.signed_on()
    body = _check_body(block)
    recipients = resolve_recipients(game, ["ALL"])
    routes = _routes(game, seat, recipients, cc_list=False)
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

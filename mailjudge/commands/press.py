"""PRESS TO ... ENDPRESS and BROADCAST ... ENDPRESS."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.game.errors import ServiceError
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat, press_reply_address
from mailjudge.secrecy.masking import password_command
from mailjudge.service.press import MASTER, resolve_recipients, send_press
from mailjudge.store.models import Game, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.addresses import PressRoutes
from mailjudge.variants.questions import BallotInPress


def checked_body(block: Block) -> str:
    if block.unterminated:
        raise CommandError("no ENDPRESS closes this press; nothing was sent")
    for line in block.body:
        # A command that carries a password (secret_words.py), however it is written.
        command = password_command(line)
        if command is not None:
            raise CommandError(
                f"the press holds a {command} line: it would show a password to others, so "
                "nothing was sent; put commands outside PRESS ... ENDPRESS"
            )
    body = "\n".join(block.body).strip("\n")
    if not body.strip():
        raise CommandError("the press is empty; nothing was sent")
    return body + "\n"


def _routes(game: Game, seat: Seat, recipients: list[str], cc_list: bool) -> PressRoutes:
    try:
        return variant_of(game).addresses.press_routes(game, seat, recipients, cc_list)
    except ServiceError as err:
        raise CommandError(str(err)) from None


def _shown(game: Game, sender: Seat, grey: bool) -> str:
    if sender.role == "master":
        return "the master"
    if grey:
        return "someone (grey press)"
    powers = " ".join(variant_of(game).people.speaks_for(sender))
    if sender.role not in ("player", "observer"):  # a variant's seat: who speaks, and as what
        return f"{powers} ({sender.role} {sender.name})"
    return powers or sender.name


def _writer(game: Game, sender: Seat) -> list[str]:
    """Whom a Reply to the press goes back to, as press."""
    if sender.role == "master":
        return [MASTER]
    return variant_of(game).people.speaks_for(sender)


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
        # Whoever holds a power written to reads its press: its player, and a variant's
        # seat that holds it too (a Diplonomic teammate negotiates for the country).
        holds = seat.role not in ("master", "observer") and seat.status == "active"
        if (seat.role == "master" and MASTER in recipients) or (
            holds and set(seat.powers) & set(recipients)
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
        posted = variant_of(game).addresses.list_mail(
            game, country, f"press from {shown}", text, shown
        )
        if posted is not None:
            ctx.outgoing.append(posted)


def _reach_note(routes: PressRoutes) -> list[str]:
    if not routes.unreached:
        return []
    return [f"not sent to {', '.join(routes.unreached)}: no diplomat there now"]


def _ballot_in_press(game: Game, seat: Seat, recipients: list[str], block: Block) -> list[str]:
    try:
        asked = BallotInPress(game, seat, tuple(recipients), tuple(block.body))
        return variant_of(game).people.lines(asked) or []
    except ServiceError as err:
        raise CommandError(
            f"nothing was sent: the press holds a ballot that does not count. {err}"
        ) from None


NO_FAKE = (
    "this judge has no fake press (a press that claims another sender): nothing was sent;"
    " PRESS TO ... GREY sends press without your name"
)

# njudge's and DPjudge's press options that say who is named as the writer, and those
# that change nothing here (white press is the default; the writer never gets a copy).
_GREY_WORDS = frozenset({"GREY", "GRAY", "ANONYMOUS", "ANONYMOUSLY"})
_PLAIN_WORDS = frozenset({"WHITE", "UNANONYMOUS", "UNANONYMOUSLY", "QUIET", "NOFAKE"})


def _refuse_fake(words: list[str]) -> None:
    if any(w.upper() in ("FAKE", "FROM") for w in words):
        raise CommandError(NO_FAKE)


def press_words(words: list[str]) -> tuple[list[str], bool, bool]:
    """The words after PRESS or BROADCAST as njudge and DPjudge write them: the
    recipients (``TO list``, ``+list``, ``TO ALL BUT list``, ``-list``, names split at
    commas), whether the press is grey, and whether CC LIST ends it."""
    _refuse_fake(words)
    split = [part for w in words for part in w.replace(",", " , ").split() if part != ","]
    upper = [w.upper() for w in split]
    grey = any(w in _GREY_WORDS for w in upper)
    kept = [w for w in split if w.upper() not in _GREY_WORDS | _PLAIN_WORDS]
    cc_list = [w.upper() for w in kept[-2:]] == ["CC", "LIST"]
    if cc_list:
        kept = kept[:-2]
    recipients: list[str] = []
    for word in kept:
        w = word.upper()
        if w in ("TO", "+"):
            continue
        if w.startswith("+"):
            recipients.append(word[1:])
        elif w.startswith("-") and len(w) > 1:
            recipients += ["ALL", "BUT", word[1:]]  # njudge: -list is all but those
        else:
            recipients.append(word)
    return recipients, grey, cc_list


def private_press(ctx: Context, words: list[str], block: Block) -> list[str]:
    """PRESS TO x y [GREY] [CC LIST]: also njudge's PRESS GREY TO x, +list and -list,
    and initials run together (PRESS TO EF)."""
    game, seat = ctx.signed_on()
    recipients_words, grey, cc_list = press_words(words)
    if not recipients_words:
        raise CommandError("say who the press is for: PRESS TO FRANCE ... ENDPRESS")
    body = checked_body(block)
    recipients = resolve_recipients(game, recipients_words)
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
        recipients, grey, _ = press_words(list(args))
        if recipients:
            return private_press(ctx, list(args), block)  # njudge: press to those
        return broadcast(ctx, block, grey)


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


def broadcast(ctx: Context, block: Block, grey: bool = False) -> list[str]:
    game, seat = ctx.signed_on()
    body = checked_body(block)
    recipients = resolve_recipients(game, ["ALL"])
    routes = _routes(game, seat, recipients, cc_list=False)
    send_press(game, seat, recipients, body, grey=grey)
    deliver(ctx, game, seat, recipients, body, grey, routes)
    return [f"broadcast sent to everyone{' (grey)' if grey else ''}", *_reach_note(routes)]


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

"""VOTE EXTEND and VOTE NOEXTEND: the players move their own deadline (service/extend.py);
VOTE NOSTALEMATE: a player refuses the draw STALEMATE_DRAW asks for (service/stalemate.py).

The answer to a voter confirms their own vote only: never who else voted, nor how many."""

from __future__ import annotations

from datetime import timedelta

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.engine.timing import TimingError, format_length, parse_length
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.schedule import deadline_lines
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.deadline import deadline_text
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.service import extend, stalemate
from mailjudge.store.models import Game, Seat


@register
class VoteExtend(Command):
    action = Action.VOTE_EXTEND
    name = "VOTE EXTEND"
    usage = "VOTE EXTEND [hours | length]"
    summary = (
        "your secret vote to move this phase's deadline, e.g. VOTE EXTEND 24 (hours) or 2D "
        "(no length: the game's EXTEND_MAX); when EXTEND_QUORUM of the powers in play agree "
        "it moves"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE_EXTEND)
        asked = asked_length(args) if args else None
        done = extend.vote(game, seat, asked, ctx.now)
        cap = extend.longest(game)
        cut = asked is not None and asked > cap
        mine = format_length(cap if asked is None or cut else asked)
        lines = [f"your secret vote to extend the deadline by {mine} is recorded"]
        if cut:
            lines[0] += f" (the game's EXTEND_MAX: {format_length(cap)})"
        if done is None:
            lines.append("it stands for this phase until you write VOTE NOEXTEND")
            return lines
        told = tell_extended(ctx, game, done.length)
        shown = deadline_text(game, seat.person)
        return [f"the deadline moved by {format_length(done.length)}: {shown}; {told} told"]


_UNITS = {"H": "H", "HOUR": "H", "HOURS": "H", "D": "D", "DAY": "D", "DAYS": "D",
          "M": "M", "MIN": "M", "MINUTE": "M", "MINUTES": "M"}  # fmt: skip


def asked_length(args: list[str]) -> timedelta:
    """The length a VOTE EXTEND asks for: ``24`` (a bare number is hours, as the command
    was first asked for: VOTE EXTEND [hours]), ``24 hours``, ``2 days``, ``24H``, ``2D``."""
    text = "".join(args).upper()
    if len(args) == 2 and args[0].isdigit() and args[1].upper() in _UNITS:
        text = args[0] + _UNITS[args[1].upper()]
    elif text.isdigit():
        text += "H"
    try:
        return parse_length(text)
    except TimingError:
        raise CommandError(
            f"{' '.join(args)!r} is not a length; write VOTE EXTEND 24 (hours), or 24H, 2D, "
            "90M, or VOTE EXTEND alone for the game's longest (EXTEND_MAX)"
        ) from None


def tell_extended(ctx: Context, game: Game, length: timedelta) -> int:
    """Everyone in the game is told the new deadline, each in their zone, with the
    calendar event moved for those invited to it (as after SET DEADLINE)."""
    told = 0
    for seat in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
    ):
        body = render(
            "deadline_extended.txt.j2", game=game, length=format_length(length),
            deadline=deadline_lines(game, seat),
        )  # fmt: skip
        mail = mail_to_seat(seat, f"deadline extended for {game.phase}", body, "notice")
        mail.calendar = invitation_ics(game, seat, Change.MOVED, now=ctx.now)
        ctx.outgoing.append(mail)
        told += 1
    return told


@register
class VoteNoExtend(Command):
    action = Action.VOTE_EXTEND
    name = "VOTE NOEXTEND"
    aliases = ("VOTE NO EXTEND",)
    usage = "VOTE NOEXTEND"
    summary = "withdraw your vote to extend this phase's deadline"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE_EXTEND)
        if args:
            raise CommandError("write VOTE NOEXTEND alone")
        if extend.withdraw(game, seat):
            return ["your vote to extend the deadline is withdrawn"]
        return ["you had no vote to extend the deadline in this phase; nothing changed"]


@register
class VoteNoStalemate(Command):
    action = Action.VOTE
    name = "VOTE NOSTALEMATE"
    aliases = ("VOTE NO STALEMATE",)
    usage = "VOTE NOSTALEMATE"
    summary = (
        "refuse the draw STALEMATE_DRAW asks for after years with no centre changing "
        "owner (silence is consent); the game goes on"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        if args:
            raise CommandError("write VOTE NOSTALEMATE alone")
        ctx.outgoing += stalemate.refuse(game, seat, ctx.now)
        ctx.touched.add(game.id)
        return ["you refused the stalemate draw: the game goes on (nobody is told who refused)"]

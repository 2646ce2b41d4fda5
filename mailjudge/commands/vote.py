"""VOTE and PROPOSE: how a game ends by agreement (see service.draws)."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.game.state import has_rule
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.service import draws
from mailjudge.service.results import game_over_mails
from mailjudge.store.models import Game, Seat


def announce_end(ctx: Context, game: Game, outcome: str) -> None:
    ctx.outgoing += game_over_mails(game, outcome)


@register
class Vote(Command):
    action = Action.VOTE
    name = "VOTE"
    usage = "VOTE DRAW | VOTE CONCEDE power | VOTE NONE | VOTE YES/NO | VOTE n/SOLO/LOSS"
    summary = "your secret ballot on how the game ends (the form depends on the game's rules)"
    veteran_forms = ("SET DRAW", "SET NODRAW", "SET CONCEDE power", "SET NOCONCEDE")

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        if not args:
            raise CommandError("write VOTE DRAW, VOTE CONCEDE FRANCE or VOTE NONE")
        return draw_vote(ctx, game, seat, " ".join(args).upper())


class _SetBallot(Command):
    """njudge's SET DRAW, SET NODRAW, SET CONCEDE power and SET NOCONCEDE: the same ballots
    as VOTE DRAW, VOTE NONE and VOTE CONCEDE power. (The permission to vote is asked in
    run, so that a master writing njudge's SET DRAW is told of DECLARE DRAW.)"""

    action = Action.INFO
    listed = False
    choice = ""

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if seat.role == "master":
            raise CommandError("the master does not vote: the master ends a game in a draw "
                               "with DECLARE DRAW")  # fmt: skip
        ctx.require(Action.VOTE)
        choice = self.choice
        if choice == "CONCEDE":
            if len(args) != 1:
                raise CommandError("write SET CONCEDE FRANCE (the power you concede to)")
            choice = f"CONCEDE {args[0].upper()}"
        elif args:
            raise CommandError(f"write {self.name} alone (VOTE {choice} here)")
        return draw_vote(ctx, game, seat, choice)


@register
class SetDraw(_SetBallot):
    name = "SET DRAW"
    usage = "SET DRAW"
    summary = "njudge's form of VOTE DRAW"
    choice = "DRAW"


@register
class SetNoDraw(_SetBallot):
    name = "SET NODRAW"
    aliases = ("SET NO DRAW", "SET NOCONCEDE", "SET NO CONCEDE", "SET NOCONC", "SET NO CONC")
    usage = "SET NODRAW"
    summary = "njudge's form of VOTE NONE (also SET NOCONCEDE): your ballot withdrawn"
    choice = "NONE"


@register
class SetConcede(_SetBallot):
    name = "SET CONCEDE"
    aliases = ("SET CONC",)  # njudge before 1.4.0
    usage = "SET CONCEDE power"
    summary = "njudge's form of VOTE CONCEDE power"
    choice = "CONCEDE"


def draw_vote(ctx: Context, game: Game, seat: Seat, choice: str) -> list[str]:
    """A ballot on how the game ends, by its rules flags (see service.draws)."""
    if has_rule(game, "PROPOSE_DIAS"):
        if choice not in ("YES", "NO"):
            raise CommandError("in this game write PROPOSE DRAW, then VOTE YES or VOTE NO")
        outcome = draws.answer(game, seat, choice == "YES")
    elif has_rule(game, "NO_DIAS"):
        outcome = draws.vote_no_dias(game, seat, choice)
    else:
        outcome = draws.vote(game, seat, choice)
    if outcome:
        announce_end(ctx, game, outcome)
        return [f"vote recorded; all votes agree: {outcome.lower()}"]
    return ["vote recorded (votes are secret and stand until changed)"]


@register
class Propose(Command):
    action = Action.VOTE
    name = "PROPOSE"
    usage = "PROPOSE DRAW | PROPOSE CONCEDE power"
    summary = "propose an ending (PROPOSE_DIAS games); one NO vetoes it"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        proposal = draws.propose(game, seat, " ".join(args))
        body = render("proposal.txt.j2", game=game, proposal=proposal)
        for other in Seat.select().where((Seat.game == game) & (Seat.role == "player")):
            if other.person is not None and other.id != seat.id:
                subject = f"proposal: {proposal.text.lower()}"
                ctx.outgoing.append(mail_to_seat(other, subject, body, "notice"))
        return [f"proposal {proposal.number} ({proposal.text}) sent; everyone votes YES or NO"]

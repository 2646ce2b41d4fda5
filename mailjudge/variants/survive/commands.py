"""Commands of Survive games: the vote-out ballot and the victor vote, forms of VOTE."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.commands.vote import draw_vote
from mailjudge.permissions.vocabulary import Action
from mailjudge.store.models import Game, Seat
from mailjudge.variants.survive import vote_out


@register
class SurviveVote(Command):
    action = Action.VOTE_VICTOR
    name = "VOTE"
    variant = "survive"
    usage = "VOTE OUT power n [power m ...] | VOTE VICTOR power (and the ending votes)"
    summary = "Survive: whom your centres' votes put out, or the victor after a tie"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if not args or args[0].upper() not in ("OUT", "VICTOR"):
            ctx.require(Action.VOTE)
            if not args:
                raise CommandError("write VOTE OUT FRANCE 3 TURKEY 2, or VOTE VICTOR TURKEY")
            return draw_vote(ctx, game, seat, " ".join(args).upper())
        ctx.require(Action.VOTE_VICTOR if args[0].upper() == "VICTOR" else Action.VOTE)
        ctx.touched.add(game.id)  # the last ballot may complete the phase
        return _survive_vote(game, seat, args)


def _survive_vote(game: Game, seat: Seat, args: list[str]) -> list[str]:
    if args[0].upper() == "VICTOR":
        if len(args) != 2:
            raise CommandError("write VOTE VICTOR and one of the tied powers: VOTE VICTOR TURKEY")
        choice = vote_out.vote_victor(game, seat, args[1])
        return [f"victor ballot recorded: {choice} (secret; it may change until the deadline)"]
    allocation = vote_out.vote_out(game, seat, args[1:])
    return [f"vote-out ballot recorded: {vote_out.out_text(allocation)}"
            " (secret; a later one replaces it until the deadline)"]  # fmt: skip

"""Commands of Double Diplomacy: OVERRIDE (Lytton), and VOTE YES / VOTE NO on a joint win."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.commands.vote import announce_end, draw_vote
from mailjudge.permissions.vocabulary import Action
from mailjudge.variants import double


@register
class Override(Command):
    action = Action.ORDERS
    name = "OVERRIDE"
    variant = "double"
    arguments = "power order..."
    hint = "write OVERRIDE ENGLAND F LON - NTH (or OVERRIDE ENGLAND NONE)"
    summary = "Double (Lytton): your order for a shared unit stands against your partner's"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.ORDERS)
        return [double.override(game, seat, args[0], " ".join(args[1:]))]


@register
class DoubleVote(Command):
    action = Action.VOTE
    name = "VOTE"
    variant = "double"
    usage = "VOTE YES | VOTE NO (on a joint win, when one is put to you; and the ending votes)"
    summary = "Double (Lytton): your answer on a joint win after equal solos"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        choice = " ".join(args).upper()
        if not args:
            raise CommandError("write VOTE YES or VOTE NO on the joint win, or VOTE DRAW")
        if choice not in ("YES", "NO") or not double.joint_vote_open(game):
            return draw_vote(ctx, game, seat, choice)
        outcome = double.vote_joint(game, seat, choice == "YES")
        if outcome is None and choice == "NO":
            ctx.outgoing += double.tiebreak_notices(game)
            return ["you said NO: the game goes on in a tie-break"]
        if outcome:
            announce_end(ctx, game, outcome)
            return [f"vote recorded; all votes agree: {outcome.lower()}"]
        return ["vote recorded (votes are secret and stand until changed)"]

"""Commands of Double Diplomacy: OVERRIDE (Lytton). VOTE YES / VOTE NO on a joint win
are forms of VOTE, in commands/vote.py."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.variants import double


@register
class Override(Command):
    name = "OVERRIDE"
    usage = "OVERRIDE power order | OVERRIDE power NONE"
    summary = "Double (Lytton): your order for a shared unit stands against your partner's"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on_in("double", "OVERRIDE is")
        ctx.require("orders")
        if len(args) < 2:
            raise CommandError("write OVERRIDE ENGLAND F LON - NTH (or OVERRIDE ENGLAND NONE)")
        return [double.override(game, seat, args[0], " ".join(args[1:]))]

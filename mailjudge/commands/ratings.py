"""RATING: a person's skill ratings (service/ratings.py), mailed to their own address
only, as RECORD is; on the web's /ratings only under the name SET RECORD PUBLIC chose."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, Context
from mailjudge.commands.registry import register
from mailjudge.permissions.vocabulary import Action
from mailjudge.service import ratings, records


def rating_help() -> list[str]:
    return [RatingCommand.name, "", *ratings.FORMULA]


@register
class RatingCommand(Command):
    action = Action.RECORD  # who may ask: anyone, about their own address, as RECORD
    name = "RATING"
    arguments = ""
    hint = "write RATING alone: it mails you your own ratings; HELP RATING gives the formula"
    summary = (
        "your skill ratings (OpenSkill), one a map and press kind, mailed to the address "
        "you write from only; HELP RATING gives the formula"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.RECORD)
        ctx.token_for_sender = True  # about the From address, answered there only
        found = ratings.ratings_of(records.person_at(ctx.sender))
        if not found:
            return ["you have no rating yet: a rating starts when a game of yours ends"]
        lines = ["your ratings (mu - 3 sigma; mu, sigma; games rated):"]
        lines += [f"  {r.map_name}, {r.press}: {r.ordinal:.2f} (mu {r.mu:.2f}, sigma "
                  f"{r.sigma:.2f}; {r.games} game(s))" for r in found]  # fmt: skip
        return [*lines, "HELP RATING says how they are computed"]

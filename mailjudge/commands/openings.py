"""OPENINGS: the powers that need a player, by mail, and the openings mail itself (ON,
OFF). No password: OPENINGS ON is answered with a token to the From address only, and
nothing is sent until that address answers it with CONFIRM, so nobody can sign up
someone else; OPENINGS OFF stops it, as a mailing list's unsubscribe does."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, Context
from mailjudge.commands.registry import register
from mailjudge.game import openings
from mailjudge.permissions.vocabulary import Action
from mailjudge.service import openings as opening_mail


@register
class Openings(Command):
    action = Action.OPENINGS
    name = "OPENINGS"
    arguments = ""
    summary = "the powers that need a player now, and how to take one over (no password)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        shown = openings.public_openings()
        lines = ["no power needs a player now; OPENINGS ON tells you by mail when one does"]
        if shown:
            lines = [f"{len(shown)} power(s) need a player:"]
        for opening in shown:
            lines += [
                f"  {opening.title} in {opening.game} ({opening.variant}, "
                f"{opening.phase}): {len(opening.centres)} centre(s), "
                f"{len(opening.units)} unit(s); {opening.reason}",
                f"    {opening.takeover}",
            ]
        joining = opening_mail.recruiting()
        if joining:
            lines.append("games under way that take newcomers by JOIN, never by TAKEOVER:")
        for game in joining:
            lines += [f"  {game.game} ({game.variant}, {game.phase}): you join as {game.becomes}",
                      f"    {game.line}"]  # fmt: skip
        return lines


@register
class OpeningsOn(Command):
    action = Action.OPENINGS
    name = "OPENINGS ON"
    arguments = ""
    summary = "mail me when a power needs a player (answer the token with CONFIRM first)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if openings.is_subscribed(ctx.sender):
            return [f"{ctx.sender} gets the openings mail already; OPENINGS OFF stops it"]
        token = openings.ask(ctx.sender)
        ctx.token_for_sender = True  # the token goes to the asking address only
        return [
            "to get a mail whenever a power needs a player, answer this mail with the line",
            f"    CONFIRM {token}",
            "from this address. Nothing is sent to it until then. If you did not ask for "
            "this, do nothing.",
        ]


@register
class OpeningsOff(Command):
    action = Action.OPENINGS
    name = "OPENINGS OFF"
    arguments = ""
    summary = "no more mail about powers that need a player"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if openings.stop(ctx.sender):
            return [f"no more openings mail to {ctx.sender}"]
        return [f"{ctx.sender} was not getting the openings mail; nothing to stop"]

"""njudge's DIARY: a player's notes kept with the game, for their eyes until it ends."""

from __future__ import annotations

from mailjudge.commands.arguments import is_number
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.game import diary
from mailjudge.permissions.vocabulary import Action


def _number(args: list[str], usage: str) -> int:
    if len(args) != 1 or not is_number(args[0]):
        raise CommandError(f"write {usage} (n: a diary entry's number, as DIARY LIST shows it)")
    return int(args[0])


@register
class Diary(Command):
    action = Action.SEAT
    name = "DIARY"
    aliases = ("DIARY RECORD",)
    usage = "DIARY ... ENDDIARY"
    summary = (
        "a note kept with the game: shown to you with DIARY LIST / READ n and HISTORY,"
        " and to everyone once the game is over (DIARY DELETE n removes one)"
    )
    block_end = "ENDDIARY"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if block.unterminated:
            raise CommandError("no ENDDIARY closes this diary entry; nothing was kept")
        kept = diary.write(game, seat, "\n".join(block.body), ctx.now)
        return [
            f"diary entry {kept.number} kept with {game.name} ({kept.phase}); only you see "
            "it until the game is over"
        ]


@register
class DiaryList(Command):
    action = Action.SEAT
    name = "DIARY LIST"
    arguments = ""
    summary = "your diary entries in this game, one line each"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        found = diary.entries(game, seat)
        if not found:
            return [f"no diary entries in {game.name} yet: DIARY ... ENDDIARY writes one"]
        return [
            f"entry {e.number} ({e.phase}, {e.written_at:%Y-%m-%d %H:%M} UTC): "
            f"{e.body.splitlines()[0][:60]}"
            for e in found
        ]


@register
class DiaryRead(Command):
    action = Action.SEAT
    name = "DIARY READ"
    usage = "DIARY READ n"
    summary = "one of your diary entries, whole"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        e = diary.entry(game, seat, _number(args, self.usage))
        return [f"entry {e.number} ({e.phase}):", *e.body.rstrip("\n").splitlines()]


@register
class DiaryDelete(Command):
    action = Action.SEAT
    name = "DIARY DELETE"
    usage = "DIARY DELETE n"
    summary = "remove one of your diary entries"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        number = _number(args, self.usage)
        diary.delete(game, seat, number)
        return [f"diary entry {number} removed"]

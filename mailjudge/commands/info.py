"""LIST, SUMMARY, HISTORY and HELP: information anyone may ask for, no password needed."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register, unique_commands
from mailjudge.engine.interchange import position_from_dict
from mailjudge.models import Game, Seat
from mailjudge.render.results import order_line
from mailjudge.rules import catalogue
from mailjudge.service import games, processing


@register
class List(Command):
    name = "LIST"
    usage = "LIST [game]"
    summary = "the games on this judge, or one game's players and state"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if not args:
            rows = Game.select().where(~Game.private).order_by(Game.name)
            return [f"{g.name:<20} {g.variant:<10} {g.state:<9} {g.phase or ''}" for g in rows] or [
                "no games yet"
            ]
        game = games.get_game(args[0])
        lines = [f"{game.name}: {game.variant}, {game.state}, {game.phase or 'forming'}",
                 f"rules: {game.rules or 'none'}"]  # fmt: skip
        for seat in (
            Seat.select().where((Seat.game == game) & (Seat.role == "player")).order_by(Seat.name)
        ):
            who = "dummy" if seat.dummy else "vacant" if seat.person is None else "played"
            out = " (eliminated)" if seat.eliminated else ""
            team = [t.name for t in seat.teammates if t.status == "active"]
            helped = f", teammates: {', '.join(sorted(team))}" if team else ""
            lines.append(f"    {seat.powers or '(not dealt)':<10} {who}{out}{helped}")
        return lines


@register
class Summary(Command):
    name = "SUMMARY"
    usage = "SUMMARY game"
    summary = "a game's centre counts and state"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if len(args) != 1:
            raise CommandError("write SUMMARY game")
        game = games.get_game(args[0])
        lines = [f"{game.name}: {game.state} {game.phase or ''} {game.outcome}".rstrip()]
        if game.position:
            pos = position_from_dict(game.position, games.game_map(game))
            for power, n in sorted(pos.centre_counts().items(), key=lambda x: (-x[1], x[0])):
                units = len(pos.units_of(power))
                lines.append(f"    {power:<8} {n:>2} centres, {units:>2} units")
        return lines


@register
class History(Command):
    name = "HISTORY"
    usage = "HISTORY game [phase]"
    summary = "the results of every phase played (or of one)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if not args:
            raise CommandError("write HISTORY game [phase]")
        game = games.get_game(args[0])
        records = processing.history(game)
        if len(args) > 1:
            records = [r for r in records if r.phase == args[1].upper()]
            if not records:
                raise CommandError(f"{game.name} has played no phase {args[1].upper()}")
        lines: list[str] = []
        for record in records:
            lines.append(f"{record.phase}:")
            lines += [f"    {r['power']:<8} {order_line(r)}" for r in record.results["results"]]
        return lines or ["no phases played yet"]


@register
class Help(Command):
    name = "HELP"
    usage = "HELP [command | RULES]"
    summary = "this list; HELP RULES describes the rules flags"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if args and args[0].upper() == "RULES":
            cat = catalogue()
            return [line for name in cat.names for line in (f"{name}: {cat.get(name).summary}",)]
        if args:
            wanted = " ".join(args).upper()
            for command in unique_commands():
                if command.name == wanted or wanted in command.aliases:
                    return [command.usage, f"    {command.summary}"]
            raise CommandError(f"no command {wanted}; HELP lists them all")
        lines = ["Commands (case does not matter; several per mail; END closes a block):"]
        for command in unique_commands():
            lines.append(f"  {command.usage}")
            lines.append(f"      {command.summary}{' (master)' if command.master_only else ''}")
        return lines

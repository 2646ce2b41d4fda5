"""LIST, SUMMARY, HISTORY, MAP and HELP: information anyone may ask for, no password needed."""

from __future__ import annotations

from typing import Any

from mailjudge.commands import presets
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.ratings import rating_help
from mailjudge.commands.records import record_help
from mailjudge.commands.registry import register, unique_commands
from mailjudge.engine.catalogue import describe, map_names
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import load_map
from mailjudge.engine.rules import catalogue
from mailjudge.game import diary, fog, pictures, state
from mailjudge.game.options import OPTIONS, option_text
from mailjudge.permissions.policy import check_read
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.results import map_mail, record_facts, report, report_lines
from mailjudge.render.undrawn import no_drawing_note
from mailjudge.render.words import counted
from mailjudge.service import processing, standin
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.questions import PowerNotes


@register
class List(Command):
    action = Action.INFO
    name = "LIST"
    arguments = "[game]"
    summary = (
        "the games on this judge, or one game's players and state (after SIGNON, LIST alone "
        "is that game's, as on njudge and DPjudge)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if [a.upper() for a in args] in (["FULL"], ["BRIEF"]):  # njudge's LIST FULL
            args = []
        if not args and ctx.game is not None:
            args = [ctx.game.name]
        if not args:
            rows = Game.select().where(~Game.private).order_by(Game.name)
            games = [
                f"{g.name:<20} {g.variant:<10} {g.state:<9} {g.phase or ''}{_on_map(g)}"
                for g in rows
            ]
            return [*(games or ["no games yet"]), "", *maps_lines(brief=True)]
        game = state.get_game(args[0])
        lines = [f"{game.name}: {game.variant}{_on_map(game)}, {game.state}, "
                 f"{game.phase or 'forming'}",
                 f"rules: {game.rules or 'none'}"]  # fmt: skip
        for seat in (
            Seat.select().where((Seat.game == game) & (Seat.role == "player")).order_by(Seat.name)
        ):
            who = "dummy" if seat.dummy else "vacant" if seat.person is None else "played"
            if who == "played" and seat.public_name:  # chosen with JOIN ... AS name
                who = f"played by {seat.public_name}"
            # Under fog of war nobody learns that another power is gone before the end.
            out = " (eliminated)" if seat.eliminated and not fog.fog_running(game) else ""
            team = [t.name for t in seat.teammates if t.status == "active"]
            helped = f", teammates: {', '.join(sorted(team))}" if team else ""
            lines.append(f"    {str(seat.powers) or '(not dealt)':<10} {who}{out}{helped}")
            for power in seat.powers:
                lines += [
                    f"        {note}"
                    for note in variant_of(game).people.lines(PowerNotes(game, power)) or []
                ]
        return lines


def _on_map(game: Game) -> str:
    return "" if game.map_name == "standard" else f" on {game.map_name}"


def maps_lines(brief: bool = False) -> list[str]:
    """The maps of this judge (data/maps): each with its powers, centres and victory
    count; ``brief``: a line each, as LIST ends."""
    lines = ["Maps (CREATE game password MAP name; HELP MAPS names their powers):"]
    for name in map_names():
        gmap = load_map(name)
        if brief:
            lines.append(
                f"  {name}: {len(gmap.power_names)} powers, {len(gmap.centres)} centres, "
                f"{gmap.victory_centres} to win"
            )
        else:
            lines += [f"  {line}" for line in describe(gmap)]
    return lines


def readable_game(ctx: Context, name: str) -> Game:
    """The game named, if the sender may read it (permissions.policy.check_read): a game
    closed to watchers (NO_OBSERVATIONS, SOLITAIRE) is read only by its own seats."""
    game = state.get_game(name)
    decision = check_read(ctx.actor, game)
    if not decision:
        raise CommandError(decision.reason)
    return game


@register
class Summary(Command):
    action = Action.INFO
    name = "SUMMARY"
    arguments = "[game]"
    summary = "a game's centre counts and state (after SIGNON, SUMMARY alone is that game's)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        name = args[0] if args else ctx.game.name if ctx.game is not None else None
        if name is None:
            raise CommandError("write SUMMARY game (or SUMMARY alone after a SIGNON)")
        game = readable_game(ctx, name)
        lines = [f"{game.name}: {game.state} {game.phase or ''} {game.outcome}".rstrip()]
        eyes = fog.eyes_of(game, ctx.seat)
        if game.position:
            pos = position_from_dict(game.position, state.game_map(game))
            for power, n in sorted(pos.centre_counts().items(), key=lambda x: (-x[1], x[0])):
                if eyes is not None and power not in eyes:
                    continue  # fog of war: another power's count is hidden
                units = len(pos.units_of(power))
                centres = f"{n:>2} centre{'' if n == 1 else 's'}"
                lines.append(f"    {power:<8} {centres}, {counted(units, 'unit'):>8}")
            if eyes is not None:
                lines.append("    (fog of war: the other powers' counts are hidden until the end)")
        return lines


@register
class StandinOrders(Command):
    action = Action.INFO
    name = "STANDIN ORDERS"
    arguments = "game [power]"
    summary = "what the stand-in would order now in a game (HELP STANDIN: how to recompute it)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = readable_game(ctx, args[0])
        return standin.orders_now(game, args[1] if len(args) > 1 else None)


@register
class History(Command):
    action = Action.INFO
    name = "HISTORY"
    arguments = "game [phase]"
    summary = "the results of every phase played (or of one)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if not args:
            raise CommandError("write HISTORY game [phase]")
        game = readable_game(ctx, args[0])
        records = processing.history(game)
        # Each phase is reported with the board that followed it: the next phase's start,
        # or for the last one played, the game now.
        followers = [r.position for r in records[1:]] + [game.position] if records else []
        played = list(zip(records, followers, strict=True))
        if len(args) > 1:
            played = [(r, n) for r, n in played if r.phase == args[1].upper()]
            if not played:
                raise CommandError(f"{game.name} has played no phase {args[1].upper()}")
        gmap = state.game_map(game)
        eyes = fog.eyes_of(game, ctx.seat)
        lines: list[str] = []
        for record, following in played:
            facts = record_facts(record, following, gmap)
            if eyes is None:
                lines += [f"{record.phase}:", *report_lines(facts), ""]
                continue
            facts = fog.fogged_facts(game, facts, record.position, eyes)
            words = fog.fogged_words(report(facts), eyes)
            text = render("results_body.txt.j2", r=words).rstrip("\n")
            lines += [f"{record.phase}:", *text.split("\n"), ""]
        lines = lines[:-1] or [f"{game.name}: no phases played yet"]
        return lines + _diary_lines(ctx, game)


def _diary_lines(ctx: Context, game: Game) -> list[str]:
    """The writer's own diary while the game runs; every diary once it is over."""
    if game.state == GameState.FINISHED:
        shown = [(diary.writer(e), e) for e in diary.public(game)]
        title = "The players' diaries:"
    elif ctx.seat is not None and ctx.game is not None and ctx.game.id == game.id:
        shown = [("you", e) for e in diary.entries(game, ctx.seat)]
        title = "Your diary (only you see it until the game is over):"
    else:
        return []
    if not shown:
        return []
    lines = ["", title]
    for who, entry in shown:
        lines.append(f"  {entry.phase} ({who}, entry {entry.number}):")
        lines += [f"    {line}" for line in entry.body.rstrip("\n").splitlines()]
    return lines


PICTURE_FORMATS = frozenset({"GIF", "PS", "PDF", "PNG", "SVG", "JPG", "JPEG"})


@register
class Map(Command):
    action = Action.INFO
    name = "MAP"
    arguments = "game [phase]"
    hint = "write MAP game, or MAP game S1901M for a phase played"
    summary = "a picture of the board now, or of a phase played with its orders"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = readable_game(ctx, args[0])
        if game.id in ctx.pictured:
            raise CommandError(f"one picture of {game.name} per mail: ask for another phase "
                               "in a mail of its own")  # fmt: skip
        ctx.pictured.add(game.id)
        phase = args[1].upper() if len(args) > 1 else None
        note = []
        if phase in PICTURE_FORMATS:  # DPjudge's MAP game ps (or pdf, gif)
            note = [f"(the board comes as a picture in the mail, whatever the format named: "
                    f"MAP {game.name} [phase])"]  # fmt: skip
            phase = None
        gmap = state.game_map(game)
        eyes = fog.eyes_of(game, ctx.seat)
        if phase is None or (phase == game.phase and game.state != GameState.FINISHED):
            if not game.position:
                raise CommandError(f"{game.name} has not started: there is no board yet")
            board = (
                game.position if eyes is None else fog.fogged_position(game, game.position, eyes)
            )
            if not gmap.positions:
                return _in_words(game, board)
            picture = pictures.picture_for(game, game.sequence, board)
        else:
            record = next((r for r in processing.history(game) if r.phase == phase), None)
            if record is None:
                played = ", ".join(r.phase for r in processing.history(game)) or "none yet"
                raise CommandError(
                    f"{game.name} has played no phase {phase}; phases played: {played}"
                )
            if eyes is not None:
                board = fog.fogged_position(game, record.position, eyes)
                rows = fog.fogged_rows(game, record.position, record.results["results"], eyes)
                if not gmap.positions:
                    return _in_words(game, board)
                picture = pictures.picture_for(game, record.sequence, board, rows)
            elif not gmap.positions:
                return _in_words(game, record.position)
            else:
                picture = pictures.played_picture(game, record)
        ctx.outgoing.append(map_mail(ctx.sender, game, picture))
        return [f"the board of {game.name} in {picture.phase} follows in its own mail", *note]


def _in_words(game: Game, position: dict[str, Any]) -> list[str]:
    """A board with nothing to draw it from (its map has no drawing yet), in words."""
    gmap = state.game_map(game)
    board = position_from_dict(position, gmap)
    lines = [no_drawing_note(gmap), f"The board of {game.name} in {board.phase.long_name()}:"]
    for power in gmap.power_names:
        units = " ".join(f"{u.type} {u.loc.upper()}," for u in board.units_of(power))
        centres = " ".join(c.upper() for c in board.centres_of(power))
        if units or centres:
            lines.append(
                f"  {power}: {units.rstrip(',') or 'no units'}; centres {centres or 'none'}"
            )
    return lines


@register
class Help(Command):
    action = Action.INFO
    name = "HELP"
    usage = "HELP [command | RULES | OPTIONS | MAPS | STANDIN | RECORD | RATING | MASTER]"
    summary = (
        "this list; HELP RULES describes the rules flags, HELP OPTIONS the options, "
        "HELP MAPS the maps, "
        "HELP STANDIN the stand-in, HELP RECORD what a record counts, HELP RATING how "
        "ratings are computed, HELP MASTER the master's commands"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if args and args[0].upper() == "RULES":
            cat = catalogue()
            flags = [f"{name}: {cat.get(name).summary}" for name in cat.names]
            # The judge's choices where the seeds are silent or contradict themselves.
            return [*flags, "", *render("help_choices.txt.j2").rstrip("\n").splitlines()]
        if [a.upper() for a in args] == ["MAPS"]:
            return [*maps_lines(), "", *presets.help_lines()]
        if args and args[0].upper() == "OPTIONS":
            return _options_help(ctx.game)
        if args and args[0].upper() in ("STANDIN", "STAND-IN"):
            return render("help_standin.txt.j2").rstrip("\n").splitlines()
        if [a.upper() for a in args] == ["RECORD"]:
            return record_help()
        if [a.upper() for a in args] == ["RATING"]:
            return rating_help()
        # Signed on to a game, HELP lists that game's commands: the shared ones and its
        # variant's own.
        variant = ctx.game.variant if ctx.game is not None else None
        if [a.upper() for a in args] == ["MASTER"]:  # njudge's help file for masters
            mine = [c for c in unique_commands(variant) if c.master_only and c.listed]
            return [
                "The master's commands (after SIGNON Mgame password):",
                *(line for c in mine for line in (f"  {c.usage}", f"      {c.summary}")),
            ]
        if args:
            wanted = " ".join(args).upper()
            found = [c for c in unique_commands(variant) if wanted in (c.name, *c.aliases)]
            if found:
                return [line for c in found for line in (
                    c.usage, f"    {c.summary}",
                    *([f"    njudge/DPjudge: {', '.join(c.veteran_forms)}"] if c.veteran_forms
                      else []))]  # fmt: skip
            raise CommandError(f"no command {wanted}; HELP lists them all")
        lines = ["Commands (case does not matter; several per mail; END closes a block):"]
        if ctx.game is not None:
            lines[0] = f"Commands in {ctx.game.name} ({ctx.game.variant}); " + lines[0][9:]
        for command in unique_commands(variant):
            if not command.listed:
                continue
            lines.append(f"  {command.usage}")
            lines.append(f"      {command.summary}{' (master)' if command.master_only else ''}")
            if command.veteran_forms:
                lines.append(f"      njudge/DPjudge: {', '.join(command.veteran_forms)}")
        lines.append("Coming from njudge or DPjudge: HELP SET DRAW (or any of their commands) "
                     "says what it does here")  # fmt: skip
        return lines


def _options_help(game: Game | None) -> list[str]:
    """Each option, what it does, and its value: in the signed-on game, else the default."""
    lines = ["Options (the master sets one with SET OPTION NAME value):"]
    for option in OPTIONS.values():
        value = option_text(game, option.name) if game is not None else option.default
        where = f"in {game.name}" if game is not None else "by default"
        lines += [f"  {option.name} {value} ({where})", f"      {option.summary}"]
    return lines

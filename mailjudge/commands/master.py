"""The master's commands: starting, processing, history, pausing, seats, the end."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.joining import announce_start
from mailjudge.commands.registry import register
from mailjudge.commands.vote import announce_end
from mailjudge.engine.phases import result_rows
from mailjudge.engine.state import Phase
from mailjudge.engine.timing import TimingError, known_zone
from mailjudge.game import options, schedule, state
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.dates import read_date
from mailjudge.game.outcomes import Processed
from mailjudge.game.schedule import deadline_lines
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.deadline import deadline_text
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.render.results import results_lines
from mailjudge.service import draws, games, openings, processing, seats
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.results import phase_mails
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.events import DrawDeclared
from mailjudge.variants.questions import DrawNow


class MasterCommand(Command):
    action = Action.MASTER
    master_only = True

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, _ = ctx.signed_on()
        ctx.require(Action.MASTER)
        return self.act(ctx, game, args)

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        raise NotImplementedError


def one_move_a_mail(ctx: Context, command: str) -> None:
    """One mail moves a game's phase once: a second PROCESS (or ROLLBACK, ROLLFORWARD) in
    the same mail is refused. Issue 52: 39 PROCESS! in one mail held the write transaction
    for up to 116 s and sent every player 39 results mails."""
    if ctx.phase_moved is not None:
        raise CommandError(
            f"not done: one mail processes (or rolls back) a phase at most once, and "
            f"{ctx.phase_moved} above did; send {command} again in another mail"
        )


def after_processing(ctx: Context, game: Game, done: Processed) -> list[str]:
    ctx.outgoing += phase_mails(game, done)
    if done.waiting:
        return [f"{done.phase} is not processed yet: {done.waiting}"]
    return [
        f"{done.phase} processed; now {game.phase}"
        if game.state != GameState.FINISHED
        else f"{done.phase} processed; {game.outcome.lower()}"
    ]


@register
class Start(MasterCommand):
    name = "START"
    arguments = ""
    summary = "start a forming game; powers nobody holds become dummies"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        ctx.outgoing += games.start_game(game)
        game = state.get_game(game.name)
        ctx.game = game
        announce_start(ctx, game)
        return [f"{game.name} has started: {game.phase}"]


@register
class Process(MasterCommand):
    name = "PROCESS"
    usage = "PROCESS [phase]"
    summary = (
        "process the phase now (all orders must be in; under CIVIL_DISORDER the late get"
        " the civil-disorder defaults, as with PROCESS!); a phase named (F1905R, or Fall"
        " 1905 Retreat) must be the current one, as on njudge"
    )
    force = False

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        one_move_a_mail(ctx, self.name)
        if args:
            try:
                named = Phase.from_words(" ".join(args))
            except ValueError as err:
                raise CommandError(f"{err}; or write {self.name} alone") from None
            if str(named) != game.phase:
                raise CommandError(
                    f"{game.name} is in {game.phase}, not {named}: nothing was processed "
                    f"(write {self.name} alone to process {game.phase})"
                )
        # Seed 001: CIVIL_DISORDER enters the defaults "when the game's Master submits a
        # PROCESS command", so there a plain PROCESS is the forcing one.
        force = self.force or state.has_rule(game, "CIVIL_DISORDER")
        done = processing.process(game, force=force)
        if done is None:
            return ["the phase was processed meanwhile; nothing more to do"]
        if not done.waiting:
            ctx.phase_moved = f"the {self.name} of {done.phase}"
        ctx.touched.add(game.id)  # the next phase may be ready at once (rule 15)
        return after_processing(ctx, game, done)


@register
class ProcessForce(Process):
    name = "PROCESS!"
    usage = "PROCESS! [phase]"
    summary = "process now; missing orders get the civil-disorder defaults"
    force = True


@register
class Preview(MasterCommand):
    name = "PREVIEW"
    arguments = ""
    summary = "what processing now would give, to the master only; the game is unchanged"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        if not game.phase:
            raise CommandError(f"{game.name} has not started: there is nothing to preview")
        outcome = processing.preview(game)
        return [
            "preview (nothing changed):",
            *results_lines(result_rows(outcome), outcome, None, game.map_name),
        ]


@register
class Rollback(MasterCommand):
    name = "ROLLBACK"
    arguments = "[phase]"
    summary = "go back to the start of a phase (default: the last one) with its orders"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        one_move_a_mail(ctx, self.name)
        if args and args[0].isdigit():  # njudge's turn number
            raise CommandError("ROLLBACK takes a phase here, like ROLLBACK S1902M, not a turn "
                               "number; ROLLBACK alone goes back one phase")  # fmt: skip
        if args and args[0].upper() == "FORMING":  # DPjudge's way back to forming
            raise CommandError("a started game does not go back to forming here: ROLLBACK "
                               "S1901M takes it back to its first phase")  # fmt: skip
        record = processing.rollback(game, args[0] if args else None)
        ctx.phase_moved = f"the ROLLBACK to {record.phase}"
        ctx.game = game
        # The phase rolled back to gets a deadline of its own length from now (a movement
        # phase its MOVE, not the deadline of the phase it was rolled back from).
        schedule.schedule_phase(game, ctx.now)

        def body(seat: Seat) -> str:
            return render(
                "rolled_back.txt.j2", game=game, phase=record.phase,
                deadline=deadline_lines(game, seat), ready=ready_lines(game, seat),
            )  # fmt: skip

        tell_players(ctx, game, f"rolled back to {record.phase}", body, Change.MOVED)
        shown = deadline_text(game, ctx.seat.person if ctx.seat else None) or "none"
        return [f"rolled back to {record.phase}; its orders are on file again; deadline: "
                f"{shown}; players told"]  # fmt: skip


@register
class Rollforward(MasterCommand):
    name = "ROLLFORWARD"
    arguments = "[phase]"
    summary = "re-adjudicate the stored orders of later phases (up to a phase)"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        one_move_a_mail(ctx, self.name)
        done = processing.rollforward(game, args[0] if args else None)
        ctx.phase_moved = "the ROLLFORWARD"
        # Everyone hears each phase's results again, as PROCESS would have told them.
        for phase in done:
            ctx.outgoing += phase_mails(game, phase, reprocessed=True)
        return [f"rolled forward {len(done)} phase(s); now {game.phase}; results sent again"]


@register
class Pause(MasterCommand):
    name = "PAUSE"
    arguments = ""
    summary = "stop the clock: nothing is processed until RESUME"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        games.pause_game(game)
        body = render("game_paused.txt.j2", game=game)
        tell_players(ctx, game, "the game is paused", lambda _: body, Change.PAUSED)
        return [f"{game.name} is paused; players told"]


@register
class Resume(MasterCommand):
    name = "RESUME"
    arguments = ""
    summary = "start the clock again"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        games.resume_game(game)
        ctx.touched.add(game.id)

        def body(seat: Seat) -> str:
            return render("game_resumed.txt.j2", game=game, deadline=deadline_lines(game, seat))

        tell_players(ctx, game, "the game is running again", body, Change.MOVED)
        return [f"{game.name} is running again; players told"]


@register
class SetRule(MasterCommand):
    name = "SET RULE"
    aliases = ("SET RULES",)
    usage = "SET RULE +X -Y"
    summary = "change the game's rules flags (HELP RULES lists them)"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        if not args:
            raise CommandError("write SET RULE +NO_PRESS -POWER_CHOICE")
        rules = state.set_rules(game, " ".join(args))
        return [f"rules now: {str(rules) or 'none'}"]


@register
class SetPrivate(MasterCommand):
    """njudge's SET NOLIST (SET PRIVATE, SET UNLIST) and DPjudge's SET UNLISTED."""

    name = "SET PRIVATE"
    aliases = ("SET NOLIST", "SET NO LIST", "SET UNLIST", "SET UNLISTED")
    arguments = ""
    summary = "keep the game off LIST and the web site's lists (those told its name still see it)"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        game.private = True
        game.save()
        return [f"{game.name} is private: LIST and the web site's lists leave it out"]


@register
class SetPublic(MasterCommand):
    """njudge's SET LIST (SET PUBLIC) and DPjudge's SET LISTED."""

    name = "SET PUBLIC"
    aliases = ("SET LISTED", "SET LIST")
    arguments = ""
    summary = "put a private game back on LIST and the web site's lists"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        game.private = False
        game.save()
        return [f"{game.name} is public: LIST and the web site show it"]


@register
class SetOption(MasterCommand):
    name = "SET OPTION"
    usage = "SET OPTION EXTEND_MAX 48H"
    summary = "set one of the game's options (HELP OPTIONS lists them with their values)"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        if len(args) < 2:
            raise CommandError(
                "write SET OPTION, the option's name and its value, e.g. SET OPTION "
                "EXTEND_MAX 48H (HELP OPTIONS lists the options)"
            )
        value = options.set_option(game, args[0], " ".join(args[1:]))
        return [f"{args[0].upper()} is now {value}"]


@register
class SetDeadline(MasterCommand):
    name = "SET DEADLINE"
    usage = "SET DEADLINE 2026-12-01 12:00 [zone]"
    hint = "write SET DEADLINE 2026-12-01 12:00 (or with a zone: Europe/London)"
    summary = (
        "set the deadline of the current phase (in the game's time zone by default; also "
        "as njudge and DPjudge write it: 1 Dec 18:00, Dec 1, Fri 18:00, 18:00)"
    )
    veteran_forms = ("SET DEADLINE Dec 15", "SET DEADLINE Tue", "SET DEADLINE 1 DEC 12:00")

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        words = list(args)
        zone_name = game.timezone
        if words and ("/" in words[-1] or words[-1].upper() == "UTC"):
            zone_name = words.pop()
        try:
            if known_zone(zone_name) is None:
                raise ValueError("no such zone")
        except (ValueError, KeyError):
            raise CommandError(
                f"{zone_name!r} is not a time zone; write one like Europe/London"
            ) from None
        if not words:
            raise CommandError(self.hint)
        # With no time of day: the game's AT time, else njudge's 23:30.
        at = schedule.timing_of(game).at or time(23, 30)
        try:
            when = read_date(" ".join(words), zone_name, ctx.now, at)
        except TimingError as err:
            raise CommandError(f"{err} (SET DEADLINE, a zone after it if you like)") from None
        schedule.set_deadline(game, when, ctx.now)
        told = tell_new_deadline(ctx, game)
        shown = deadline_text(game, ctx.seat.person if ctx.seat else None)
        return [f"deadline: {shown}; {told} player(s) told"]


def tell_players(
    ctx: Context, game: Game, subject: str, body: Callable[[Seat], str], change: Change
) -> int:
    """A notice to each person seated in the game but the master (who has the answer),
    carrying the deadline's calendar invitation after ``change`` to those invited to it
    (game/calendar.py: not an observer). How many were told."""
    told = 0
    for seat in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active")
        & Seat.person.is_null(False) & (Seat.role != "master")
    ):  # fmt: skip
        mail = mail_to_seat(seat, subject, body(seat), "notice")
        mail.calendar = invitation_ics(game, seat, change, now=ctx.now)
        ctx.outgoing.append(mail)
        told += 1
    return told


def tell_new_deadline(ctx: Context, game: Game) -> int:
    """The master moved the current phase's deadline (SET DEADLINE, SET TIMING): each
    player is told it in their zone, and their calendar's event moves."""

    def body(seat: Seat) -> str:
        return render("deadline_set.txt.j2", game=game, deadline=deadline_lines(game, seat))

    return tell_players(ctx, game, f"new deadline for {game.phase}", body, Change.MOVED)


class SeatCommand(MasterCommand):
    verb = ""

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        if "@" in args[0]:  # njudge's EJECT address
            raise CommandError(
                f"write {self.name} and the power, like {self.name} FRANCE: a seat is named "
                "by its power here, never by its player's address"
            )
        power = _power_of(game, args[0])
        opened = {"eject": "ejected", "make_dummy": "dummy"}.get(self.verb)
        if opened:  # the player removed is told why, before the seat is emptied
            ctx.outgoing += openings.removed(seats.seat_for_power(game, power), opened)
        seat = getattr(seats, self.verb)(game, power)
        if opened:  # the power is open: told to who asked (OPENINGS ON)
            ctx.outgoing += openings.announce(game, seat.powers, opened, ctx.now)
        ctx.touched.add(game.id)
        return [f"{seat.powers}: {self.verb.replace('make_', '')} done"]


def _power_of(game: Game, word: str) -> str:
    """A power as the master names it: its name, or (as on njudge) its initial or
    adjective; the word as written when it names none (the service says so)."""
    w = word.upper()
    for power in state.game_map(game).powers.values():
        if w in (power.name, power.initial.upper(), power.adjective.upper()):
            return power.name
    return word


@register
class Eject(SeatCommand):
    name = "EJECT"
    arguments = "power"
    summary = "remove a player; the power becomes vacant for a TAKEOVER"
    verb = "eject"


@register
class Dummy(SeatCommand):
    name = "DUMMY"
    arguments = "power"
    summary = "make a power a dummy: the master or the civil-disorder defaults order it"
    verb = "make_dummy"


@register
class Revive(SeatCommand):
    name = "REVIVE"
    arguments = "power"
    summary = "let a dummy or eliminated power play again"
    verb = "revive"


@register
class UndoTakeover(MasterCommand):
    name = "UNDO TAKEOVER"
    arguments = "power"
    hint = "write UNDO TAKEOVER power (the power taken over in this phase)"
    summary = (
        "within the phase of a TAKEOVER, undo it: the taker no longer plays (and is told), "
        "the power is open again"
    )

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        seat, told = openings.undo_takeover(game, args[0], ctx.now)
        ctx.outgoing += told
        ctx.touched.add(game.id)
        return [f"the takeover of {seat.powers} is undone: it is open again; its taker and "
                "the players are told"]  # fmt: skip


@register
class DeclareDraw(MasterCommand):
    name = "DECLARE DRAW"
    arguments = ""
    summary = "end the game in a draw of all the powers still in it"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        state.require_active(game)
        variant = variant_of(game)
        if variant.people.refusal(DrawNow(game)) is not None:  # set for later (Diplonomic)
            ctx.outgoing += variant.phase.on(DrawDeclared(game, ctx.now))
            return ["the draw is declared; everyone is told when it takes effect"]
        outcome = "DRAW " + " ".join(draws.survivors(game))
        state.finish_game(game, outcome)
        announce_end(ctx, game, outcome)
        return [f"the game ends: {outcome.lower()}"]


@register
class SetTiming(MasterCommand):
    name = "SET TIMING"
    usage = "SET TIMING MOVE 3D RETREAT 1D ADJUST 1D AT 12:00 Europe/London WARN 24H GRACE 12H"
    summary = "phase lengths, the time of day and zone, weekdays, reminders and grace"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        try:
            timing = schedule.set_timing(game, " ".join(args), ctx.now)
        except TimingError as err:
            raise CommandError(str(err)) from None
        lines = [f"timing: {timing}"]
        if game.deadline:
            lines.append(f"deadline: {deadline_text(game, ctx.seat.person if ctx.seat else None)}")
        if game.state == GameState.ACTIVE and game.deadline:
            lines.append(f"{tell_new_deadline(ctx, game)} player(s) told")
        return lines

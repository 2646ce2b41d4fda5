"""A player's own settings for a seat: WAIT, absences, the stand-in, a power preference,
a time zone (the password and the address, which need more care, are in account.py)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.engine.timing import TimingError, show, zone_of
from mailjudge.game import schedule
from mailjudge.game.dates import read_date
from mailjudge.permissions.vocabulary import Action
from mailjudge.render.deadline import deadline_text
from mailjudge.service import seats, standin


def _refuse_after_phase(ctx: Context, name: str) -> None:
    """On njudge a SET WAIT after a PHASE line is for that later phase. Here a wait holds
    the current phase only, so it is not set now by surprise: the writer is told when to
    send it."""
    if ctx.future_phase is not None:
        raise CommandError(
            f"{name} after a PHASE line would be for {ctx.future_phase} (as on njudge), but "
            f"a wait here holds the current phase only: nothing was set; send {name} once "
            f"{ctx.future_phase} has begun (or before the PHASE line, for this phase)"
        )


@register
class SetWait(Command):
    action = Action.SEAT
    name = "SET WAIT"
    arguments = ""
    summary = "do not process before the deadline, even when all orders are in"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        _refuse_after_phase(ctx, "SET WAIT")
        seats.set_wait(seat, True)
        return ["the game waits for the deadline"]


@register
class SetNoWait(Command):
    action = Action.SEAT
    name = "SET NOWAIT"
    aliases = ("SET NO WAIT",)
    arguments = ""
    summary = "process as soon as all orders are in"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        _refuse_after_phase(ctx, "SET NOWAIT")
        seats.set_wait(seat, False)
        ctx.touched.add(seat.game_id)
        return ["no longer waiting for the deadline"]


ABSENCE_FORMS = "SET ABSENCE 2026-12-01 TO 2026-12-05 (or 1 Dec TO 5 Dec, Dec 1 18:00 ...)"


def absence_span(text: str, zone: str, now: datetime) -> tuple[datetime, datetime]:
    """njudge's and DPjudge's SET ABSENCE dates: ``start [TO end]`` (a day from start when
    no end is given), or ``TO end`` (from now); a start with no time begins at 0:00, an
    end with none runs to the end of that day."""
    upper = text.upper().split()
    if "TO" in upper:
        at = upper.index("TO")
        start_words, end_words = text.split()[:at], text.split()[at + 1 :]
    else:
        start_words, end_words = text.split(), []
    if not start_words and not end_words:
        raise CommandError(f"write {ABSENCE_FORMS}")
    try:
        start = (read_date(" ".join(start_words), zone, now, time(0, 0)) if start_words
                 else now)  # fmt: skip
        if not end_words:
            return start, start + timedelta(days=1)
        end = read_date(" ".join(end_words), zone, now, time(23, 59))
    except TimingError as err:
        raise CommandError(f"{err} (SET ABSENCE start TO end)") from None
    if end <= start and start_words and not _has_year(start_words + end_words):
        end = end.replace(year=end.year + 1)  # DPjudge: 24 DEC TO 6 JAN crosses the year
    return start, end


def _has_year(words: list[str]) -> bool:
    return any(w.isdigit() and len(w) == 4 for w in words) or any("-" in w for w in words)


@register
class SetAbsence(Command):
    action = Action.SEAT
    name = "SET ABSENCE"
    aliases = ("SET HOLIDAY", "SET HOLIDAYS", "SET VACATION", "SET VACATIONS")
    usage = "SET ABSENCE 2026-12-01 TO 2026-12-05"
    summary = (
        "no deadline falls while you are away (at most 14 days; dates in the game's zone, "
        "also as 1 Dec TO 5 Dec)"
    )
    veteran_forms = ("SET HOLIDAY", "SET VACATION", "SET ABSENCE 24 DEC TO 6 JAN")

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if seat.role == "master":
            raise CommandError(
                "a master's absence moves no deadline here: the master sets this phase's "
                "deadline with SET DEADLINE, or stops the clock with PAUSE"
            )
        start, end = absence_span(" ".join(args), game.timezone, ctx.now)
        schedule.set_absence_between(seat, start, end, ctx.now)
        when = deadline_text(game, seat.person) or "none"
        shown = f"{show(start, game.timezone)} to {show(end, game.timezone)}"
        return [f"absence noted from {shown}; the deadline is {when}"]


@register
class SetNoAbsence(Command):
    action = Action.SEAT
    name = "SET NOABSENCE"
    aliases = ("SET NO ABSENCE", "SET NO HOLIDAY", "SET NOHOLIDAY", "SET NO HOLIDAYS",
               "SET NO VACATION", "SET NOVACATION", "SET NO VACATIONS")  # fmt: skip
    usage = "SET NOABSENCE [date]"
    summary = (
        "cancel the absences you planned, or the one that includes the date given (a "
        "deadline already moved stays)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        during = None
        if args:
            upper = [w.upper() for w in args]
            # njudge: SET NOABSENCE start [TO end]; the end is ignored
            words = list(args[: upper.index("TO")]) if "TO" in upper else list(args)
            try:
                during = read_date(" ".join(words), game.timezone, ctx.now, time(12, 0))
            except TimingError as err:
                raise CommandError(f"{err} (SET NOABSENCE date)") from None
        cancelled = schedule.clear_absence(seat, ctx.now, during)
        if not cancelled:
            if during is not None:
                return ["no absence of yours includes that date; nothing to cancel"]
            return ["you had no absence planned; nothing to cancel"]
        return [f"{cancelled} planned absence(s) cancelled; deadlines fall as the timing says"]


@register
class SetStandin(Command):
    action = Action.SEAT_STANDIN
    name = "SET STANDIN"
    usage = "SET STANDIN ON | OFF"
    summary = (
        "under STANDIN: while you are away (SET ABSENCE) the stand-in orders for your power"
        " and the deadline does not wait for you (HELP STANDIN)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        word = args[0].upper() if len(args) == 1 else ""
        if word not in ("ON", "OFF"):
            raise CommandError("write SET STANDIN ON, or SET STANDIN OFF to take it back")
        return [standin.set_standin(seat, word == "ON")]


@register
class SetPreference(Command):
    action = Action.SEAT
    name = "SET PREFERENCE"
    usage = "SET PREFERENCE E,F,G"
    summary = (
        "njudge's power preference, best first (initials or names), honoured when the"
        " powers are dealt at random; SET PREFERENCE RANDOM clears it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        if not args:
            raise CommandError("write SET PREFERENCE E,F,G (power initials, best first)")
        wanted = seats.set_preference(seat, args)
        if not wanted:
            return ["no preference: your power is dealt at random"]
        return [f"your preference, best first: {', '.join(wanted)}"]


@register
class SetZone(Command):
    action = Action.SEAT
    name = "SET ZONE"
    usage = "SET ZONE Europe/Paris"
    summary = "show deadlines in your own time zone too"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        if len(args) != 1 or seat.person is None:
            raise CommandError("write SET ZONE Europe/Paris (a zone name)")
        seat.person.timezone = zone_of(args[0]).key
        seat.person.save()
        return [f"times are shown in {seat.person.timezone} too"]

"""A game's deadline: its TIMING, each phase's deadline moved past the players' absences,
the master's SET DEADLINE, and the clock's events around the deadline (reminders, the
deadline itself, the end of grace). ``Game.next_reminder_at`` holds the next event's time;
service/deadlines.py acts on the events when they come. Each change of the deadline adds one
to ``Game.deadline_sequence``, the SEQUENCE of its calendar event (game/calendar.py).

This module changes no phase: variants may use it (a Survive victor vote gets a phase
length of its own; a Diplonomic rule change may set the timing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from mailjudge.engine.timing import Timing, TimingError, parse_when, shift_past, show
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import has_rule, require_active
from mailjudge.render.deadline import deadline_lines as person_deadline_lines
from mailjudge.store.models import Game, GameState, PhaseRecord, Seat, utcnow

MAX_ABSENCE = timedelta(days=14)
MAX_PENDING_ABSENCES = 3


@dataclass(frozen=True)
class Event:
    at: datetime
    kind: str  # remind, deadline, grace


def deadline_lines(game: Game, seat: Seat) -> list[str]:
    """The next deadline as the person in ``seat`` reads it (render/deadline.py)."""
    if game.state != GameState.ACTIVE:
        return []
    return person_deadline_lines(game, seat.person)


def timing_of(game: Game) -> Timing:
    try:
        return (
            Timing.parse(game.timing, game.timezone) if game.timing else Timing(zone=game.timezone)
        )
    except TimingError:
        return Timing(zone=game.timezone)


def set_timing(game: Game, text: str, now: datetime | None = None) -> Timing:
    """The master's SET TIMING; the current deadline is worked out again from now."""
    try:
        timing = Timing.parse(text, game.timezone)
    except TimingError as err:
        raise ServiceError(str(err)) from None
    game.timing = str(timing)
    game.timezone = timing.zone
    game.save()
    if game.state == GameState.ACTIVE:
        schedule_phase(game, now or utcnow())
    return timing


def absences(seat: Seat) -> list[tuple[datetime, datetime]]:
    spans = []
    for part in filter(None, seat.absence.split(";")):
        start, _, end = part.partition("/")
        spans.append((datetime.fromisoformat(start), datetime.fromisoformat(end)))
    return spans


def set_absence(seat: Seat, start_text: str, end_text: str, now: datetime | None = None) -> None:
    """SET ABSENCE 2026-12-01 TO 2026-12-05: no deadline of this player's falls inside."""
    zone = seat.game.timezone
    set_absence_between(seat, parse_when(start_text, zone), parse_when(end_text, zone), now)


def set_absence_between(
    seat: Seat, start: datetime, end: datetime, now: datetime | None = None
) -> None:
    """An absence from ``start`` to ``end`` (UTC): no deadline of this player's falls inside."""
    now = now or utcnow()
    if end <= start:
        raise ServiceError(
            "the absence must end after it starts: SET ABSENCE 2026-12-01 TO 2026-12-05"
        )
    if end - start > MAX_ABSENCE:
        raise NotAllowed(f"an absence may last at most {MAX_ABSENCE.days} days")
    if end <= now:
        raise ServiceError("that absence is over already")
    pending = [(a, b) for a, b in absences(seat) if b > now]
    if len(pending) >= MAX_PENDING_ABSENCES:
        raise NotAllowed(f"at most {MAX_PENDING_ABSENCES} absences may be planned at once")
    pending.append((start, end))
    seat.absence = ";".join(f"{a.isoformat()}/{b.isoformat()}" for a, b in sorted(pending))
    seat.save()
    game = seat.game
    if game.state == GameState.ACTIVE and game.deadline is not None:
        before = game.deadline
        _apply_absences(game, timing_of(game))
        if game.deadline != before:
            game.deadline_sequence += 1
        _reset_events(game, now)
        game.save()


def clear_absence(seat: Seat, now: datetime | None = None, during: datetime | None = None) -> int:
    """SET NOABSENCE: the absences still to come are cancelled (a deadline one of them has
    already moved stays where it is); with ``during`` (njudge's SET NOABSENCE date), only
    the first that includes that moment. Returns how many were cancelled."""
    now = now or utcnow()
    coming = [(a, b) for a, b in absences(seat) if b > now]
    if during is None:
        cancelled = coming
    else:
        cancelled = [span for span in coming if span[0] <= during < span[1]][:1]
    kept = [span for span in coming if span not in cancelled]
    seat.absence = ";".join(f"{a.isoformat()}/{b.isoformat()}" for a, b in kept)
    seat.save()
    return len(cancelled)


def schedule_phase(game: Game, now: datetime) -> None:
    """Give the current phase its deadline (called when a game starts and after each phase,
    and again on a new TIMING)."""
    game.deadline_sequence += 1  # a new phase's event, or this one's moved
    if game.state != GameState.ACTIVE or has_rule(game, "NO_DEADLINE"):
        game.deadline = None
        game.next_reminder_at = None
        game.save()
        return
    timing = timing_of(game)
    game.deadline = timing.deadline_after(now, _phase_type(game))
    _apply_absences(game, timing)
    _reset_events(game, now)
    game.save()


def set_deadline(game: Game, when: datetime, now: datetime) -> None:
    """The master's SET DEADLINE: a time still to come, after the phase began; the
    reminders and the grace period follow the new deadline. A deadline so near that its
    reminder time (WARN) has passed already makes that reminder due at once: the next
    tick of the clock sends it to those who have not ordered."""
    require_active(game)
    began = phase_began(game)
    if when <= now:
        raise ServiceError(
            f"that deadline is already past (it is now {show(now, game.timezone)}); "
            "give one still to come"
        )
    if began is not None and when <= began:
        raise ServiceError(
            f"{game.phase} began at {show(began, game.timezone)}; its deadline must come after"
        )
    game.deadline = when
    game.deadline_sequence += 1
    _reset_events(game, now, remind_late=True)
    game.save()


def phase_began(game: Game) -> datetime | None:
    """When the current phase began: the last processing, or the start of the game."""
    last = (
        PhaseRecord.select(PhaseRecord.processed_at)
        .where(PhaseRecord.game == game)
        .order_by(PhaseRecord.sequence.desc())
        .first()
    )
    began: datetime | None = last.processed_at if last is not None else game.started_at
    return began


def _phase_type(game: Game) -> str:
    return {"M": "movement", "R": "retreat", "A": "adjustment"}[(game.phase or "S1901M")[-1]]


def _apply_absences(game: Game, timing: Timing) -> None:
    # Under STANDIN a player who asked for the stand-in is ordered for while away instead.
    standin = has_rule(game, "STANDIN")
    spans = [
        span
        for seat in players_to_order_by_clock(game)
        if not (standin and seat.standin)
        for span in absences(seat)
    ]
    for _ in range(len(spans) + 1):
        moved = False
        for start, end in spans:
            if game.deadline is not None and start <= game.deadline < end:
                game.deadline = shift_past(game.deadline, end, timing, _phase_type(game))
                moved = True
        if not moved:
            return


def players_to_order_by_clock(game: Game) -> list[Seat]:
    return list(
        Seat.select().where(
            (Seat.game == game) & (Seat.role == "player") & Seat.person.is_null(False)
        )
    )


def events(game: Game) -> list[Event]:
    if game.deadline is None:
        return []
    timing = timing_of(game)
    out = [Event(at, "remind") for at in timing.reminders(game.deadline)]
    if timing.grace:
        out.append(Event(game.deadline, "deadline"))
    out.append(Event(game.deadline + timing.grace, "grace"))
    return sorted(out, key=lambda e: e.at)


def _reset_events(game: Game, now: datetime, remind_late: bool = False) -> None:
    """Point next_reminder_at at the next event to come; with ``remind_late``, at the
    last reminder already passed if there is one (the clock then handles it, and only it
    of those passed, at its next tick: service/deadlines.py takes the events from
    next_reminder_at to now)."""
    upcoming = [e.at for e in events(game) if e.at > now]
    passed = [e.at for e in events(game) if e.at <= now and e.kind == "remind"]
    if remind_late and passed:
        game.next_reminder_at = max(passed)
    else:
        game.next_reminder_at = min(upcoming) if upcoming else None

"""Deadlines and what happens by the clock: reminders, late notices, grace, civil disorder.

Each phase gets a deadline from the game's TIMING (none under NO_DEADLINE), moved past the
absences of the players who must order. Around it lie the clock's events, in order: the
reminders (WARN), the deadline itself (late notices), and the end of the grace period
(GRACE; at the deadline when there is none). ``Game.next_reminder_at`` holds the time of
the next event not yet handled, so a restart or a second judge process never handles one
twice: each event is claimed by moving that column on with a compare-and-set.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from mailjudge.db import database_proxy
from mailjudge.models import Game, PhaseRecord, Seat, utcnow
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.service.errors import NotAllowed, ServiceError
from mailjudge.service.games import has_rule, require_active
from mailjudge.timing import Timing, TimingError, parse_when, shift_past, show

MAX_ABSENCE = timedelta(days=14)
MAX_PENDING_ABSENCES = 3


@dataclass(frozen=True)
class Event:
    at: datetime
    kind: str  # remind, deadline, grace


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
    if game.state == "active":
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
    now = now or utcnow()
    zone = seat.game.timezone
    start, end = parse_when(start_text, zone), parse_when(end_text, zone)
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
    if seat.game.state == "active" and seat.game.deadline is not None:
        _apply_absences(seat.game, timing_of(seat.game))
        _reset_events(seat.game, now)
        seat.game.save()


def schedule_phase(game: Game, now: datetime) -> None:
    """Give the current phase its deadline (called when a game starts and after each phase)."""
    if game.state != "active" or has_rule(game, "NO_DEADLINE"):
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
    reminders and the grace period follow the new deadline."""
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
    _reset_events(game, now)
    game.save()


def phase_began(game: Game) -> datetime | None:
    """When the current phase began: the last processing, or the start of the game."""
    last = (
        PhaseRecord.select(PhaseRecord.processed_at)
        .where(PhaseRecord.game == game)
        .order_by(PhaseRecord.sequence.desc())
        .first()
    )
    return last.processed_at if last is not None else game.started_at


def _phase_type(game: Game) -> str:
    return {"M": "movement", "R": "retreat", "A": "adjustment"}[(game.phase or "S1901M")[-1]]


def _apply_absences(game: Game, timing: Timing) -> None:
    spans = [span for seat in _players(game) for span in absences(seat)]
    for _ in range(len(spans) + 1):
        moved = False
        for start, end in spans:
            if game.deadline is not None and start <= game.deadline < end:
                game.deadline = shift_past(game.deadline, end, timing, _phase_type(game))
                moved = True
        if not moved:
            return


def _players(game: Game) -> list[Seat]:
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


def _reset_events(game: Game, now: datetime) -> None:
    upcoming = [e.at for e in events(game) if e.at > now]
    game.next_reminder_at = min(upcoming) if upcoming else None


def tick(now: datetime) -> list[Outgoing]:
    """Handle every clock event that is due, then process what is ready; the mail to send."""
    from mailjudge.service import digests, processing
    from mailjudge.settings import current_settings
    from mailjudge.variants import variant_of

    mails: list[Outgoing] = []
    due = Game.select().where(
        (Game.state == "active")
        & Game.next_reminder_at.is_null(False)
        & (Game.next_reminder_at <= now)
    )
    for game in list(due):
        mails += _handle_due(game, now)
    for game in list(Game.select().where(Game.state == "active")):
        state = processing.readiness(game, now)
        if state.ready:
            done = processing.process(game, force=True, expected_sequence=game.sequence, now=now)
            if done is not None:
                mails += after_clock_processing(game, done)
        if game.state == "active":
            mails += variant_of(game).on_clock(game, now)
    return mails + digests.due(now, current_settings().judge.digest_hours)


def after_clock_processing(game: Game, done: object) -> list[Outgoing]:
    from mailjudge.render.results import results_mails

    return results_mails(game, done) + list(getattr(done, "notices", []))


def _handle_due(game: Game, now: datetime) -> list[Outgoing]:
    """Claim the game's due events (compare-and-set on next_reminder_at) and act on them."""
    from mailjudge.service import processing
    from mailjudge.variants import variant_of

    claimed_from = game.next_reminder_at
    todo = [e for e in events(game) if claimed_from <= e.at <= now]
    upcoming = [e.at for e in events(game) if e.at > now]
    with database_proxy.atomic():
        won = (
            Game.update(next_reminder_at=min(upcoming) if upcoming else None)
            .where((Game.id == game.id) & (Game.next_reminder_at == claimed_from))
            .execute()
        )
    if won != 1:
        return []  # another judge process handled these events
    late = processing.readiness(game, now).waiting_for
    mails: list[Outgoing] = []
    for event in todo:
        if event.kind in ("remind", "deadline"):
            mails += _to_late_players(game, late, event.kind)
        elif late and not has_rule(game, "CIVIL_DISORDER"):
            mails += _to_master(game, late)
        elif late and variant_of(game).replace_the_late:
            mails += _to_master(game, late, defaults=True)
    return mails


def _to_late_players(game: Game, late: list[str], kind: str) -> list[Outgoing]:
    timing = timing_of(game)
    mails = []
    for seat in _players(game):
        mine = [p for p in seat.powers.split() if p in late]
        if not mine or game.deadline is None:
            continue
        zone = timing.zone  # the game's zone, as its TIMING gives it
        own_zone = seat.person.timezone or zone
        what = "reminder: orders due" if kind == "remind" else "your orders are late"
        grace_end = game.deadline + timing.grace
        body = render(
            "reminder.txt.j2",
            game=game,
            powers=mine,
            kind=kind,
            deadline=show(game.deadline, zone),
            own=show(game.deadline, own_zone) if own_zone != zone else None,
            grace_end=show(grace_end, zone) if timing.grace else None,
            frozen=has_rule(game, "CIVIL_DISORDER") and not has_rule(game, "LATE_CHANGES"),
        )
        mails.append(mail_to_seat(seat, f"{what} ({game.phase})", body, "notice"))
    return mails


def _to_master(game: Game, late: list[str], defaults: bool = False) -> list[Outgoing]:
    master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
    if master is None or master.person is None:
        return []
    body = render("late_master.txt.j2", game=game, late=late, defaults=defaults)
    return [mail_to_seat(master, f"late: {', '.join(late)} ({game.phase})", body, "notice")]

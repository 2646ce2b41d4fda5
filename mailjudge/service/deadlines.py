"""Deadlines and what happens by the clock: reminders, late notices, grace, civil disorder.

Each phase gets a deadline from the game's TIMING (none under NO_DEADLINE), moved past the
absences of the players who must order. Around it lie the clock's events, in order: the
reminders (WARN), the deadline itself (late notices), and the end of the grace period
(GRACE; at the deadline when there is none). ``Game.next_reminder_at`` holds the time of
the next event not yet handled, so a restart or a second judge process never handles one
twice: each event is claimed by moving that column on with a compare-and-set.

Each game is handled by the clock in a savepoint of its own: a game whose handling raises
(a bug) is rolled back alone, logged once, its master told once, and left alone by the
clock (``Game.clock_error`` says why) until an operator runs ``mailjudge requeue GAME``;
the other games go on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from functools import partial

from mailjudge.game import delivery
from mailjudge.game.errors import ServiceError
from mailjudge.game.schedule import events, players_to_order_by_clock, timing_of
from mailjudge.game.state import has_rule
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines, deadline_text
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.service import outages, processing, seat_phases, stalemate
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.results import game_over_mails, phase_mails
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.store.outages import transient, unusable
from mailjudge.variants import variant_of
from mailjudge.variants.events import ClockTick

log = logging.getLogger(__name__)


def tick(now: datetime) -> list[Outgoing]:
    """Handle every clock event that is due, then process what is ready; the mail to send.
    Each game in a savepoint of its own: one that raises is held (see _hold), the others
    go on."""
    with database_proxy.atomic():
        # First: a deadline that fell while the judge could not take mail moves past it.
        mails = outages.move_past_outages(now)
    on_clock = (Game.state == GameState.ACTIVE) & (Game.clock_error == "")
    due = Game.select().where(
        on_clock & Game.next_reminder_at.is_null(False) & (Game.next_reminder_at <= now)
    )
    for game in list(due):
        mails += _guarded(game, now, partial(_handle_due, game, now))
    for game in list(Game.select().where(on_clock)):
        mails += _guarded(game, now, partial(_process_by_clock, game, now))
    return mails


def _process_by_clock(game: Game, now: datetime) -> list[Outgoing]:
    mails = stalemate.settle(game, now)  # an unrefused STALEMATE_DRAW ends at the deadline
    if game.state != GameState.ACTIVE:
        return mails
    state = processing.readiness(game, now)
    if state.ready:
        done = processing.process(game, force=True, expected_sequence=game.sequence, now=now)
        if done is not None:
            mails += phase_mails(game, done)
    if game.state == GameState.ACTIVE:
        mails += variant_of(game).phase.on(ClockTick(game, now))
        if game.state == GameState.FINISHED:  # the variant's rule ended it (Diplonomic's draw)
            mails += game_over_mails(game, game.outcome)
    return mails


def _guarded(game: Game, now: datetime, step: Callable[[], list[Outgoing]]) -> list[Outgoing]:
    """``step`` for ``game`` in a savepoint: what it sends, or, when it raises, nothing of
    what it did and the game held."""
    try:
        with database_proxy.atomic():
            return step()
    except Exception as exc:
        if unusable(exc) is not None or transient(exc):
            raise  # the database's fault, not the game's: the clock tries again soon
        return _hold(game, now, exc)


def _hold(game: Game, now: datetime, error: Exception) -> list[Outgoing]:
    """A game the clock could not handle: logged with its traceback, marked so that the
    clock leaves it alone from now on (so this happens once, not at every tick), and its
    master told what happened and what to do."""
    why = f"{type(error).__name__}: {error}"[:500]
    log.exception("game %s: the clock's handling failed (%s); the game is held until an "
                  "operator runs `mailjudge requeue %s`", game.name, why, game.name)  # fmt: skip
    with database_proxy.atomic():
        game = Game.get_by_id(game.id)  # as it is stored: what the failed step did is undone
        Game.update(clock_error=f"{now.isoformat(timespec='seconds')} {why}").where(
            Game.id == game.id
        ).execute()
        master = Seat.get_or_none((Seat.game == game.id) & (Seat.role == "master"))
    if master is None or master.person is None:
        return []
    body = render("clock_held.txt.j2", game=game, when=deadline_text(game, master.person, now))
    return [mail_to_seat(master, f"the judge could not process {game.phase}", body, "notice")]


def requeue(name: str) -> str:
    """`mailjudge requeue GAME`: a game the clock held after a failure is handed back to
    the clock, which tries it again at its next tick (within seconds in a running judge).
    What was done, as one line; ServiceError for a game that does not exist."""
    game = Game.get_or_none(Game.name == name.lower())
    if game is None:
        raise ServiceError(f"no game is called {name}; `mailjudge status` lists the games")
    if not game.clock_error:
        return f"game {game.name} is not held: the clock handles it already"
    Game.update(clock_error="").where(Game.id == game.id).execute()
    return (
        f"game {game.name} handed back to the clock (it was held after: {game.clock_error}); "
        "the judge tries it again at its next tick"
    )


def _handle_due(game: Game, now: datetime) -> list[Outgoing]:
    """Claim the game's due events (compare-and-set on next_reminder_at) and act on them."""
    ended = stalemate.settle(game, now)  # a draw at the deadline: nobody is late for it
    if ended:
        return ended
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
    past_deadline = [e for e in todo if e.kind != "remind"]
    until = delivery.excused_until(game)
    spared = delivery.excused(game, late, now) if past_deadline and until and now < until else {}
    if spared and any(e.at == game.deadline for e in past_deadline):
        mails += _to_master_spared(game, spared)  # once a phase: that event is claimed once
    late = [p for p in late if p not in spared]
    for event in todo:
        if event.kind in ("remind", "deadline"):
            mails += _to_late_players(game, late, event.kind, now)
        elif late and not has_rule(game, "CIVIL_DISORDER"):
            mails += _to_master(game, late)
        elif late and variant_of(game).phase.replace_the_late:
            mails += _to_master(game, late, defaults=True)
    return mails


def _to_late_players(game: Game, late: list[str], kind: str, now: datetime) -> list[Outgoing]:
    timing = timing_of(game)
    mails = []
    for seat in players_to_order_by_clock(game):
        mine = [p for p in seat.powers if p in late]
        if not mine or game.deadline is None or seat.person is None:
            continue
        what = "reminder: orders due" if kind == "remind" else "your orders are late"
        grace_end = game.deadline + timing.grace
        body = render(
            "reminder.txt.j2",
            game=game,
            powers=mine,
            kind=kind,
            deadline=deadline_lines(game, seat.person),
            grace_end=deadline_text(game, seat.person, grace_end) if timing.grace else None,
            frozen=has_rule(game, "CIVIL_DISORDER") and not has_rule(game, "LATE_CHANGES"),
            ready=ready_lines(game, seat),
        )
        if kind == "remind":  # for /stats: orders that came after it
            seat_phases.note_lever(game, mine, seat_phases.REMINDER, now)
        mails.append(mail_to_seat(seat, f"{what} ({game.phase})", body, "notice"))
    return mails


def _to_master(game: Game, late: list[str], defaults: bool = False) -> list[Outgoing]:
    master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
    if master is None or master.person is None:
        return []
    body = render("late_master.txt.j2", game=game, late=late, defaults=defaults)
    return [mail_to_seat(master, f"late: {', '.join(late)} ({game.phase})", body, "notice")]


def _to_master_spared(game: Game, spared: dict[str, str]) -> list[Outgoing]:
    """Tell the master which seats are not counted late because the judge's mail to them
    did not arrive, and why, and until when their grace lasts."""
    master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
    until = delivery.excused_until(game)
    if master is None or master.person is None or until is None:
        return []
    body = render(
        "delivery_grace.txt.j2",
        game=game,
        excused=spared,
        until=deadline_text(game, master.person, until),
        civil=has_rule(game, "CIVIL_DISORDER"),
    )
    subject = f"grace for {', '.join(sorted(spared))}: mail did not arrive ({game.phase})"
    return [mail_to_seat(master, subject, body, "notice")]

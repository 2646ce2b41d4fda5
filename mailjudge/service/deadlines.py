"""Deadlines and what happens by the clock: reminders, late notices, grace, civil disorder.

Each phase gets a deadline from the game's TIMING (none under NO_DEADLINE), moved past the
absences of the players who must order. Around it lie the clock's events, in order: the
reminders (WARN), the deadline itself (late notices), and the end of the grace period
(GRACE; at the deadline when there is none). ``Game.next_reminder_at`` holds the time of
the next event not yet handled, so a restart or a second judge process never handles one
twice: each event is claimed by moving that column on with a compare-and-set.
"""

from __future__ import annotations

from datetime import datetime

from mailjudge.db import database_proxy
from mailjudge.models import Game, GameState, Seat
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines, deadline_text
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.service import processing
from mailjudge.service.results import results_mails
from mailjudge.service.schedule import events, players_to_order_by_clock, timing_of
from mailjudge.service.state import has_rule
from mailjudge.settings import current_settings
from mailjudge.variants import variant_of
from mailjudge.variants.democratic import digests


def tick(now: datetime) -> list[Outgoing]:
    """Handle every clock event that is due, then process what is ready; the mail to send."""
    mails: list[Outgoing] = []
    due = Game.select().where(
        (Game.state == GameState.ACTIVE)
        & Game.next_reminder_at.is_null(False)
        & (Game.next_reminder_at <= now)
    )
    for game in list(due):
        mails += _handle_due(game, now)
    for game in list(Game.select().where(Game.state == GameState.ACTIVE)):
        state = processing.readiness(game, now)
        if state.ready:
            done = processing.process(game, force=True, expected_sequence=game.sequence, now=now)
            if done is not None:
                mails += after_clock_processing(game, done)
        if game.state == GameState.ACTIVE:
            mails += variant_of(game).on_clock(game, now)
    return mails + digests.due(now, current_settings().judge.digest_hours)


def after_clock_processing(game: Game, done: object) -> list[Outgoing]:
    return results_mails(game, done) + list(getattr(done, "notices", []))


def _handle_due(game: Game, now: datetime) -> list[Outgoing]:
    """Claim the game's due events (compare-and-set on next_reminder_at) and act on them."""
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
        )
        mails.append(mail_to_seat(seat, f"{what} ({game.phase})", body, "notice"))
    return mails


def _to_master(game: Game, late: list[str], defaults: bool = False) -> list[Outgoing]:
    master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
    if master is None or master.person is None:
        return []
    body = render("late_master.txt.j2", game=game, late=late, defaults=defaults)
    return [mail_to_seat(master, f"late: {', '.join(late)} ({game.phase})", body, "notice")]

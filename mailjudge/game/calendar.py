"""A game's deadlines for the players' calendars: the data of each phase's event, gathered
from the game, for render/calendar.py to write, and the text/calendar part of a mail to a
seat (outbound/invitation.py).

What each change of the deadline sends to every seat in invited_seats(), as one part in
the mail that tells them of the change:

- ``NEW``: a phase's first deadline (the game starts, a phase is processed): REQUEST;
- ``MOVED``: SET DEADLINE, an absence, a new TIMING, RESUME: REQUEST, same UID, the
  SEQUENCE higher (Game.deadline_sequence goes up with every change: game/schedule.py);
- ``PAUSED``: PAUSE: CANCEL of the current phase's event (RESUME sends it again);
- ``GONE``: a phase processed (early or not) or the game over: CANCEL of that phase's
  event, named by ``phase``, since game.phase is the next one by then.
"""

from __future__ import annotations

from datetime import datetime
from email.message import EmailMessage
from enum import StrEnum

from mailjudge.config.settings import Settings, current_settings
from mailjudge.game.schedule import timing_of
from mailjudge.game.state import is_public, phase_label
from mailjudge.outbound.invitation import calendar_part
from mailjudge.render.calendar import Attendee, DeadlineEvent, Method, event_uid, feed, invitation
from mailjudge.store.models import Game, GameState, Seat, utcnow

# Every seat but an observer's has a part in the phases, and so a deadline to keep (the
# players, the master, and a variant's own seats: Diplonomic's teammates, Democratic's
# citizens).
WATCHING = "observer"


class Change(StrEnum):
    NEW = "new"
    MOVED = "moved"
    PAUSED = "paused"
    GONE = "gone"


def deadline_event(
    game: Game, change: Change = Change.NEW, phase: str | None = None,
    settings: Settings | None = None,
) -> DeadlineEvent:  # fmt: skip
    """The event of ``phase`` (the current one by default) after ``change``."""
    settings = settings or current_settings()
    code = phase or game.phase or ""
    current = code == game.phase and game.state in (GameState.ACTIVE, GameState.PAUSED)
    return DeadlineEvent(
        uid=event_uid(game.name, game.created_at, code, settings.judge.domain),
        game=game.name,
        phase=code,
        phase_label=phase_label(code),
        deadline=game.deadline if current else None,
        warn=tuple(timing_of(game).warn),
        sequence=game.deadline_sequence,
        judge=settings.judge.address,
        judge_name=settings.judge.name,
        link=_link(game, settings),
        cancelled=_why_cancelled(game, change, code),
    )


def _link(game: Game, settings: Settings) -> str | None:
    """The game's page, as state.web_link gives it, from these settings' web.base_url."""
    base = settings.web.base_url
    return f"{str(base).rstrip('/')}/games/{game.name}" if base and is_public(game) else None


def _why_cancelled(game: Game, change: Change, phase: str) -> str:
    if change == Change.PAUSED:
        return f"game {game.name} is paused; the judge sends the deadline again when it resumes"
    if change != Change.GONE:
        return ""
    if game.state == GameState.FINISHED:
        return f"game {game.name} is over"
    return f"{phase_label(phase)} of game {game.name} has been processed"


def invited_seats(game: Game) -> list[Seat]:
    """The seats sent each deadline: the active ones with a person and a part in the
    phases (never an observer, a vacant or a dummy seat)."""
    seats = Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
        & (Seat.role != WATCHING) & ~Seat.dummy
    )  # fmt: skip
    return list(seats)


def _invited(seat: Seat) -> bool:
    return (
        seat.status == "active" and seat.person_id is not None and seat.role != WATCHING
        and not seat.dummy
    )  # fmt: skip


def invitation_ics(
    game: Game, seat: Seat, change: Change, phase: str | None = None,
    now: datetime | None = None, settings: Settings | None = None,
) -> bytes | None:  # fmt: skip
    """The calendar for the mail to ``seat`` about ``change`` (REQUEST or CANCEL), as the
    outbox may keep it until the mail is built; None where there is nothing to send: a
    seat not invited (invited_seats: an observer, a vacant or dummy seat), or a REQUEST for
    a phase with no deadline (NO_DEADLINE, a game not under way). A mail builder may so
    ask for every seat it mails."""
    if not _invited(seat) or seat.person is None:
        return None
    event = deadline_event(game, change, phase, settings)
    method = Method.CANCEL if event.cancelled else Method.REQUEST
    if method == Method.REQUEST and (event.deadline is None or game.state != GameState.ACTIVE):
        return None
    attendee = Attendee(seat.person.email, seat.name, tuple(seat.powers))
    return invitation(event, attendee, method, now or utcnow())


def invitation_part(
    game: Game, seat: Seat, change: Change, phase: str | None = None,
    now: datetime | None = None, settings: Settings | None = None,
) -> EmailMessage | None:  # fmt: skip
    """invitation_ics() as the text/calendar part of the mail (outbound/invitation.py:
    add_invitation puts it in the mail)."""
    ics = invitation_ics(game, seat, change, phase, now, settings)
    return calendar_part(ics) if ics is not None else None


def game_feed(game: Game, now: datetime | None = None, settings: Settings | None = None) -> bytes:
    """The web's feed of the game's deadlines (render/calendar.feed): the current phase's
    while the game is under way, cancelled while it is paused; none before or after."""
    events = []
    if game.deadline is not None and game.state == GameState.ACTIVE:
        events.append(deadline_event(game, Change.NEW, settings=settings))
    elif game.deadline is not None and game.state == GameState.PAUSED:
        events.append(deadline_event(game, Change.PAUSED, settings=settings))
    settings = settings or current_settings()
    return feed(game.name, events, now or utcnow(), settings.judge.name)

"""A game's deadline as a person reads it, in every mail and answer that shows one: in the
game's zone (its TIMING's, by default the judge's ``judge.timezone``), and in the reader's
own zone (SET ZONE) when they set one, or else in UTC. The rules are timing.second_zone's."""

from __future__ import annotations

from datetime import datetime

from mailjudge.engine.timing import Timing, TimingError, show_both, show_lines
from mailjudge.store.models import Game, Person


def game_zone(game: Game) -> str:
    """The zone the game's clock runs in: its TIMING's (UTC under RULE15), else its own."""
    try:
        return Timing.parse(game.timing, game.timezone).zone if game.timing else game.timezone
    except TimingError:
        return str(game.timezone)


def own_zone(person: Person | None) -> str | None:
    return person.timezone if person is not None and person.timezone else None


def deadline_lines(
    game: Game, person: Person | None, label: str = "Deadline", moment: datetime | None = None
) -> list[str]:
    """``Deadline: ...`` and ``In your zone: ...`` (or ``In UTC: ...``); none without one.
    ``moment`` shows another time of the game the same way (the end of grace)."""
    when = moment or game.deadline
    if when is None:
        return []
    return show_lines(when, game_zone(game), own_zone(person), label)


def deadline_text(game: Game, person: Person | None, moment: datetime | None = None) -> str:
    """The same on one line, for an answer: ``Sat ... CET (Europe/Paris) (... in UTC)``;
    empty without a deadline."""
    when = moment or game.deadline
    return show_both(when, game_zone(game), own_zone(person)) if when is not None else ""


def time_for_address(moment: datetime, zone: str, email: str) -> str:
    """A time of the judge's (not of one game), for whoever writes from ``email``: in
    ``zone`` (judge.timezone) and in their own zone if they set one in any game."""
    person = Person.get_or_none(Person.email == email.lower())
    return show_both(moment, zone, own_zone(person))

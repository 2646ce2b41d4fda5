"""What happens in a game that a variant may answer with mail of its own: one typed event
each, passed to the one event hook of its protocol (``PhaseHooks.on``, ``PeopleHooks.on``)
instead of one hook a moment."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from mailjudge.game.outcomes import Processed
from mailjudge.store.models import Game, Seat


@dataclass(frozen=True)
class Started:
    """The powers are dealt and the first phase is set."""

    game: Game
    rng: random.Random
    now: datetime


@dataclass(frozen=True)
class _Moment:
    game: Game
    now: datetime


class BeforeProcess(_Moment):
    """Inside the processing transaction, before the orders on file are read."""


@dataclass(frozen=True)
class AfterProcess:
    """Inside the processing transaction, after the next phase is set."""

    game: Game
    done: Processed
    now: datetime


class ClockTick(_Moment):
    """A tick of the judge's clock, for an active game. A variant that ends the game here
    leaves the notice that it is over to the clock (service/results.game_over_mails)."""


class DrawDeclared(_Moment):
    """The master's DECLARE DRAW, in a variant that does not let it end the game at once
    (``PeopleHooks.refusal(DrawNow)``): the variant sets it for later and says so."""


PhaseEvent = Started | BeforeProcess | AfterProcess | ClockTick | DrawDeclared


@dataclass(frozen=True)
class _ToSeat:
    game: Game
    seat: Seat


class TookOver(_ToSeat):
    """A TAKEOVER gave ``seat`` a new player."""


class Resigned(_ToSeat):
    """``seat`` has RESIGNed (its person already gone)."""


class JoinedLate(_ToSeat):
    """A JOIN to a running game (Democratic's citizens): whom to tell besides the newcomer."""


PeopleEvent = TookOver | Resigned | JoinedLate

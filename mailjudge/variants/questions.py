"""What shared code asks a variant about its people, one typed question each: "why may
this not be done?" (``PeopleHooks.refusal``, None: it may) and "what lines does the
variant add here?" (``PeopleHooks.lines``, None: the shared answer stands alone). One
hook each answers them all, instead of one hook per command or feature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mailjudge.store.models import Game, Seat

if TYPE_CHECKING:
    from mailjudge.engine.maps import GameMap


@dataclass(frozen=True)
class _OfGame:
    game: Game


@dataclass(frozen=True)
class _OfSeat:
    game: Game
    seat: Seat


@dataclass(frozen=True)
class _OfPower:
    game: Game
    power: str


# -- refusals: why not, or None ----------------------------------------------------------


@dataclass(frozen=True)
class PlayOn:
    """May the variant be played on this map (at CREATE, before any game)?"""

    gmap: GameMap


class ProposeDraw(_OfGame):
    """May a draw be proposed or voted now?"""


class DrawNow(_OfGame):
    """May the master's DECLARE DRAW end the game at once? A reason: the variant sets the
    draw for later instead (``DrawDeclared``)."""


class Resign(_OfSeat):
    """May this seat RESIGN now?"""


class Open(_OfPower):
    """May ``power`` be an opening, taken over when its player leaves or misses a real
    deadline? A reason: nobody ever takes it over (Democratic: its citizens play it)."""


class StandIn(_OfGame):
    """Under STANDIN, may the stand-in order for a silent power? A reason: the variant's
    own rule plays it instead, and SET STANDIN is refused with that reason."""


@dataclass(frozen=True)
class Orders:
    """May this set of orders for ``power`` be taken, by the variant's own rule, before the
    standard checks? A reason refuses it whole."""

    game: Game
    power: str
    texts: tuple[str, ...]


Refusal = PlayOn | ProposeDraw | DrawNow | Resign | Open | StandIn | Orders

# -- lines the variant adds to a shared answer ------------------------------------------


class Status(_OfSeat):
    """STATUS for this seat: the variant's own lines in place of the orders on file."""


class PowerNotes(_OfPower):
    """Lines under a power in LIST."""


@dataclass(frozen=True)
class Unordered:
    """A seat's ready-to-send block, for a unit the seat has no order of its own for: a
    note in place of the judge's default order line (Double: a default sent back would be
    one partner's order against the other's)."""

    game: Game
    phase_type: str


@dataclass(frozen=True)
class InAdvance:
    """IF DISLODGED / IF ADJUSTING: an order filed now for a later phase; the reply."""

    game: Game
    seat: Seat
    words: tuple[str, ...]


@dataclass(frozen=True)
class BallotInPress:
    """A ballot cast inside press (Survive: a vote-out to the master); the reply lines."""

    game: Game
    seat: Seat
    recipients: tuple[str, ...]
    lines: tuple[str, ...]


Lines = Status | PowerNotes | Unordered | InAdvance | BallotInPress

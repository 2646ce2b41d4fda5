"""The people protocol: who sits in a variant's game and what each may do. How JOIN and
TAKEOVER seat someone, whom a seat speaks for, how a running game recruits; one question
hook for every "why may this not be done?" (``refusal``), one for every line the variant
adds to a shared answer (``lines``), and one event hook for what happens to a seat."""

from __future__ import annotations

from dataclasses import dataclass

from mailjudge.game.state import players
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import Game, Seat
from mailjudge.variants.events import PeopleEvent
from mailjudge.variants.questions import Lines, Refusal


@dataclass(frozen=True)
class Recruiting:
    """A running game that takes newcomers by JOIN rather than by TAKEOVER, as the openings
    show it: what a newcomer becomes, and the line to send (with the word "password")."""

    becomes: str
    line: str


class PeopleHooks:
    has_players = True  # False: nobody holds a power (Democratic citizens share them)
    # True: each player's orders for a shared power are kept apart (Double), and the
    # variant turns them into the power's orders before the phase is processed.
    orders_per_player = False
    # True: running games of the variant take newcomers by JOIN, not TAKEOVER (Democratic's
    # citizens); the openings say how (``recruiting``).
    recruits = False
    # True: players are known to each other by their powers only (Gunboat): JOIN takes no
    # AS name, so no page, LIST or press shows one; the master still knows who is who.
    anonymous = False

    def join(self, game: Game, email: str, password: str, name: str | None) -> Seat | None:
        """JOIN done the variant's own way (Democratic: a citizen of a centre); None: the
        standard JOIN of a player."""
        return None

    def speaks_for(self, seat: Seat) -> list[str]:
        """The powers a seat writes press for (and a Reply to its press goes back to)."""
        return list(seat.powers)

    def takeover_seat(self, game: Game, name: str) -> Seat | None:
        """The seat a TAKEOVER of ``name`` (a power, or a seat's name) takes: here the one
        seat that holds the power; None: no such power or seat. Double overrides it: two
        seats hold each power, and only the vacant one is taken."""
        for seat in players(game):
            if name.upper() in seat.powers or seat.name == name.lower():
                return seat
        return None

    def recruiting(self, game: Game) -> Recruiting | None:
        """How a newcomer joins this running game instead of taking a power over, for the
        openings page and the OPENINGS mail (Democratic: JOIN as a citizen); None: a
        running game takes newcomers only by TAKEOVER. Asked only of the games of variants
        with ``recruits`` set."""
        return None

    def refusal(self, question: Refusal) -> str | None:
        """Why the variant's rules forbid what ``question`` asks (variants/questions.py:
        a map, a draw, a RESIGN, an opening, the stand-in, a set of orders); None: the
        standard game's rules decide."""
        return None

    def lines(self, question: Lines) -> list[str] | None:
        """The variant's lines in a shared answer (STATUS, LIST, the ready block, an order
        in advance, a ballot in press); None: the shared answer stands alone."""
        return None

    def on(self, event: PeopleEvent) -> list[Outgoing]:
        """Whom the variant tells when a seat is taken over, resigned or joined late."""
        return []

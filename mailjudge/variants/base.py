"""What every variant may change, as named hooks; the standard game changes nothing."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mailjudge.engine.passive import Passive
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Processed, Readiness, Wait
from mailjudge.game.state import players, power_is_done
from mailjudge.permissions.rows import Row
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import BaseModel, Game, Seat

if TYPE_CHECKING:
    from mailjudge.engine.maps import GameMap
    from mailjudge.engine.phases import PhaseOutcome
    from mailjudge.engine.readings import Readings
    from mailjudge.engine.state import Position
    from mailjudge.store.models import OrderLine


@dataclass
class PressRoutes:
    """Where a variant sends press besides the players: seats written to directly (a
    Democratic country's diplomat), country lists it is posted on, and the countries it
    could not reach (told to the writer)."""

    seats: list[Seat] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ListThread:
    """Where a post to a list sits in its conversation: its own Message-ID, and the mail it
    answered (In-Reply-To, References), as the poster's mail gave them."""

    message_id: str | None = None
    in_reply_to: str | None = None
    references: Sequence[str] = ()

    def headers(self) -> tuple[str | None, tuple[str, ...]]:
        """In-Reply-To and References for the post's copies: they answer the post itself,
        after what it answered, so that mail clients thread the copies of a conversation
        (RFC 5322 3.6.4) as they would have threaded the posts."""
        chain = [r for r in self.references if r]
        if self.in_reply_to and self.in_reply_to not in chain:
            chain.append(self.in_reply_to)
        if self.message_id is None:
            return (chain[-1] if chain else None), tuple(chain)
        return self.message_id, tuple(r for r in chain if r != self.message_id)


@dataclass(frozen=True)
class Recruiting:
    """A running game that takes newcomers by JOIN rather than by TAKEOVER, as the openings
    show it: what a newcomer becomes, and the line to send (with the word "password")."""

    becomes: str
    line: str


@dataclass
class PublicTable:
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class PublicText:
    caption: str
    body: str


@dataclass
class PublicSection:
    """A part of the game's public web page that a variant adds: only what the rules make
    public to anyone (counts, never ballots; texts, never hidden authors)."""

    title: str
    tables: list[PublicTable] = field(default_factory=list)
    texts: list[PublicText] = field(default_factory=list)


class Variant:
    name = "standard"
    has_players = True  # False: nobody holds a power (Democratic citizens share them)
    # True: each player's orders for a shared power are kept apart (Double), and the
    # variant turns them into the power's orders in before_process.
    orders_per_player = False
    keep_adjustments_every = 0  # play every n-th year's adjustment phase even when empty
    # Rules flags and TIMING a new game of the variant starts with (CREATE adds its own).
    default_rules = ""
    default_timing = ""
    # Tell the master of powers late at the end of the grace period even though the
    # civil-disorder defaults play them (Diplonomic rule 24: the master tries to replace).
    replace_the_late = False
    # False: a power that sends no removals loses units by the variant's own rule (the
    # distance rule: Diplonomic rule 24), not by CIVIL_DISORDER's random draw (seed 001).
    random_removals = True
    # Why a passive power's orders are refused ("FRANCE " comes before it).
    passive_note = (
        "is out of the game and takes no orders: its units hold, disband when dislodged and"
        " are removed by rule; results still come to you"
    )

    # The game's countries have mailing lists (Democratic: each country's citizens).
    country_lists = False
    # True: running games of the variant take newcomers by JOIN, not TAKEOVER (Democratic's
    # citizens); the openings say how (``recruiting``).
    recruits = False
    # True: players are known to each other by their powers only (Gunboat): JOIN takes no
    # AS name, so no page, LIST or press shows one; the master still knows who is who.
    anonymous = False
    # The kinds of seat the variant adds to the shared ones (master, player, observer),
    # its people's first: Democratic's citizen and the diplomat its citizens elect,
    # Diplonomic's teammate. Shared code names none of them: it asks the seat's role,
    # the variant's hooks and its permission rows (tests/ops/test_variant_roles.py holds it).
    roles: tuple[str, ...] = ()
    # The columns of Seat that only the variant's seats fill (Democratic's centre).
    seat_fields: tuple[str, ...] = ()
    # How many each centre a power owns counts for toward victory, for the powers whose
    # centres do not count one each: the engine counts them, the results show them.
    centre_weights: Mapping[str, int] = MappingProxyType({})
    # Rows of the permission table for the variant's roles and actions, read after the
    # gates and before the shared rows (permissions/policy.py).
    permission_rows: tuple[Row, ...] = ()
    # The variant's own tables (its package's tables.py); the migrations create them.
    tables: tuple[type[BaseModel], ...] = ()
    # The module of the variant's own commands ("mailjudge.variants.NAME.commands"), which
    # the command table imports; "" when it has none.
    commands_module = ""

    def join(self, game: Game, email: str, password: str, name: str | None) -> Seat | None:
        """JOIN done the variant's own way (Democratic: a citizen of a centre); None: the
        standard JOIN of a player."""
        return None

    def speaks_for(self, seat: Seat) -> list[str]:
        """The powers a seat writes press for (and a Reply to its press goes back to)."""
        return list(seat.powers)

    def press_routes(
        self, game: Game, sender: Seat, recipients: list[str], cc_list: bool
    ) -> PressRoutes:
        """Where press goes besides the players who hold the powers written to."""
        return PressRoutes()

    def ballot_in_press(
        self, game: Game, seat: Seat, recipients: list[str], lines: list[str]
    ) -> list[str]:
        """A ballot a variant lets players cast inside press (Survive: a vote-out to the
        master); the reply lines for it, [] when the press holds none."""
        return []

    def passive(self, game: Game, through: int) -> Passive:
        """Powers nobody orders as of the phase numbered ``through`` (a Game.sequence)."""
        return Passive()

    def map_refusal(self, gmap: GameMap) -> str | None:
        """Why the variant cannot be played on this map; None: it can (any map, here)."""
        return None

    def victory_count(self, centres: int) -> int | None:
        """The game's victory count on a map of ``centres``; None: the map's own."""
        return None

    def on_start(self, game: Game, rng: random.Random, now: datetime) -> list[Outgoing]:
        """After the powers are dealt and the first phase is set."""
        return []

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        """Whether to process now; ``standard`` is the standard game's answer."""
        return standard

    def hold(self, game: Game, now: datetime) -> Wait | None:
        """When the phase is about to be processed: a Wait keeps it open for another
        round (the variant has opened it), and its notices go out instead of results."""
        return None

    def processing(self, game: Game) -> AbstractContextManager[object]:
        """Held from before_process to after_process: what the variant keeps for the
        length of one phase's processing (Democratic: its citizens' addresses)."""
        return nullcontext()

    def before_process(self, game: Game, now: datetime) -> list[Outgoing]:
        """Inside the processing transaction, before the orders on file are read."""
        return []

    def after_process(self, game: Game, done: Processed, now: datetime) -> list[Outgoing]:
        """Inside the processing transaction, after the next phase is set."""
        return []

    def keep(self, game: Game) -> dict[str, Any]:
        """What of the variant's own state a ROLLBACK to the current phase puts back, as it
        stands when the phase is processed, before ``before_process`` (JSON, kept with the
        phase: PhaseRecord.kept). Orders on file, the phase's own and those sent ahead,
        are kept by the shared code; so is forgetting the votes of phases after it."""
        return {}

    def restore(self, game: Game, kept: dict[str, Any]) -> None:
        """Put back what ``keep`` kept: after a ROLLBACK to a phase, and when ROLLFORWARD
        comes to a stored phase (or back to where the ROLLBACK left). ``kept`` is {} for a
        phase kept before the variant kept anything: then change nothing."""

    def late(
        self, game: Game, pos: Position, powers: list[str], on_file: dict[str, list[OrderLine]],
        read: Readings | None = None,
    ) -> list[str]:  # fmt: skip
        """Who still owes orders, among ``powers`` (those with something to order);
        ``read``: the order lines read already (the mail's that filed some)."""
        return [p for p in powers if not power_is_done(game, pos, p, on_file.get(p, []), read)]

    def ending(self, game: Game, outcome: PhaseOutcome) -> str | None:
        """How the game ends after this phase ('WIN FRANCE'), or None: it goes on."""
        return "WIN " + " ".join(sorted(outcome.winners)) if outcome.winners else None

    def refuse_orders(self, game: Game, power: str, texts: list[str]) -> str | None:
        """Why a set of orders is refused whole by the variant's own rule (Diplonomic rule
        17: convoy paths), before the standard checks; None: no such reason."""
        return None

    def opening_refusal(self, game: Game, power: str) -> str | None:
        """Why ``power`` is never an opening of this game, so that nobody takes it over
        (Democratic: its citizens play it); None: it opens as a standard game's power does,
        when its player leaves or misses a real deadline."""
        return None

    def recruiting(self, game: Game) -> Recruiting | None:
        """How a newcomer joins this running game instead of taking a power over, for the
        openings page and the OPENINGS mail (Democratic: JOIN as a citizen); None: a
        running game takes newcomers only by TAKEOVER. Asked only of the games of variants
        with ``recruits`` set."""
        return None

    def takeover_seat(self, game: Game, name: str) -> Seat | None:
        """The seat a TAKEOVER of ``name`` (a power, or a seat's name) takes: here the one
        seat that holds the power; None: no such power or seat. Double overrides it: two
        seats hold each power, and only the vacant one is taken."""
        for seat in players(game):
            if name.upper() in seat.powers or seat.name == name.lower():
                return seat
        return None

    def on_takeover(self, game: Game, seat: Seat) -> list[Outgoing]:
        """After a TAKEOVER gave ``seat`` a new player: whom the variant tells."""
        return []

    def on_resign(self, game: Game, seat: Seat) -> list[Outgoing]:
        """After ``seat`` has RESIGNed (its person already gone): whom the variant tells."""
        return []

    def pending_outcome(self, game: Game) -> str | None:
        """What stands between the game and its end, for the results (Double's joint-win
        vote or tie-break); None when nothing does."""
        return None

    def draws_allowed(self, game: Game) -> str | None:
        """None, or why no draw may be proposed or voted now."""
        return None

    def resign_refused(self, game: Game, seat: Seat) -> str | None:
        """None, or why this seat may not RESIGN now (Survive's rule 8)."""
        return None

    def declare_draw(self, game: Game, now: datetime) -> list[Outgoing] | None:
        """The master's DECLARE DRAW: None ends the game in a draw now; a list of notices
        means the variant has set the draw for later (Diplonomic's two days' notice)."""
        return None

    def on_clock(self, game: Game, now: datetime) -> list[Outgoing]:
        """At every tick of the judge's clock, for an active game (a draw's notice ending).
        A hook that ends the game leaves the notice that it is over to the clock, which
        sends it as every ending's (service/results.game_over_mails)."""
        return []

    def list_at(self, address: str, judge: str) -> tuple[Game, str] | None:
        """(game, country) when ``address`` is a mailing list the variant runs for a
        country of one of its games (Democratic's country lists); None: not one."""
        return None

    def post_to_list(
        self, game: Game, power: str, text: str, subject: str, sender: str, thread: ListThread
    ) -> tuple[Seat, Outgoing]:
        """A mail sent to a list ``list_at`` found: the poster's seat and the list's mail."""
        raise ServiceError(f"{game.name} has no country lists")

    def list_mail(
        self, game: Game, power: str, subject: str, body: str, author: str
    ) -> Outgoing | None:
        """Press routed to a country's list (``press_routes``): the list's mail, or None
        when nobody is on the list."""
        return None

    def joined_late(self, game: Game, seat: Seat) -> list[Outgoing]:
        """After a JOIN to a running game (Democratic's citizens): whom the variant tells
        besides the newcomer."""
        return []

    def status_lines(self, game: Game, seat: Seat) -> list[str] | None:
        """STATUS for a seat the variant answers itself (a Democratic citizen: their
        country's nominations and votes); None: the standard lines of orders on file."""
        return None

    def order_in_advance(self, game: Game, seat: Seat, words: list[str]) -> str:
        """IF DISLODGED / IF ADJUSTING: an order filed now for a later phase (Diplonomic
        rule 15); the reply line."""
        raise NotAllowed("orders in advance (IF DISLODGED, IF ADJUSTING) are for Diplonomic games")

    def standin_refusal(self, game: Game) -> str | None:
        """Under STANDIN, what a silent power (one that owes orders and sent none) does:
        None, the stand-in orders for it; a reason, the variant's own rule plays it instead
        and SET STANDIN is refused with that reason (Diplonomic's rule 24: its units hold
        and do not support each other)."""
        return None

    def unordered_note(self, game: Game, phase_type: str) -> str | None:
        """A seat's ready-to-send block (service/ready_block.py) for a unit the seat has no
        order of its own for: None, the judge's default order stands in the block; a note,
        the unit is left without an order line and the note says what becomes of it.
        Where partners share a power (Double) a default written into one partner's block
        would be sent back as that partner's order, against the other's."""
        return None

    def power_notes(self, game: Game, power: str) -> list[str]:
        """Lines under a power in LIST (Diplonomic's advisors)."""
        return []

    def public_sections(self, game: Game) -> list[PublicSection]:
        """What the variant shows on the game's public web page, besides the board."""
        return []

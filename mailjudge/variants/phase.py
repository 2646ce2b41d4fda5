"""The phase protocol: what a variant changes around adjudication. When a phase is ready
and what holds it open, what happens before and after it is processed (one event hook),
what a silent or departed power does, how the game ends, what a centre counts for toward
victory, and what a ROLLBACK puts back. The standard game changes nothing."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mailjudge.engine.passive import Passive
from mailjudge.game.outcomes import Readiness, Wait
from mailjudge.game.state import power_is_done
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import Game
from mailjudge.variants.events import PhaseEvent

if TYPE_CHECKING:
    from mailjudge.engine.phases import PhaseOutcome
    from mailjudge.engine.readings import Readings
    from mailjudge.engine.state import Position
    from mailjudge.store.models import OrderLine


class PhaseHooks:
    # Play every n-th year's adjustment phase even when it is empty (Survive's vote).
    keep_adjustments_every = 0
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
    # How many each centre a power owns counts for toward victory, for the powers whose
    # centres do not count one each: the engine counts them, the results show them.
    centre_weights: Mapping[str, int] = MappingProxyType({})

    def victory_count(self, centres: int) -> int | None:
        """The game's victory count on a map of ``centres``; None: the map's own."""
        return None

    def on(self, event: PhaseEvent) -> list[Outgoing]:
        """The variant's mail (and changes) when the game starts, before and after a phase
        is processed, at a tick of the clock, and when the master declares a draw the
        variant sets for later (variants/events.py)."""
        return []

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        """Whether to process now; ``standard`` is the standard game's answer."""
        return standard

    def hold(self, game: Game, now: datetime) -> Wait | None:
        """When the phase is about to be processed: a Wait keeps it open for another
        round (the variant has opened it), and its notices go out instead of results."""
        return None

    def processing(self, game: Game) -> AbstractContextManager[object]:
        """Held from BeforeProcess to AfterProcess: what the variant keeps for the length
        of one phase's processing (Democratic: its citizens' addresses)."""
        return nullcontext()

    def passive(self, game: Game, through: int) -> Passive:
        """Powers nobody orders as of the phase numbered ``through`` (a Game.sequence)."""
        return Passive()

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

    def pending_outcome(self, game: Game) -> str | None:
        """What stands between the game and its end, for the results (Double's joint-win
        vote or tie-break); None when nothing does."""
        return None

    def keep(self, game: Game) -> dict[str, Any]:
        """What of the variant's own state a ROLLBACK to the current phase puts back, as it
        stands when the phase is processed, before BeforeProcess (JSON, kept with the
        phase: PhaseRecord.kept). Orders on file, the phase's own and those sent ahead,
        are kept by the shared code; so is forgetting the votes of phases after it."""
        return {}

    def restore(self, game: Game, kept: dict[str, Any]) -> None:
        """Put back what ``keep`` kept: after a ROLLBACK to a phase, and when ROLLFORWARD
        comes to a stored phase (or back to where the ROLLBACK left). ``kept`` is {} for a
        phase kept before the variant kept anything: then change nothing."""

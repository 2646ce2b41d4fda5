"""What every variant may change, as named hooks; the standard game changes nothing."""

from __future__ import annotations

import random
from datetime import datetime
from typing import TYPE_CHECKING

from mailjudge.models import Game
from mailjudge.render.outgoing import Outgoing

if TYPE_CHECKING:
    from mailjudge.service.processing import Processed, Readiness


class Variant:
    name = "standard"
    has_players = True  # False: nobody holds a power (Democratic citizens share them)

    def on_start(self, game: Game, rng: random.Random, now: datetime) -> list[Outgoing]:
        """After the powers are dealt and the first phase is set."""
        return []

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        """Whether to process now; ``standard`` is the standard game's answer."""
        return standard

    def before_process(self, game: Game, now: datetime) -> list[Outgoing]:
        """Inside the processing transaction, before the orders on file are read."""
        return []

    def after_process(self, game: Game, done: Processed, now: datetime) -> list[Outgoing]:
        """Inside the processing transaction, after the next phase is set."""
        return []

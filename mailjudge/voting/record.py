"""The published record of a count: stages, eliminations and how each tie was settled.

Everything here is public once the deadline has passed: per-stage totals
and the tie-breaks, never an individual ballot.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

Opt = TypeVar("Opt", bound=Hashable)

TieKind = Literal["win", "elimination"]


@dataclass(frozen=True)
class Draw(Generic[Opt]):
    """A seeded draw, with what anyone needs to repeat it with any SHA-256 tool.

    The chosen option is ``candidates[int(digest, 16) % len(candidates)]``, where
    ``digest`` is the SHA-256 (hex) of ``text`` encoded as UTF-8.
    """

    candidates: tuple[Opt, ...]
    text: str
    digest: str
    chosen: Opt


@dataclass(frozen=True)
class Tie(Generic[Opt]):
    """One tie at stage ``stage`` and how it was settled.

    ``looked_back`` lists, for each earlier stage that told the tied options apart, that
    stage's number and the options still tied after it (most recent stage first).
    ``draw`` is set only when the earlier stages never told them apart.
    ``result`` is the winner (kind "win") or the option eliminated (kind "elimination").
    """

    stage: int
    kind: TieKind
    tied: tuple[Opt, ...]
    looked_back: tuple[tuple[int, tuple[Opt, ...]], ...]
    draw: Draw[Opt] | None
    result: Opt


@dataclass(frozen=True)
class Count(Generic[Opt]):
    """The outcome of a count and its stage-by-stage record.

    ``stages[n - 1]`` is stage n: votes for each option still in the count, in the order
    the options were given. ``eliminated[n - 1]`` left the count after stage n.
    ``ballots`` is the weight of the ballots that counted at stage 1; ``abstentions`` the
    weight of those that named no option at all. With no counting ballot there are no
    stages and no winner.
    """

    winner: Opt | None
    stages: tuple[Mapping[Opt, int], ...]
    eliminated: tuple[Opt, ...]
    ties: tuple[Tie[Opt], ...]
    ballots: int
    abstentions: int

    def in_count(self, stage: int) -> int:
        """Ballots still in the count at ``stage`` (1-based)."""
        return sum(self.stages[stage - 1].values())

    def exhausted(self, stage: int) -> int:
        """Ballots that had left the count, all their options gone, by ``stage``."""
        return self.ballots - self.in_count(stage)

    @property
    def draws(self) -> tuple[Tie[Opt], ...]:
        """The ties that only a seeded draw could settle."""
        return tuple(tie for tie in self.ties if tie.draw is not None)

"""What processing and the variants tell each other: whether a phase may be processed
(Readiness), a phase kept open for another round (Wait), and a phase processed
(Processed). A module of its own, below both: the variants answer with these, and
service/processing.py acts on them."""

from __future__ import annotations

from dataclasses import dataclass, field

from mailjudge.engine.phases import PhaseOutcome, ResultRow
from mailjudge.render.outgoing import Outgoing


@dataclass
class Readiness:
    ready: bool
    reason: str
    # Powers whose orders are missing. Always counted in retreat and adjustment phases;
    # in a movement phase it may be left empty when a WAIT or ALWAYS_WAIT settles it.
    waiting_for: list[str] = field(default_factory=list)


@dataclass
class Wait:
    """A phase that is due but needs another round first (Survive's victor vote)."""

    reason: str
    notices: list[Outgoing] = field(default_factory=list)


@dataclass
class Processed:
    phase: str
    next_phase: str
    results: list[ResultRow]
    winners: list[str]
    outcome: PhaseOutcome
    notices: list[Outgoing] = field(default_factory=list)  # the variant's mail
    waiting: str = ""  # not adjudicated: the phase stays open for another round (why)
    # Processed before its deadline: that deadline's calendar event is still to come.
    early: bool = False
    # The seats whose player really missed the phase's deadline (service.records.
    # missed_deadline): only their powers may open in civil disorder.
    missed: frozenset[int] = frozenset()

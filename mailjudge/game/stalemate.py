"""Years without a supply centre changing owner: the count behind STALEMATE_DRAW (the
option) and Diplonomic's rule 9 (seed 003: "If in the past three game-years, no province
has changed ownership ...").

A game year is static when the owners of the supply centres at the start of the next
Spring are those at the start of its own Spring; ``years`` static years in a row end with
the year that has just ended. Knows no variant: Diplonomic asks with its three years,
service/stalemate.py with the game's STALEMATE_DRAW.
"""

from __future__ import annotations

from mailjudge.engine.state import Phase
from mailjudge.game.state import game_map
from mailjudge.store.models import Game, PhaseRecord


def static_since(game: Game, year: int, years: int) -> int | None:
    """The first of the last ``years`` game years (``year`` the last of them, just ended)
    in which no supply centre changed owner; None when a centre did change owner in them,
    or the game is younger than that."""
    if years < 1:
        return None
    first = year - years + 1
    if first < Phase.parse(game_map(game).first_phase).year:
        return None
    springs = {
        r.phase: r.position.get("sc_owners", {})
        for r in PhaseRecord.select().where(
            (PhaseRecord.game == game)
            & PhaseRecord.phase.in_([f"S{y}M" for y in range(first, year + 1)])
        )
    }
    if len(springs) != years:
        return None
    now = (game.position or {}).get("sc_owners", {})
    return first if all(owners == now for owners in springs.values()) else None


def year_just_ended(phase: str) -> int | None:
    """The game year that ended when ``phase`` opened, for a Spring movement phase
    (S1903M: 1902); None for any other phase."""
    if len(phase) == 6 and phase.startswith("S") and phase.endswith("M") and phase[1:5].isdigit():
        return int(phase[1:5]) - 1
    return None

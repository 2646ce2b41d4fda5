"""Fog of war (the FOG rules flag; engine/fog.py has the rule of sight): who sees a game
whole and what the others' results, SUMMARY, HISTORY and MAP are cut down to.

A seat sees the game whole when the game has no fog, is over, or the seat is its master.
A player sees what its powers see; anyone else (an observer seated before FOG was set;
FOG takes no new ones) sees nothing of the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mailjudge.engine.fog import fogged_for, seen_rows, sight_of
from mailjudge.engine.interchange import position_from_dict, position_to_dict
from mailjudge.engine.maps import province_of
from mailjudge.engine.phases import ResultRow
from mailjudge.engine.state import Position
from mailjudge.game.state import game_map, has_rule
from mailjudge.render.results import PhaseFacts
from mailjudge.store.models import Game, GameState, Seat

HIDDEN_COUNT = "?"  # another power's centre count, as a fogged SUMMARY shows it


def fog_running(game: Game) -> bool:
    """Whether the game hides its board: FOG set, the game not over."""
    return has_rule(game, "FOG") and game.state != GameState.FINISHED


def eyes_of(game: Game, seat: Seat | None) -> frozenset[str] | None:
    """The powers whose sight ``seat`` has, or None when it sees the game whole."""
    if not fog_running(game) or (seat is not None and seat.role == "master"):
        return None
    if seat is None or seat.role != "player" or seat.game_id != game.id:
        return frozenset()
    return frozenset(seat.powers)


def fogged_position(game: Game, position: dict[str, Any], eyes: frozenset[str]) -> dict[str, Any]:
    """A stored position as the powers ``eyes`` see it."""
    gmap = game_map(game)
    pos = position_from_dict(position, gmap)
    return position_to_dict(fogged_for(gmap, pos, eyes))


def fogged_rows(
    game: Game, position: dict[str, Any], rows: Sequence[ResultRow], eyes: frozenset[str]
) -> list[ResultRow]:
    """A phase's stored results as ``eyes`` see them, ``position`` the board the orders
    were given on."""
    gmap = game_map(game)
    return seen_rows(rows, eyes, sight_of(gmap, position_from_dict(position, gmap), eyes))


def fogged_words(words: dict[str, Any], eyes: frozenset[str]) -> dict[str, Any]:
    """A report's words (render/results.py) without other powers' counts, builds and
    removals due, or centre changes out of sight (their centres are fogged already)."""
    mine = tuple(sorted(eyes))
    orders_only = {  # another power's lines: its orders seen, never its builds due
        power: lines if power in eyes else [line for line in lines if line[:2] in ("A ", "F ")]
        for power, lines in words["by_power"].items()
    }
    return {
        **words,
        "by_power": {power: lines for power, lines in orders_only.items() if lines},
        "centres": [row for row in words["centres"] if row[0] in eyes],
        "adjustments": [line for line in words["adjustments"] if line.startswith(mine)],
        "fog": True,
    }


def fogged_facts(
    game: Game, facts: PhaseFacts, before: dict[str, Any], eyes: frozenset[str]
) -> PhaseFacts:
    """A phase's facts as ``eyes`` see them: the orders they saw given (``before`` is the
    board they were given on), the boards after it and next as far as they see, the
    centres that changed hands where they see now."""
    gmap = game_map(game)
    seen_after = sight_of(gmap, facts.after, eyes)
    seen_next = sight_of(gmap, facts.next, eyes)
    owners = facts.before_owners
    return replace(
        facts,
        results=fogged_rows(game, before, facts.results, eyes),
        after=fogged_for(gmap, facts.after, eyes),
        next=fogged_for(gmap, facts.next, eyes),
        destroyed=[d for d in facts.destroyed if _place_of(d) in seen_after],
        before_owners=None
        if owners is None
        else {c: o for c, o in owners.items() if c in seen_next},
        counted={p: n for p, n in facts.counted.items() if p in eyes},
    )


def _place_of(destroyed: str) -> str:
    """``FRANCE A PAR`` (a destroyed unit as the facts keep it) -> ``par``."""
    return province_of(destroyed.split()[-1].lower())


def board_for(game: Game, pos: Position, power: str) -> Position:
    """The board ``power``'s orders are checked and its conditions judged on: the whole
    board, or under fog of war the part it sees. A support or convoy of a unit out of
    sight is then refused as one of a unit that is not there, whether one is there or not,
    so the answer tells the player nothing it does not see."""
    return fogged_for(game_map(game), pos, (power,)) if fog_running(game) else pos

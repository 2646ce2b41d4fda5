"""What a finished game scores each power, by the rule its SCORING option names: the
ratings (service/ratings.py) rank the players by it.

- a solo (``WIN X``, ``CONCESSION X``): 1 to the winner, 0 to every other power, by either
  rule;
- DRAW_SIZE: a draw (``DRAW A B C``, Double's ``JOINT WIN``) shared equally by its members:
  1/n each, 0 to the others;
- SUM_OF_SQUARES: each power its supply centres squared over the sum of every power's
  centres squared (a draw's members and the others alike, as the tournament rule has it).

A draw that names no member (an ending before its members were written down) is shared by
every power still on the board.
"""

from __future__ import annotations

from fractions import Fraction

DRAW_SIZE, SUM_OF_SQUARES = "DRAW_SIZE", "SUM_OF_SQUARES"
SOLO_WORDS = ("WIN", "CONCESSION")


def members(outcome: str, powers: list[str], on_board: list[str]) -> tuple[str, list[str]]:
    """("solo", [winner]) or ("draw", its members) from a game's outcome text."""
    words = outcome.upper().split()
    named = [w for w in words if w in powers]
    if words[:1] and words[0] in SOLO_WORDS and named:
        return "solo", named[:1]
    return "draw", named or list(on_board)


def scores(
    outcome: str, rule: str, centres: dict[str, int], powers: list[str], on_board: list[str]
) -> dict[str, Fraction]:
    """Every power's score in [0, 1] (see the module's docstring)."""
    kind, won = members(outcome, powers, on_board)
    if kind == "solo":
        return {p: Fraction(int(p in won)) for p in powers}
    if rule == SUM_OF_SQUARES:
        total = sum(centres.get(p, 0) ** 2 for p in powers)
        if total:
            return {p: Fraction(centres.get(p, 0) ** 2, total) for p in powers}
    return {p: Fraction(1, len(won)) if p in won else Fraction(0) for p in powers}

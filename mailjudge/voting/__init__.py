"""Ranked voting: a single-winner count by elimination transfers, with its record.

``count(ballots, options, seed)`` and ``count_grouped(groups, options, seed)`` return a
``Count``; the rules and the tie-break procedure are in :mod:`mailjudge.voting.count`.
"""

from mailjudge.voting.irv import Ballot, count, count_grouped, group
from mailjudge.voting.record import Count, Draw, Tie, TieKind
from mailjudge.voting.ties import seeded_draw

__all__ = [
    "Ballot",
    "Count",
    "Draw",
    "Tie",
    "TieKind",
    "count",
    "count_grouped",
    "group",
    "seeded_draw",
]

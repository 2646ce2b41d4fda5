"""Tie-breaks: look back through the earlier stages, then a draw anyone can repeat.

The procedure is spelt out in the docstring of :mod:`mailjudge.voting.count`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from mailjudge.voting.record import Draw, Opt, Tie, TieKind


def settle(
    tied: Sequence[Opt], stages: Sequence[Mapping[Opt, int]], kind: TieKind, seed: str
) -> Tie[Opt]:
    """Settle a tie at the last of ``stages`` among ``tied`` (in option order)."""
    current = len(stages)
    still = tuple(tied)
    steps: list[tuple[int, tuple[Opt, ...]]] = []
    # Most recent earlier stage first; a stage that splits the tie only partly narrows it
    # and the look-back goes on among those still level.
    for earlier in range(current - 1, 0, -1):
        votes = stages[earlier - 1]
        level = [votes[option] for option in still]
        best = max(level) if kind == "win" else min(level)
        narrowed = tuple(o for o, v in zip(still, level, strict=True) if v == best)
        if len(narrowed) < len(still):
            steps.append((earlier, narrowed))
            still = narrowed
            if len(still) == 1:
                break
    draw = seeded_draw(seed, current, still) if len(still) > 1 else None
    result = draw.chosen if draw is not None else still[0]
    return Tie(current, kind, tuple(tied), tuple(steps), draw, result)


def seeded_draw(seed: str, stage: int, tied: Sequence[Opt]) -> Draw[Opt]:
    """Pick one of ``tied`` from a SHA-256 of public data only."""
    # sorted() is stable, so options whose text is equal keep their order in the count.
    candidates = tuple(sorted(tied, key=str))
    text = "\n".join([seed, str(stage), *map(str, candidates)])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    chosen = candidates[int(digest, 16) % len(candidates)]
    return Draw(candidates, text, digest, chosen)

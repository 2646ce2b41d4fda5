"""Single-winner ranked voting by elimination transfers (instant runoff), as seed 000 has it.

The rules, stage by stage (stage 1 first):

1. Each ballot counts for its highest-ranked option still in the count. Ids that are not
   options are ignored, and a repeated option counts at its first place. A ballot naming
   no option at all is an abstention and is not counted; a ballot whose options have all
   been eliminated is exhausted and leaves the count.
2. An option wins as soon as it holds at least half of the ballots still in the count
   (weights included). If only one option is left it holds them all and wins.
3. Otherwise the option with the fewest votes is eliminated and its ballots move on.
   Every option is in the count from stage 1, even with no first preference: options
   level at 0 are a tie for fewest like any other, and go one stage at a time.
4. Ties (two options at exactly half each, or several level for fewest) look back at the
   earlier stages, the most recent first. At the first stage where the tied options'
   votes differ, the one with more wins a win tie and the one with fewer is eliminated in
   an elimination tie. If that stage splits a tie of three or more only partly, the
   options level there (highest for a win, lowest for an elimination) stay tied and the
   look-back goes on among them.
5. If the earlier stages never tell them apart (always so at stage 1), a draw settles it:

   - ``candidates``: the tied options sorted by ``str(option)`` (Unicode code points;
     equal texts keep the order in which the options were given);
   - ``text``: the seed, the stage number in decimal and each candidate's ``str()``,
     joined by newlines (``"\\n"``), no newline at the end;
   - ``digest``: ``hashlib.sha256(text.encode("utf-8")).hexdigest()``;
   - the drawn option is ``candidates[int(digest, 16) % len(candidates)]``: it wins a win
     tie, and is the one eliminated in an elimination tie.

   The seed is public (say ``"game:S1901M:diplomat:FRANCE"``), so anyone can repeat the
   draw from the published record, which keeps ``text`` and ``digest`` (see ``Draw``).

A ballot is a ranking (a list of option ids, best first) or a ``(ranking, weight)``
tuple with a positive int weight. ``count_grouped`` takes rankings already grouped, as
``{ranking_tuple: weight}``, e.g. from ``SELECT ranking, COUNT(*) ... GROUP BY ranking``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias

from mailjudge.voting.pool import Codebook, Pool, code
from mailjudge.voting.record import Count, Opt, Tie, TieKind
from mailjudge.voting.ties import settle

Ballot: TypeAlias = Sequence[Opt] | tuple[Sequence[Opt], int]


def count(ballots: Iterable[Ballot[Opt]], options: Iterable[Opt], seed: str) -> Count[Opt]:
    """Count ranked ballots; see the module docstring for the rules."""
    return count_grouped(group(ballots), options, seed)


def count_grouped(
    groups: Mapping[tuple[Opt, ...], int], options: Iterable[Opt], seed: str
) -> Count[Opt]:
    """Count rankings already grouped as ``{ranking_tuple: weight}``."""
    weights = list(groups.values())
    if weights and (not set(map(type, weights)) <= {int} or min(weights) < 1):
        raise ValueError("ballot weights must be positive ints")
    opts = list(dict.fromkeys(options))
    codes = [code(i) for i in range(len(opts))]
    book = Codebook(zip(opts, codes, strict=True))
    encoded = book.encode(groups)
    abstentions = 0
    # Take out empty rankings here (a C-level search) so that a few abstentions among a
    # million ballots keep the pool's fast path.
    while "" in encoded:
        at = encoded.index("")
        abstentions += weights.pop(at)
        del encoded[at]
    pool = Pool(encoded, weights, codes, clean=not book.unknown_seen)
    return _run(pool, opts, codes, seed, abstentions)


def group(ballots: Iterable[Ballot[Opt]]) -> Counter[tuple[Opt, ...]]:
    """Group ballots as ``{ranking_tuple: weight}``; lists of lists take the fast path."""
    items: list[Any] = ballots if isinstance(ballots, list) else list(ballots)
    if set(map(type, items)) <= {list}:
        return Counter(map(tuple, items))
    groups: Counter[tuple[Opt, ...]] = Counter()
    plain: list[Sequence[Opt]] = []
    for ballot in items:
        if isinstance(ballot, str | bytes):
            raise TypeError(f"a ranking is a list of option ids, not {ballot!r}")
        if type(ballot) is tuple and len(ballot) == 2 and isinstance(ballot[0], list | tuple):
            ranking, weight = ballot
            if type(weight) is not int or weight < 1:
                raise ValueError(f"ballot weight must be a positive int, not {weight!r}")
            groups[tuple(ranking)] += weight
        else:
            plain.append(ballot)
    groups.update(map(tuple, plain))
    return groups


def _run(
    pool: Pool, options: list[Opt], codes: list[str], seed: str, abstentions: int
) -> Count[Opt]:
    option_of = dict(zip(codes, options, strict=True))
    code_of = dict(zip(options, codes, strict=True))
    stages: list[dict[Opt, int]] = []
    eliminated: list[Opt] = []
    ties: list[Tie[Opt]] = []
    winner: Opt | None = None
    while True:
        tally = {option_of[c]: votes for c, votes in pool.tally.items()}
        total = sum(tally.values())
        if total == 0:
            # Only at stage 1: a count with ballots in it never runs dry (see rule 2).
            break
        stages.append(tally)
        leaders = [o for o, votes in tally.items() if 2 * votes >= total]
        if leaders:
            winner = _pick(leaders, stages, "win", seed, ties)
            break
        fewest = min(tally.values())
        loser = _pick(
            [o for o, v in tally.items() if v == fewest], stages, "elimination", seed, ties
        )
        eliminated.append(loser)
        pool.eliminate(code_of[loser])
    return Count(
        winner=winner,
        stages=tuple(MappingProxyType(stage) for stage in stages),
        eliminated=tuple(eliminated),
        ties=tuple(ties),
        ballots=sum(stages[0].values()) if stages else 0,
        abstentions=abstentions + pool.abstentions,
    )


def _pick(
    tied: list[Opt], stages: list[dict[Opt, int]], kind: TieKind, seed: str, ties: list[Tie[Opt]]
) -> Opt:
    if len(tied) == 1:
        return tied[0]
    tie = settle(tied, stages, kind, seed)
    ties.append(tie)
    return tie.result

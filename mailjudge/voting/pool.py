"""The ballots in play, grouped so that a stage touches only the ballots that move.

Each distinct ranking is encoded as a string, one character per option (``UNKNOWN`` for
an id that is not an option), and kept with its weight under the option it counts for.
Eliminating an option strips the eliminated characters from the front of each of its
strings (``str.lstrip``, in C) and files what remains under its new first option; the
rest of the pool is not looked at. A repeated option needs no special case: by the time
a ballot moves past it, it is eliminated and stripped with the others.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from itertools import chain, repeat

UNKNOWN = "\x00"


def code(index: int) -> str:
    """The character standing for the option at ``index`` (never ``UNKNOWN``)."""
    if index >= 0x10FFFF:
        raise ValueError("too many options to count")
    return chr(index + 1)


class Codebook(dict[Hashable, str]):
    """Option id -> code; an id that is not an option reads as ``UNKNOWN``."""

    unknown_seen = False

    def __missing__(self, key: Hashable) -> str:
        self.unknown_seen = True
        return UNKNOWN

    def encode(self, rankings: Iterable[Sequence[Hashable]]) -> list[str]:
        """Encode rankings without a Python-level loop per ranking."""
        return list(map("".join, map(map, repeat(self.__getitem__), rankings)))


class Pool:
    """Weighted encoded rankings, filed under the option each currently counts for."""

    def __init__(
        self, encoded: Sequence[str], weights: Sequence[int], codes: Sequence[str], clean: bool
    ):
        """``clean``: no ranking is empty or names an id that is not an option."""
        first: dict[str, dict[str, int]] = {c: {} for c in codes}
        self.abstentions = 0
        if clean:
            # Distinct rankings encode to distinct strings: plain stores, no merging.
            for s, n in zip(encoded, weights, strict=True):
                first[s[0]][s] = n
            # Unless two keys were equal sequences of different types: then merge.
            clean = sum(map(len, first.values())) == len(encoded)
        if not clean:
            first = {c: {} for c in codes}
            for s, n in zip(encoded, weights, strict=True):
                rest = s.lstrip(UNKNOWN)
                if rest:
                    d = first[rest[0]]
                    d[rest] = d.get(rest, 0) + n
                else:
                    self.abstentions += n
        self.dead = UNKNOWN
        self.tally = {c: sum(d.values()) for c, d in first.items()}
        self.buckets = {c: [d] for c, d in first.items()}

    def eliminate(self, c: str) -> None:
        """Take option ``c`` out and move its ballots on; exhausted ones drop out."""
        self.dead += c
        del self.tally[c]
        dead = self.dead
        gained: defaultdict[str, dict[str, int]] = defaultdict(dict)
        for s, n in chain.from_iterable(map(dict.items, self.buckets.pop(c))):
            rest = s.lstrip(dead)
            if rest:
                d = gained[rest[0]]
                d[rest] = d.get(rest, 0) + n
        for to, d in gained.items():
            self.tally[to] += sum(d.values())
            self.buckets[to].append(d)

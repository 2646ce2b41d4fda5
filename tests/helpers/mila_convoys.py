"""MILA's table of convoy paths for a map, worked out quickly.

MILA's engine (the `diplomacy` package, our oracle in tests) needs, for each map, every
convoy path: a coast, a set of fleet-holding waters, and the coasts a convoy through them
reaches. It ships the table for a few maps and makes the others on first use by walking
every simple path of up to 13 waters from every coast, which takes minutes on the big
maps (eight on World) and is done again on every new machine, CI's included.

Its table keeps, for each start and destination, only the fleet sets of which no subset
also carries the convoy. Such a set is the set of an *induced* path: one whose only water
next to the start is its first, whose only water next to the destination is its last, and
with no step from one of its waters to a later one but the next (any of those would give
a path through fewer of its waters). So a walk that never takes such a step finds the
same sets, in the same order, while visiting a tiny part of what MILA's walk visits.
`test_mila_convoys.py` holds the two tables equal on the maps MILA ships.
"""

from __future__ import annotations

import collections
from typing import Any

# MILA's own kinds and limit (diplomacy.utils.convoy_paths).
COAST_TYPES = ("COAST", "PORT")
WATER_TYPES = ("WATER", "PORT")
MAX_FLEETS = 13

ConvoyTable = collections.OrderedDict[int, list[tuple[str, set[str], set[str]]]]


def convoy_table(mila_map: Any, max_fleets: int = MAX_FLEETS) -> ConvoyTable:
    """What MILA's convoy path builder gives for ``mila_map`` (a diplomacy Map)."""
    kind = {loc.upper(): mila_map.area_type(loc) for loc in mila_map.locs}
    abuts = {loc: [n.upper() for n in mila_map.abut_list(loc, incl_no_coast=True)] for loc in kind}
    coasts = [loc for loc, k in kind.items() if k in COAST_TYPES and "/" not in loc]
    table: ConvoyTable = collections.OrderedDict(
        (size, []) for size in range(1, len(mila_map.locs) + 1)
    )
    for start in coasts:
        for fleets, dests in _paths_from(start, kind, abuts, max_fleets):
            table[len(fleets)].append((start, fleets, dests))
    return table


def _paths_from(
    start: str, kind: dict[str, str], abuts: dict[str, list[str]], max_fleets: int
) -> list[tuple[set[str], set[str]]]:
    """(fleets, destinations) of every minimal convoy from ``start``, in MILA's order."""

    def is_destination(loc: str) -> bool:
        return kind.get(loc) in COAST_TYPES and "/" not in loc and loc != start

    def carries(loc: str) -> bool:  # a water a path can go on through, as MILA reads it
        return kind.get(loc) in WATER_TYPES and not is_destination(loc)

    firsts = [loc for loc in abuts.get(start, []) if kind.get(loc) in WATER_TYPES]
    next_to_start = set(firsts)
    # A path: its waters in order, the set of them, and the places any but its last reach.
    level: list[tuple[list[str], frozenset[str], set[str]]] = [
        ([loc], frozenset((loc,)), set()) for loc in firsts
    ]
    found: dict[str, list[frozenset[str]]] = {}
    while level:
        following: list[tuple[list[str], frozenset[str], set[str]]] = []
        for waters, members, earlier_reach in level:
            last = waters[-1]
            near = abuts.get(last, [])
            reach: set[str] | None = None  # what the path's waters reach, made when needed
            for loc in near:
                if is_destination(loc):
                    paths = found.setdefault(loc, [])
                    if loc not in earlier_reach:  # else a shorter path reached it first
                        paths.append(members)
                elif (
                    carries(loc)
                    and loc not in members
                    and len(waters) < max_fleets
                    and loc not in next_to_start
                    and loc not in earlier_reach
                ):
                    if reach is None:
                        reach = earlier_reach | set(near)
                    following.append(([*waters, loc], members | {loc}, reach))
        level = following
    grouped: dict[tuple[str, ...], set[str]] = {}
    for dest, paths in found.items():
        for members in paths:
            grouped.setdefault(tuple(sorted(members)), set()).add(dest)
    return [(set(fleets), dests) for fleets, dests in grouped.items()]


def mila_map(name: str) -> Any:
    """MILA's map ``name`` without building its convoy table: the cached one if MILA has
    it (Map(name, use_cache=False) of a cached name comes back empty)."""
    from diplomacy.engine import map as mila

    return mila.MAP_CACHE.get(name) or mila.Map(name, use_cache=False)


def prime(map_name: str) -> None:
    """Give MILA the table for ``map_name`` (a name or a .map file) when it has none of
    its own, so that its Map does not build one the slow way."""
    from diplomacy.engine import map as mila

    if map_name in mila.CONVOYS_PATH_CACHE:
        return
    mila.CONVOYS_PATH_CACHE[map_name] = convoy_table(mila_map(map_name))

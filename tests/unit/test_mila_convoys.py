"""Our quick build of MILA's convoy path table (tests/helpers/mila_convoys.py) gives MILA's own
table, path for path and in its order: on every map whose table MILA ships, and in the
soak on every map we play, built the slow way by MILA."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from diplomacy.utils import convoy_paths
from helpers.mila_convoys import MAX_FLEETS, convoy_table, mila_map

from mailjudge.engine.map_convert import MAPS


def _comparable(table: Any) -> dict[int, list[tuple[str, list[str], list[str]]]]:
    return {
        size: [(start, sorted(fleets), sorted(dests)) for start, fleets, dests in paths]
        for size, paths in table.items()
        if paths
    }


def _shipped() -> dict[str, Any]:
    """MILA's own tables in its package, by map name."""
    with open(convoy_paths.INTERNAL_CACHE_PATH, "rb") as fh:
        by_hash = pickle.load(fh)
    folder = Path(convoy_paths.INTERNAL_CACHE_PATH).parent
    tables = {}
    for path in sorted(folder.glob("*.map")):
        table = by_hash.get(convoy_paths.get_file_md5(str(path)))
        if table is not None:
            tables[path.stem] = table
    return tables


SHIPPED = _shipped()


def test_mila_ships_tables_for_the_classic_maps() -> None:
    assert {"standard", "ancmed", "modern"} <= set(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_the_quick_table_is_mila_s_shipped_one(name: str) -> None:
    ours = convoy_table(mila_map(name))
    assert _comparable(ours) == _comparable(SHIPPED[name])


def test_a_path_through_a_water_next_to_the_start_is_not_kept() -> None:
    """On the standard map an army in London reaches Belgium through the English Channel
    alone; a longer way through the North Sea first and then the Channel is no convoy
    of its own, as the Channel is next to London."""
    ours = convoy_table(mila_map("standard"))
    from_london = [(fleets, dests) for paths in ours.values() for s, fleets, dests in paths
                   if s == "LON"]  # fmt: skip
    assert ({"ENG"}, {"BEL", "BRE", "PIC", "WAL"}) in from_london
    assert not any({"NTH", "ENG"} <= fleets for fleets, _ in from_london)


@pytest.mark.soak
@pytest.mark.parametrize("name", sorted(set(MAPS) - set(SHIPPED)))
def test_the_quick_table_is_the_one_mila_builds(name: str) -> None:
    board = mila_map(name)
    theirs = convoy_paths._build_convoy_paths_cache(board, MAX_FLEETS)
    assert _comparable(convoy_table(board)) == _comparable(theirs)

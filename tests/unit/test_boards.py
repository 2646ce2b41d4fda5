"""A map drawn on another map's board (engine/boards.py): ``drawn_as`` in its board file
gives it that map's board positions and outlines; a board file naming a map that is not
there, or going round in a circle, is refused, and so is a base board that lacks one of
the map's provinces."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import BoardError
from mailjudge.engine.maps import MapError, load_map


def folder_with_twin(tmp_path: Path, board: str, change: tuple[str, str] = ("", "")) -> Path:
    for name in ("standard.toml", "standard.outlines.toml"):
        shutil.copy(MAPS_DIR / name, tmp_path / name)
    text = (MAPS_DIR / "standard.toml").read_text(encoding="utf-8")
    text = text.replace('name = "standard"', 'name = "twin"', 1).replace(*change)
    body, _, _ = text.partition("\n[board]")  # the twin has no board of its own
    (tmp_path / "twin.toml").write_text(body, encoding="utf-8")
    (tmp_path / "twin.board.toml").write_text(board, encoding="utf-8")
    return tmp_path


def test_a_map_drawn_as_another_takes_its_board_and_outlines(tmp_path: Path) -> None:
    twin = load_map("twin", folder_with_twin(tmp_path, 'drawn_as = "standard"\n'))
    standard = load_map("standard")
    assert twin.name == "twin"
    assert twin.positions == standard.positions and twin.board_size == standard.board_size
    assert dict(twin.outlines) == dict(standard.outlines)


def test_a_board_file_naming_a_missing_map_or_itself_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BoardError, match="'nowhere', which is not there"):
        load_map("twin", folder_with_twin(tmp_path, 'drawn_as = "nowhere"\n'))
    (tmp_path / "twin.board.toml").write_text('drawn_as = "twin"\n', encoding="utf-8")
    with pytest.raises(BoardError, match="drawn as itself"):
        load_map("twin", tmp_path)


NOWHERE = 'zzz = { name = "Nowhere", kind = "water" }\nadr = {'


def test_a_base_board_without_one_of_the_maps_provinces_is_refused(tmp_path: Path) -> None:
    folder = folder_with_twin(tmp_path, 'drawn_as = "standard"\n', ("adr = {", NOWHERE))
    with pytest.raises(MapError, match="zzz"):
        load_map("twin", folder)

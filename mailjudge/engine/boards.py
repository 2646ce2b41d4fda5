"""Where a map's board drawing comes from. A map's rules are in data/maps/NAME.toml; its
board (the point of each province, the bends and face points the outline tool needs:
render/board/outlines.py) may be kept beside it in data/maps/NAME.board.toml, and the
outlines drawn from it in data/maps/NAME.outlines.toml.

A map played on another map's board (the standard map's start variants, Chaos) says so in
its board file with one line, ``drawn_as = "standard"``: it is then drawn with that map's
board and outlines, which must have a shape for each of its provinces (the map loader
checks)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class BoardError(ValueError):
    """A board file that names a map that is not there, or itself."""


def board_parts(name: str, folder: Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``board`` and ``outlines`` of map ``name``, where it has them (either may be
    missing: the loader then keeps what the map's own file says)."""
    if name in seen:
        raise BoardError(f"the board of map {name!r} is drawn as itself: {' -> '.join(seen)}")
    parts: dict[str, Any] = {}
    own = _read(folder / f"{name}.board.toml")
    base = own.get("drawn_as")
    if base is not None:
        if not (folder / f"{base}.toml").exists():
            raise BoardError(f"map {name!r} is drawn as map {base!r}, which is not there")
        parts = board_parts(str(base), folder, (*seen, name))
        if "board" not in parts:
            parts["board"] = _read(folder / f"{base}.toml").get("board", {})
        return parts
    if "board" in own:
        parts["board"] = own["board"]
    outlines = _read(folder / f"{name}.outlines.toml")
    if outlines:
        parts["outlines"] = outlines
    return parts


def map_document(name: str, folder: Path) -> dict[str, Any]:
    """The map's file with its board and outlines put in (what the loader parses)."""
    doc = _read(folder / f"{name}.toml")
    return {**doc, **board_parts(name, folder)}


def _read(path: Path) -> Mapping[str, Any]:
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        return tomllib.load(fh)

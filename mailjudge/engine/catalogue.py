"""The maps this judge has: every data/maps/NAME.toml, read through :func:`load_map`.

Nothing here names a map: a new data file is a new map for CREATE ... MAP, LIST and
HELP MAPS.
"""

from __future__ import annotations

from pathlib import Path

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.maps import GameMap, MapError, load_map


def map_names(folder: Path | None = None) -> tuple[str, ...]:
    """The names of the maps in data/maps, sorted: NAME.toml; the files that go with a map
    (NAME.outlines.toml, NAME.board.toml, ...) are not maps."""
    where = folder or MAPS_DIR
    return tuple(sorted(p.stem for p in where.glob("*.toml") if "." not in p.stem))


def find_map(name: str) -> GameMap:
    """The map called ``name`` (any case), or a MapError that names the maps there are."""
    wanted = name.strip().lower()
    if wanted in map_names():
        return load_map(wanted)
    raise MapError(f"there is no map {name!r}; this judge has {', '.join(map_names())} (HELP MAPS)")


def playable_powers(gmap: GameMap) -> tuple[str, ...]:
    """The powers players hold: all but those the map leaves to nobody (its dummies)."""
    return tuple(p for p in gmap.power_names if not gmap.powers[p].dummy)


def describe(gmap: GameMap) -> list[str]:
    """A map in a few lines: its title, powers with their home centres, centres, victory."""
    playable = playable_powers(gmap)
    powers = ", ".join(f"{gmap.power_title(p)} ({len(gmap.home_centres[p])})" for p in playable)
    nobodys = [gmap.power_title(p) for p in gmap.power_names if p not in playable]
    left = f"; played by nobody: {', '.join(nobodys)}" if nobodys else ""
    return [
        f"{gmap.name}: {gmap.title}",
        f"    {len(playable)} powers (home centres): {powers}{left}",
        f"    {len(gmap.centres)} supply centres; {gmap.victory_centres} win",
    ]

"""The board as data: provinces, coasts, adjacency, supply centres and homes.

A map is read from ``data/maps/NAME.toml``; adding a second map needs a data file, not code.
The loaded :class:`GameMap` is immutable and shared by every game that plays on it, so it
precomputes what the adjudicator asks for on every order (adjacency sets, reach, routes).
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.boards import map_document

ARMY = "A"
FLEET = "F"
UNIT_TYPES = (ARMY, FLEET)
LAND, COAST, WATER = "land", "coast", "water"


class MapError(ValueError):
    """A map file that does not describe a playable board."""


@dataclass(frozen=True, slots=True)
class Province:
    code: str
    name: str
    kind: str  # LAND, COAST or WATER
    centre: bool
    coasts: tuple[str, ...]  # ("nc", "sc") for split-coast provinces, else ()
    home_of: str | None


@dataclass(frozen=True, slots=True)
class PowerInfo:
    name: str
    initial: str
    adjective: str
    homes: tuple[str, ...]
    units: tuple[tuple[str, str], ...]  # (unit type, location)
    dummy: bool = False  # on the board but nobody's to play (MILA's DUMMY powers)
    # The name shown to people ("British Columbia"); ``name`` is what orders write.
    title: str = ""


@dataclass(frozen=True, slots=True)
class Outline:
    """A province's shape on the board picture (data/maps/NAME.outlines.toml), with the
    points its unit, its name and each split coast's fleet are drawn at. Only the picture
    uses it; ``kind`` may also be ``impassable`` (Switzerland, drawn only)."""

    code: str
    kind: str
    points: tuple[tuple[float, float], ...]
    unit: tuple[float, float]
    label: tuple[float, float]
    centre: tuple[float, float]  # the supply-centre mark
    dislodged: tuple[float, float]  # a dislodged unit
    coasts: Mapping[str, tuple[float, float]]


def normalize_name(text: str) -> str:
    """Lower case, accents and punctuation folded, single spaces: the key for name lookup."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"[.'’]", "", text)
    text = re.sub(r"[^a-z0-9/]+", " ", text)
    return text.strip()


def province_of(loc: str) -> str:
    """``spa/nc`` -> ``spa``; a location without a coast is its own province."""
    return loc.split("/", 1)[0]


class GameMap:
    """An immutable board. Locations are province codes, or ``code/coast`` for fleets."""

    __slots__ = (
        "_army_cd",
        "_fleet_cd",
        "_frozen",
        "army_moves",
        "board_size",
        "build_any",
        "centres",
        "coastal_water",
        "dummies",
        "first_phase",
        "fleet_moves",
        "fleet_reach",
        "home_centres",
        "loc_province",
        "locations",
        "name",
        "names",
        "outlines",
        "positions",
        "power_names",
        "powers",
        "provinces",
        "title",
        "victory_centres",
        "water_reach",
    )

    def __init__(
        self,
        name: str,
        title: str,
        first_phase: str,
        victory_centres: int,
        provinces: Iterable[Province],
        powers: Iterable[PowerInfo],
        army_edges: Iterable[tuple[str, str]],
        fleet_edges: Iterable[tuple[str, str]],
        aliases: Mapping[str, str],
        positions: Mapping[str, tuple[int, int]] | None = None,
        board_size: tuple[int, int] = (0, 0),
        outlines: Mapping[str, Outline] | None = None,
        build_any: bool = False,
    ) -> None:
        provs = {p.code: p for p in provinces}
        pows = {p.name: p for p in powers}
        army, fleet, locations = _movement_graphs(provs, army_edges, fleet_edges)

        self.name = name
        self.title = title
        self.first_phase = first_phase
        self.victory_centres = victory_centres
        # Every power builds in any centre it owns, not only at home (Chaos, Modern, ...).
        self.build_any = build_any
        self.provinces: Mapping[str, Province] = MappingProxyType(provs)
        self.powers: Mapping[str, PowerInfo] = MappingProxyType(pows)
        self.power_names: tuple[str, ...] = tuple(sorted(pows))
        # The powers the map leaves to nobody: they hold, owe no orders and share no result.
        self.dummies = frozenset(p.name for p in pows.values() if p.dummy)
        self.centres = frozenset(c for c, p in provs.items() if p.centre)
        self.home_centres: Mapping[str, frozenset[str]] = MappingProxyType(
            {p.name: frozenset(p.homes) for p in pows.values()}
        )
        self.locations = frozenset(locations)
        # location -> province as a table: the adjudicator asks this very often.
        self.loc_province: Mapping[str, str] = MappingProxyType(
            {loc: province_of(loc) for loc in locations}
        )
        self.army_moves: Mapping[str, frozenset[str]] = MappingProxyType(
            {k: frozenset(v) for k, v in army.items()}
        )
        self.fleet_moves: Mapping[str, frozenset[str]] = MappingProxyType(
            {k: frozenset(v) for k, v in fleet.items()}
        )
        self.fleet_reach: Mapping[str, frozenset[str]] = MappingProxyType(
            {k: frozenset(province_of(x) for x in v) for k, v in fleet.items()}
        )
        touching, reach = _convoy_water(provs, fleet)
        self.coastal_water: Mapping[str, frozenset[str]] = MappingProxyType(
            {k: frozenset(v) for k, v in touching.items()}
        )
        self.water_reach: Mapping[str, frozenset[str]] = MappingProxyType(reach)

        names = _name_table(provs, aliases)
        self.names: Mapping[str, str] = MappingProxyType(names)
        if positions:
            missing = sorted((set(provs) | locations) - set(positions))
            if missing:
                raise MapError(f"the board has no position for {', '.join(missing)}")
        # Where each province (and each split coast) is drawn on the board picture.
        self.positions: Mapping[str, tuple[int, int]] = MappingProxyType(dict(positions or {}))
        self.board_size = board_size
        if outlines:
            lacking = sorted(set(provs) - set(outlines))
            if lacking:
                raise MapError(f"the outlines have no shape for {', '.join(lacking)}")
        # Each province's shape on the board picture, where the map has them.
        self.outlines: Mapping[str, Outline] = MappingProxyType(dict(outlines or {}))
        self._army_cd: dict[str, dict[str, int]] = {}
        self._fleet_cd: dict[str, dict[str, int]] = {}
        self._frozen = True

    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError("a GameMap is immutable")
        object.__setattr__(self, key, value)

    def __repr__(self) -> str:
        return f"load_map({self.name!r})"

    def power_title(self, power: str) -> str:
        """How a power is named for people: its map title, else its code in title case
        (a power the map does not know, from an old record, shows the same way)."""
        info = self.powers.get(power)
        return info.title if info is not None and info.title else power.title()

    # --- questions the parser and the adjudicator ask -------------------------------------

    def is_water(self, prov: str) -> bool:
        return self.provinces[prov].kind == WATER

    def fleet_locations(self, prov: str) -> tuple[str, ...]:
        """Where a fleet can stand in a province: its coasts, or the province itself."""
        p = self.provinces[prov]
        if p.kind == LAND:
            return ()
        return tuple(f"{prov}/{c}" for c in p.coasts) or (prov,)

    def can_move(self, unit_type: str, loc: str, dest: str) -> bool:
        """A direct move (no convoy). ``dest`` must carry the coast where one is needed."""
        if unit_type == ARMY:
            return dest in self.army_moves.get(province_of(loc), ())
        return dest in self.fleet_moves.get(loc, ())

    def can_reach_province(self, unit_type: str, loc: str, prov: str) -> bool:
        """Could this unit move into some part of ``prov``? (what a support needs)"""
        if unit_type == ARMY:
            return prov in self.army_moves.get(province_of(loc), ())
        return prov in self.fleet_reach.get(loc, ())

    def convoy_possible(self, src: str, dest: str, through: str | None = None) -> bool:
        """Is there a chain of water provinces from ``src`` to ``dest`` (via ``through``)?"""
        if src == dest:
            return False
        start = self.water_reach.get(src)
        end = self.coastal_water.get(dest)
        if not start or not end:
            return False
        if through is not None:
            return through in start and through in self.water_reach[dest]
        return not start.isdisjoint(end)

    def route_is_valid(self, src: str, route: Iterable[str], dest: str) -> bool:
        """An explicit convoy route ``src - w1 - w2 - dest``: water, each step adjacent."""
        here = src
        steps = list(route)
        if not steps or src not in self.coastal_water or dest not in self.coastal_water:
            return False
        for water in steps:
            if water not in self.provinces or not self.is_water(water):
                return False
            if water not in self.fleet_reach.get(here, self.coastal_water.get(here, ())):
                return False
            here = water
        return dest in self.fleet_reach[here]

    def civil_disorder_distance(self, power: str, unit_type: str, loc: str) -> int:
        """Moves from ``loc`` to the nearest home centre of ``power`` (DATC 6.J).

        Armies count over land and sea alike (as if convoyed, even with no fleet there);
        fleets count only fleet moves, reaching a home centre on any of its coasts.
        """
        if unit_type == ARMY:
            table = self._army_cd.get(power)
            if table is None:
                table = self._army_cd[power] = self._bfs_army(power)
            return table.get(province_of(loc), 99)
        table = self._fleet_cd.get(power)
        if table is None:
            table = self._fleet_cd[power] = self._bfs_fleet(power)
        return table.get(loc, 99)

    def _bfs_army(self, power: str) -> dict[str, int]:
        nbrs: dict[str, set[str]] = {c: set(v) for c, v in self.army_moves.items()}
        for loc, fl in self.fleet_moves.items():
            nbrs.setdefault(province_of(loc), set()).update(province_of(x) for x in fl)
        return _bfs(self.home_centres[power], nbrs)

    def _bfs_fleet(self, power: str) -> dict[str, int]:
        starts = [loc for h in self.home_centres[power] for loc in self.fleet_locations(h)]
        return _bfs(starts, self.fleet_moves)


def _bfs(starts: Iterable[str], nbrs: Mapping[str, Iterable[str]]) -> dict[str, int]:
    dist = {s: 0 for s in starts}
    queue = deque(dist)
    while queue:
        here = queue.popleft()
        for nxt in nbrs.get(here, ()):
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def distances(starts: Iterable[str], moves: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """Steps from every location of ``moves`` to the nearest of ``starts`` that is on it
    (the board is undirected): for players that head for a set of places."""
    return _bfs((s for s in starts if s in moves), moves)


def _edge(text: str) -> tuple[str, str]:
    a, sep, b = text.partition("-")
    if not sep or not a or not b:
        raise MapError(f"an edge is written 'x-y', not {text!r}")
    return a.strip(), b.strip()


def parse_map(doc: Mapping[str, Any]) -> GameMap:
    """Build a map from the parsed TOML document (see data/maps/standard.toml)."""
    powers_doc = doc["powers"]
    homes = {h: name for name, p in powers_doc.items() for h in p.get("home", ())}
    provinces = []
    aliases: dict[str, str] = {}
    for code, p in doc["provinces"].items():
        if p.get("kind") not in (LAND, COAST, WATER):
            raise MapError(f"province {code}: kind must be land, coast or water")
        provinces.append(
            Province(
                code=code,
                name=p["name"],
                kind=p["kind"],
                centre=bool(p.get("centre", False)),
                coasts=tuple(p.get("coasts", ())),
                home_of=homes.get(code),
            )
        )
        for alias in p.get("aliases", ()):
            aliases[alias] = code
    powers = []
    for name, p in powers_doc.items():
        units = []
        for text in p.get("units", ()):  # a power may start with no units, or no homes
            kind, _, loc = text.partition(" ")
            units.append((kind.upper(), loc.strip().lower()))
        powers.append(
            PowerInfo(
                name=name,
                initial=p["initial"],
                adjective=p.get("adjective", name.title()),
                homes=tuple(p.get("home", ())),
                units=tuple(units),
                dummy=bool(p.get("dummy", False)),
                title=str(p.get("title", name.title())),
            )
        )
    adj = doc["adjacency"]
    board = doc.get("board", {})
    positions = {loc: _point(loc, xy) for loc, xy in board.get("positions", {}).items()}
    return GameMap(
        name=doc["name"],
        title=doc.get("title", doc["name"]),
        first_phase=doc.get("first_phase", "S1901M"),
        victory_centres=int(doc.get("victory_centres", 18)),
        build_any=bool(doc.get("build_any", False)),
        provinces=provinces,
        powers=powers,
        army_edges=[_edge(e) for e in adj["army"]],
        fleet_edges=[_edge(e) for e in adj["fleet"]],
        aliases=aliases,
        positions=positions,
        board_size=(int(board.get("width", 0)), int(board.get("height", 0))),
        outlines={code: _outline(code, e) for code, e in doc.get("outlines", {}).items()},
    )


def _point(loc: str, xy: Any) -> tuple[int, int]:
    if not (isinstance(xy, list) and len(xy) == 2 and all(isinstance(v, int) for v in xy)):
        raise MapError(f"board position of {loc} must be [x, y] in whole numbers, not {xy!r}")
    return xy[0], xy[1]


@cache
def load_map(name: str = "standard", folder: Path | None = None) -> GameMap:
    """The map called ``name`` from data/maps (loaded once per process)."""
    if not re.fullmatch(r"[a-z0-9_-]+", name):
        raise MapError(f"map names are lower-case letters, digits, '_' and '-', not {name!r}")
    path = (folder or MAPS_DIR) / f"{name}.toml"
    if not path.exists():
        raise MapError(f"there is no map called {name!r} (no file {path})")
    return parse_map(map_document(name, path.parent))  # with its board: engine/boards.py


def _outline(code: str, entry: Mapping[str, Any]) -> Outline:
    def xy(value: Any) -> tuple[float, float]:
        return float(value[0]), float(value[1])

    coasts = {key[6:]: xy(v) for key, v in entry.items() if key.startswith("coast_")}
    return Outline(
        code, str(entry["kind"]), tuple(xy(p) for p in entry["points"]), xy(entry["unit"]),
        xy(entry["label"]), xy(entry["centre"]), xy(entry["dislodged"]),
        MappingProxyType(coasts),
    )  # fmt: skip


def _movement_graphs(
    provs: Mapping[str, Province],
    army_edges: Iterable[tuple[str, str]],
    fleet_edges: Iterable[tuple[str, str]],
) -> tuple[dict[str, set[str]], dict[str, set[str]], set[str]]:
    """Where an army and a fleet can move from each location, and every location."""
    army: dict[str, set[str]] = {c: set() for c, p in provs.items() if p.kind != WATER}
    fleet: dict[str, set[str]] = {}
    locations: set[str] = set(army)
    for code, prov in provs.items():
        if prov.kind == LAND:
            continue
        for loc in [f"{code}/{c}" for c in prov.coasts] or [code]:
            fleet[loc] = set()
            locations.add(loc)
    for a, b in army_edges:
        if a not in army or b not in army:
            raise MapError(f"army edge {a}-{b} names water or an unknown province")
        army[a].add(b)
        army[b].add(a)
    for a, b in fleet_edges:
        if a not in fleet or b not in fleet:
            raise MapError(f"fleet edge {a}-{b} names an inland or unknown location")
        fleet[a].add(b)
        fleet[b].add(a)
    return army, fleet, locations


def _convoy_water(
    provs: Mapping[str, Province], fleet: Mapping[str, set[str]]
) -> tuple[dict[str, set[str]], dict[str, frozenset[str]]]:
    """For each coastal province: the water touching it, and the water reachable from it."""
    # Water provinces touching each coastal province: where a convoy can pick up or land.
    touching: dict[str, set[str]] = {c: set() for c, p in provs.items() if p.kind == COAST}
    for loc, nbrs in fleet.items():
        here_prov = province_of(loc)
        if here_prov in touching:
            touching[here_prov].update(n for n in nbrs if provs[province_of(n)].kind == WATER)
    reach: dict[str, frozenset[str]] = {}
    for coastal, start in touching.items():
        seen = set(start)
        queue = deque(start)
        while queue:
            here = queue.popleft()
            for nxt in fleet[here]:
                if provs[province_of(nxt)].kind == WATER and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        reach[coastal] = frozenset(seen)
    return touching, reach


def _name_table(provs: Mapping[str, Province], aliases: Mapping[str, str]) -> dict[str, str]:
    """Every way of writing a province (code, name, alias), normalised, to its code."""
    names: dict[str, str] = {}
    for code, prov in provs.items():
        for key in (code, normalize_name(prov.name)):
            names[key] = code
    for alias, code in aliases.items():
        key = normalize_name(alias)
        if names.get(key, code) != code:
            raise MapError(f"alias {alias!r} names both {names[key]} and {code}")
        names[key] = code
    return names

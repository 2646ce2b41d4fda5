"""Convert the public ``diplomacy`` package's (MILA's) map files into data/maps/NAME.toml.

A map's provinces, adjacencies, coasts, centres, homes and starting units are facts; this
script reads them from the package's ``maps/NAME.map`` (through the package's own reader,
so that its inheritance of one map file from another is followed) and writes them in the
judge's format (see data/maps/standard.toml and engine/maps.py). Chaos is no MILA map: it is
made by rule from our standard map (34 powers, one home centre each, builds anywhere), as
are the starts of engine/starts.py (vDiplomacy's two- and three-player starts).

Usage (``diplomacy`` is a test-only dependency: ``pip install -e '.[test]'``)::

    python -m mailjudge.engine.map_convert ancmed modern      # writes data/maps/*.toml
    python -m mailjudge.engine.map_convert --all              # MAPS, chaos and the starts
    python -m mailjudge.engine.map_convert chaos --out /tmp   # elsewhere

What the conversion decides, each rule in one place:

- An impassable province (MILA's SHUT, Switzerland) is left out: nothing may enter it.
- A province is ``water`` when MILA says WATER; ``coast`` when a fleet can stand in it
  (MILA's COAST and PORT); ``land`` otherwise.
- An edge is kept when MILA's own ``abuts`` allows the move both ways; a move allowed one
  way only is reported and refused (our maps are symmetric by construction).
- The victory count is MILA's VICTORY, else more than half the centres (MILA's rule).
- MILA's BUILD_ANY rule is ``build_any = true``; MILA's DUMMY powers are ``dummy = true``
  (on the board, ordered by nobody).
- A power's initial is its first letter, or as many letters as make it unique.
- A power whose code runs several words together (MILA's BRITISHCOLUMBIA) gets its name
  for people as ``title``, from POWER_TITLES (written by hand: MILA keeps only the code,
  and its adjectives, "British+columbian", merely hint at the words); Chaos's powers take
  their centre's name.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mailjudge.config.paths import MAPS_DIR
from mailjudge.engine.starts import STARTS, start

# The MILA maps converted, most played first.
MAPS = (
    "standard_fleet_rome",
    "standard_france_austria",
    "standard_germany_italy",
    "pure",
    "ancmed",
    "modern",
    "colonial",
    "empire",
    "known_world_901",
    "world",
)
TITLES = {
    "standard_fleet_rome": "Standard, Italy with a fleet in Rome",
    "standard_france_austria": "Standard, France against Austria",
    "standard_germany_italy": "Standard, Germany against Italy",
    "pure": "Pure",
    "ancmed": "Ancient Mediterranean",
    "modern": "Modern",
    "colonial": "Colonial",
    "empire": "Empire",
    "known_world_901": "The Known World 901",
    "world": "World",
}
# The powers of several words, by code, as people read them: each, without its spaces and
# upper-cased, is the code. Other powers show as their code in title case.
POWER_TITLES = {
    "BRITISHCOLUMBIA": "British Columbia",
    "FROZENANTARCTICA": "Frozen Antarctica",
    "NEAREAST": "Near East",
    "NEUTRALSTATE": "Neutral State",
    "NEWYORK": "New York",
    "PACIFICRUSSIA": "Pacific Russia",
    "SOUTHAFRICA": "South Africa",
    "UNITEDSTATES": "United States",
    "WESTERNCANADA": "Western Canada",
}
SEASON = {"SPRING": "S", "FALL": "F", "AUTUMN": "F", "WINTER": "W"}
SMALL_WORDS = {"of", "the", "and", "de", "du", "la", "el"}

Doc = dict[str, Any]


def _mila_map(name: str) -> Any:
    # A test-only dependency, imported when converting.
    from diplomacy.engine.map import MAP_CACHE, Map

    # Without its cache MILA first works out every convoy path, minutes on a big map, and
    # only the provinces and their neighbours are read here. (A map it has cached must be
    # taken from the cache: Map(name, use_cache=False) of a cached name is left empty.)
    return MAP_CACHE.get(name) or Map(name, use_cache=False)


def _mila_folder() -> Path:
    import diplomacy

    return Path(diplomacy.__file__).parent / "maps"


def _name_lines(name: str) -> dict[str, tuple[str, list[str]]]:
    """``code -> (name, aliases)`` from the map file's ``Name = code alias ...`` lines,
    following ``MAP other.map`` to the file it builds on."""
    found: dict[str, tuple[str, list[str]]] = {}
    path = _mila_folder() / f"{name}.map"
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.upper().startswith("MAP "):
            found.update(_name_lines(line.split()[1].removesuffix(".map")))
        elif "=" in line:
            left, _, right = line.partition("=")
            words = right.split()
            if words and "/" not in words[0]:
                aliases = [w.replace("+", " ").lower() for w in words[1:] if "/" not in w]
                found[words[0].lower()] = (left.strip(), aliases)
    return found


def _title(text: str) -> str:
    words = text.split()
    return " ".join(
        w.lower() if i and w.lower() in SMALL_WORDS else w[:1].upper() + w[1:]
        for i, w in enumerate(words)
    )


def _initials(powers: Sequence[str]) -> dict[str, str]:
    """The shortest start of each name that no other power's name starts with."""
    out: dict[str, str] = {}
    for power in powers:
        others = [p for p in powers if p != power]
        size = 1
        while size < len(power) and any(p.startswith(power[:size]) for p in others):
            size += 1
        out[power] = power[:size]
    return out


def _power_title(power: str, title: str) -> Doc:
    """``{"title": ...}`` where the name differs from the code in title case, else {}."""
    return {"title": title} if title != power.title() else {}


def _phase(text: str) -> str:
    season, year, kind = text.split()
    return f"{SEASON[season]}{int(year):04d}{kind[0]}"


def convert(name: str) -> Doc:
    """The judge's map document for MILA's map ``name``."""
    m = _mila_map(name)
    names = _name_lines(name)
    fleet_ok: set[str] = set()
    provinces: Doc = {}
    for loc in sorted({loc.upper() for loc in m.locs if "/" not in loc}):
        kind = m.loc_type.get(loc) or m.loc_type.get(loc.lower())
        if kind == "SHUT":
            continue
        code = loc.lower()
        coasts = sorted(c.split("/")[1].lower() for c in m.locs if c.upper().startswith(f"{loc}/"))
        prov_name, aliases = names.get(code, (code.upper(), []))
        entry: Doc = {"name": _title(prov_name), "kind": "water" if kind == "WATER" else "land"}
        provinces[code] = entry
        if coasts:
            entry["coasts"] = coasts
        if loc in m.scs:
            entry["centre"] = True
        if aliases:
            entry["aliases"] = aliases
        if kind in ("COAST", "PORT"):
            fleet_ok.add(code)
    army, fleet, one_way = _edges(m, provinces, fleet_ok)
    if one_way:
        raise SystemExit(f"{name}: moves allowed one way only: {', '.join(one_way)}")
    used = {province_of_loc(loc) for edge in fleet for loc in edge.split("-")}
    for code, entry in provinces.items():
        if entry["kind"] == "land" and code in used:
            entry["kind"] = "coast"
    powers = [p for p in m.powers if p != "UNOWNED"]
    initials = _initials(powers)
    doc: Doc = {
        "name": name,
        "title": TITLES.get(name, _title(name.replace("_", " "))),
        "first_phase": _phase(m.phase),
        "victory_centres": m.victory[0] if m.victory else len(m.scs) // 2 + 1,
        "build_any": "BUILD_ANY" in m.rules,
        "powers": {
            p: {
                "initial": initials[p],
                "adjective": _title(m.own_word.get(p, p).lower()),
                **_power_title(p, POWER_TITLES.get(p, p.title())),
                "home": sorted(h.lower() for h in m.homes.get(p, ())),
                "units": [_unit(u) for u in m.units.get(p, ())],
                **({"dummy": True} if p in m.dummies else {}),
            }
            for p in sorted(powers)
        },
        "provinces": provinces,
        "adjacency": {"army": army, "fleet": fleet},
    }
    return doc


def province_of_loc(loc: str) -> str:
    return loc.split("/", 1)[0]


def _unit(text: str) -> str:
    kind, loc = text.split()
    return f"{kind} {loc.lower()}"


def _edges(m: Any, provinces: Doc, fleet_ok: set[str]) -> tuple[list[str], list[str], list[str]]:
    """Army edges between land provinces, fleet edges between fleet locations, and the moves
    MILA allows one way only."""
    ground = [c for c, e in provinces.items() if e["kind"] != "water"]
    fleet_locs: list[str] = []
    for code, entry in provinces.items():
        if entry["kind"] == "water" or code in fleet_ok:
            fleet_locs += [f"{code}/{c}" for c in entry.get("coasts", ())] or [code]
    army: list[str] = []
    fleet: list[str] = []
    one_way: list[str] = []
    for kind, locs, out in (("A", ground, army), ("F", fleet_locs, fleet)):
        for a, b in itertools.combinations(sorted(locs), 2):
            if province_of_loc(a) == province_of_loc(b):
                continue
            there = bool(m.abuts(kind, a.upper(), "-", b.upper()))
            back = bool(m.abuts(kind, b.upper(), "-", a.upper()))
            if there and back:
                out.append(f"{a}-{b}")
            elif there or back:
                one_way.append(f"{kind} {a}-{b}" if there else f"{kind} {b}-{a}")
    return army, fleet, one_way


def chaos(standard: Doc) -> Doc:
    """Chaos by rule from the standard map: a power for each of the 34 centres, named after
    it, owning it as its one home; no units at the start, so the game opens with the
    builds of Winter 1900, and every power builds in any centre it owns."""
    provinces = standard["provinces"]
    powers: Doc = {}
    for code in sorted(c for c, e in provinces.items() if e.get("centre")):
        place = provinces[code]["name"]
        power = re.sub(r"[^A-Z]", "", place.upper())
        powers[power] = {"adjective": place, **_power_title(power, place), "home": [code]}
    initials = _initials(list(powers))
    for power, entry in powers.items():
        entry.update(initial=initials[power], units=[])
    keys = ("initial", "adjective", "title", "home", "units")
    return {
        "name": "chaos",
        "title": "Chaos",
        "first_phase": "W1900A",
        "victory_centres": 18,
        "build_any": True,
        "powers": {p: {k: powers[p][k] for k in keys if k in powers[p]} for p in powers},
        "provinces": provinces,
        "adjacency": standard["adjacency"],
    }


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value, ensure_ascii=False)


def _wrapped(key: str, items: Iterable[str]) -> list[str]:
    lines = [f"{key} = ["]
    row = ""
    for item in items:
        piece = json.dumps(item) + ", "
        if len(row) + len(piece) > 94:
            lines.append("    " + row.rstrip())
            row = ""
        row += piece
    if row:
        lines.append("    " + row.rstrip())
    return [*lines, "]"]


def to_toml(doc: Doc, source: str) -> str:
    """The document in the layout of data/maps/standard.toml."""
    n_centres = sum(1 for e in doc["provinces"].values() if e.get("centre"))
    out = [
        f"# {doc['title']}: {len(doc['powers'])} powers, {len(doc['provinces'])} provinces, "
        f"{n_centres} centres.",
        f"# Written by python -m mailjudge.engine.map_convert from {source}.",
    ]
    out += [f"{k} = {_value(doc[k])}" for k in ("name", "title", "first_phase")]
    out += [f"{k} = {_value(doc[k])}" for k in ("victory_centres", "build_any")]
    for power, entry in doc["powers"].items():
        out += ["", f"[powers.{power}]", *(f"{k} = {_value(v)}" for k, v in entry.items())]
    out += ["", "[provinces]"]
    out += [f"{code} = {_value(entry)}" for code, entry in doc["provinces"].items()]
    out += ["", "[adjacency]"]
    out += _wrapped("army", doc["adjacency"]["army"])
    out += _wrapped("fleet", doc["adjacency"]["fleet"])
    return "\n".join(out) + "\n"


def write(name: str, folder: Path) -> Path:
    if name == "chaos" or name in STARTS:
        with (MAPS_DIR / "standard.toml").open("rb") as fh:
            standard = tomllib.load(fh)
        doc = chaos(standard) if name == "chaos" else start(name, standard)
        source = "data/maps/standard.toml by rule"
    else:
        doc, source = convert(name), f"the diplomacy package's maps/{name}.map"
    path = folder / f"{name}.toml"
    path.write_text(to_toml(doc, source), encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="MILA map names, chaos, or a start's name")
    parser.add_argument("--all", action="store_true", help="every map converted by default")
    parser.add_argument("--out", type=Path, default=MAPS_DIR, help="folder to write into")
    args = parser.parse_args(argv)
    names = [*MAPS, "chaos", *STARTS] if args.all else args.names
    if not names:
        parser.error("name a map, or give --all")
    for name in names:
        print(write(name, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

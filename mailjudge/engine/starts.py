"""The starts played on the standard board that MILA has no map for, made by rule from our
standard map: the same provinces and adjacencies, other powers, homes and starting units.

The facts are vDiplomacy's (its variants ClassicEvT, ClassicGvR, ClassicFGvsRT, ClassicIER,
ClassicFGA and BuildAnywhere; README "Maps" names them): which powers play, their home
centres and starting units; every other centre starts neutral; 18 of the 34 centres win.
A power of a start holds its standard namesake's adjective; Frankland (France with
Germany) and Juggernaut (Russia with Turkey) are one power each, with both homes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Doc = dict[str, Any]


@dataclass(frozen=True)
class StartPower:
    initial: str
    adjective: str
    home: tuple[str, ...]
    units: tuple[str, ...]


@dataclass(frozen=True)
class Start:
    title: str
    powers: dict[str, StartPower]
    build_any: bool = False


def _p(initial: str, adjective: str, home: str, units: str) -> StartPower:
    return StartPower(initial, adjective, tuple(home.split()), tuple(units.split(", ")))


FRANCE = _p("F", "French", "bre mar par", "F bre, A mar, A par")
GERMANY = _p("G", "German", "ber kie mun", "F kie, A ber, A mun")
AUSTRIA = _p("A", "Austrian", "bud tri vie", "F tri, A bud, A vie")
RUSSIA = _p("R", "Russian", "mos sev stp war", "F stp/sc, A mos, A war, F sev")
TURKEY = _p("T", "Turkish", "ank con smy", "F ank, A con, A smy")

STARTS: dict[str, Start] = {
    "standard_england_turkey": Start(
        "Standard, England against Turkey",
        {
            # England's fleets open at sea (North Sea, English Channel) to make up for
            # Turkey's safer corner.
            "ENGLAND": _p("E", "English", "edi lon lvp", "F nth, A lon, F eng"),
            "TURKEY": TURKEY,
        },
    ),
    "standard_germany_russia": Start(
        "Standard, Germany against Russia", {"GERMANY": GERMANY, "RUSSIA": RUSSIA}
    ),
    "standard_frankland_juggernaut": Start(
        "Standard, Frankland against Juggernaut",
        {
            "FRANKLAND": _p(
                "F",
                "Frankish",
                "ber bre kie mar mun par",
                "F kie, A mun, A ber, A mar, A par, F bre",
            ),
            "JUGGERNAUT": _p(
                "J",
                "Juggernaut",
                "ank con mos sev smy stp war",
                "F stp/sc, A mos, A war, F sev, A con, A smy, F ank",
            ),
        },
    ),
    "standard_italy_england_russia": Start(
        "Standard, Italy+ against England+ against Russia",
        {
            # England gains Holland and Italy Trieste, each with a unit, against
            # Russia's four.
            "ENGLAND": _p("E", "English", "edi hol lon lvp", "F lon, A lvp, F edi, A hol"),
            "ITALY": _p("I", "Italian", "nap rom tri ven", "F tri, A rom, A ven, F nap"),
            "RUSSIA": RUSSIA,
        },
    ),
    "standard_france_germany_austria": Start(
        "Standard, France against Germany against Austria",
        {"AUSTRIA": AUSTRIA, "FRANCE": FRANCE, "GERMANY": GERMANY},
    ),
    "standard_build_anywhere": Start("Standard, builds in any owned centre", {}, build_any=True),
}


def start(name: str, standard: Doc) -> Doc:
    """The map document of the start ``name`` from the standard map's document. A start
    that names no powers keeps the standard seven."""
    rule = STARTS[name]
    powers = {
        power: {
            "initial": p.initial,
            "adjective": p.adjective,
            "home": sorted(p.home),
            "units": list(p.units),
        }
        for power, p in sorted(rule.powers.items())
    } or {
        power: {k: entry[k] for k in ("initial", "adjective", "home", "units")}
        for power, entry in standard["powers"].items()
    }
    return {
        "name": name,
        "title": rule.title,
        "first_phase": "S1901M",
        "victory_centres": 18,
        "build_any": rule.build_any,
        "powers": powers,
        "provinces": standard["provinces"],
        "adjacency": standard["adjacency"],
    }

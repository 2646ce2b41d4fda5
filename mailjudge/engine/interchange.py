"""The engine's public contract: plain JSON-able dicts in, plain dicts out.

See docs/interchange.md. Only a malformed document raises
(:class:`InterchangeError`, a ValueError whose message says what to fix); an order that
cannot be carried out is reported in ``results`` and the unit holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mailjudge.engine.maps import UNIT_TYPES, GameMap, load_map, province_of
from mailjudge.engine.phases import EngineOptions, process_phase
from mailjudge.engine.state import (
    ADJUSTMENT,
    Dislodged,
    Phase,
    Position,
    Unit,
    build_units,
    retreat_options,
)


class InterchangeError(ValueError):
    """A document that does not follow the interchange format."""


def _need(doc: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in doc:
        raise InterchangeError(f"{where}: '{key}' is missing")
    value = doc[key]
    if not isinstance(value, kind):
        raise InterchangeError(
            f"{where}: '{key}' must be a {kind.__name__}, not {type(value).__name__}"
        )
    return value


def _unit(entry: Any, gmap: GameMap, where: str) -> Unit:
    if not isinstance(entry, Mapping):
        raise InterchangeError(
            f"{where}: each unit is an object like {{'power': 'FRANCE', 'type': 'A', 'loc': 'par'}}"
        )
    power = str(_need(entry, "power", str, where)).upper()
    utype = str(_need(entry, "type", str, where)).upper()
    loc = str(_need(entry, "loc", str, where)).lower()
    if power not in gmap.powers:
        raise InterchangeError(
            f"{where}: unknown power {power!r}; powers are {', '.join(gmap.power_names)}"
        )
    if utype not in UNIT_TYPES:
        raise InterchangeError(f"{where}: unit type must be 'A' or 'F', not {utype!r}")
    if loc not in gmap.locations:
        raise InterchangeError(f"{where}: {loc!r} is not a location (codes like 'par', 'spa/nc')")
    kind = gmap.provinces[province_of(loc)].kind
    if utype == "A" and (kind == "water" or "/" in loc):
        raise InterchangeError(f"{where}: an army cannot stand at {loc!r}")
    if utype == "F" and loc not in gmap.fleet_moves:
        raise InterchangeError(
            f"{where}: a fleet cannot stand at {loc!r} (inland, or a coast is needed)"
        )
    return Unit(power, utype, loc)


def position_from_dict(doc: Any, gmap: GameMap) -> Position:
    """Read and validate a position document."""
    if not isinstance(doc, Mapping):
        raise InterchangeError("position: must be an object")
    phase_text = _need(doc, "phase", str, "position")
    try:
        phase = Phase.parse(phase_text)
    except ValueError as err:
        raise InterchangeError(f"position: {err}") from None
    ptype = doc.get("phase_type")
    if ptype is not None and ptype != phase.type:
        raise InterchangeError(
            f"position: phase {phase_text} is a {phase.type} phase but phase_type says {ptype!r}"
        )
    units_doc = _need(doc, "units", list, "position")
    try:
        units = build_units(_unit(u, gmap, f"position.units[{i}]") for i, u in enumerate(units_doc))
    except InterchangeError:
        raise
    except ValueError as err:
        raise InterchangeError(f"position.units: {err}") from None
    owners_doc = doc.get("sc_owners")
    if owners_doc is None:
        if phase.type == ADJUSTMENT:
            raise InterchangeError("position: 'sc_owners' is required in an adjustment phase")
        owners_doc = {}
    if not isinstance(owners_doc, Mapping):
        raise InterchangeError(
            "position: 'sc_owners' must map centres to powers, like {'par': 'FRANCE'}"
        )
    owners: dict[str, str] = {}
    for centre, power in owners_doc.items():
        c, p = str(centre).lower(), str(power).upper()
        if c not in gmap.centres:
            raise InterchangeError(f"position.sc_owners: {centre!r} is not a supply centre")
        if p not in gmap.powers:
            raise InterchangeError(f"position.sc_owners: unknown power {power!r} for {centre!r}")
        owners[c] = p
    contested_doc = doc.get("contested") or []
    if not isinstance(contested_doc, list) or not all(
        isinstance(c, str) and c.lower() in gmap.provinces for c in contested_doc
    ):
        raise InterchangeError("position: 'contested' must be a list of province codes")
    contested = frozenset(c.lower() for c in contested_doc)
    dislodged: dict[str, Dislodged] = {}
    for i, entry in enumerate(doc.get("dislodged") or []):
        where = f"position.dislodged[{i}]"
        unit = _unit(entry, gmap, where)
        attacker = str(entry.get("attacker_from") or "").lower()
        if attacker and attacker not in gmap.provinces:
            raise InterchangeError(f"{where}: 'attacker_from' {attacker!r} is not a province")
        via = bool(entry.get("attacker_via_convoy", False))
        options = retreat_options(gmap, unit, attacker, via, units, contested)
        dislodged[unit.province] = Dislodged(unit, attacker, via, options)
    return Position(phase, units, owners, dislodged, contested)


def _unit_dict(u: Unit) -> dict[str, str]:
    return {"power": u.power, "type": u.type, "loc": u.loc}


def position_to_dict(pos: Position) -> dict[str, Any]:
    """The inverse of :func:`position_from_dict` (retreat options included)."""
    return {
        "phase": str(pos.phase),
        "phase_type": pos.phase.type,
        "units": [_unit_dict(u) for u in sorted(pos.units.values(), key=lambda u: u.loc)],
        "dislodged": [
            {
                **_unit_dict(d.unit),
                "attacker_from": d.attacker_from,
                "attacker_via_convoy": d.via_convoy,
                "retreat_options": list(d.options),
            }
            for d in sorted(pos.dislodged.values(), key=lambda d: d.unit.loc)
        ],
        "contested": sorted(pos.contested),
        "sc_owners": dict(sorted(pos.sc_owners.items())),
    }


def _options(doc: Any) -> EngineOptions:
    if doc is None:
        return EngineOptions()
    if not isinstance(doc, Mapping):
        raise InterchangeError("options: must be an object like {'build_any': true}")
    # Passive powers, kept adjustment phases and centres that count double are the
    # variants' business, not the interchange format's (see docs/interchange.md).
    known = set(EngineOptions.__dataclass_fields__) - {
        "passive", "keep_adjustments_every", "centre_weights"
    }  # fmt: skip
    doc = {k: v for k, v in doc.items() if k != "held_last_year"}
    unknown = set(doc) - known
    if unknown:
        raise InterchangeError(f"options: unknown {sorted(unknown)}; known are {sorted(known)}")
    for key, value in doc.items():
        want = {"victory_centres": int, "civil_disorder_seed": str}.get(key, bool)
        if value is not None and type(value) is not want:
            raise InterchangeError(f"options: {key} must be {want.__name__}, not {value!r}")
    return EngineOptions(**doc)


def adjudicate(
    position: Any, orders: Any, options: Any = None, map_name: str = "standard"
) -> dict[str, Any]:
    """Play one phase from plain data; see docs/interchange.md for both documents."""
    gmap = load_map(map_name)
    pos = position_from_dict(position, gmap)
    if orders is None:
        orders = {}
    if not isinstance(orders, Mapping):
        raise InterchangeError("orders: must map powers to lists of order texts")
    clean: dict[str, list[str]] = {}
    for power, lines in orders.items():
        p = str(power).upper()
        if p not in gmap.powers:
            raise InterchangeError(
                f"orders: unknown power {power!r}; powers are {', '.join(gmap.power_names)}"
            )
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise InterchangeError(f"orders.{power}: must be a list of order texts")
        clean.setdefault(p, []).extend(lines)
    held = (options or {}).get("held_last_year", []) if isinstance(options, Mapping) else []
    if not isinstance(held, list) or not all(str(p).upper() in gmap.powers for p in held):
        raise InterchangeError("options: 'held_last_year' must be a list of powers (for hold_win)")
    outcome = process_phase(
        gmap, pos, clean, _options(options), frozenset(str(p).upper() for p in held)
    )
    result = position_to_dict(outcome.after)
    del result["phase_type"]
    result["results"] = [
        {
            "power": r.power,
            "order": r.text,
            "outcome": r.outcome,
            **({"reason": r.reason} if r.reason else {}),
            **({"default": True} if r.default else {}),
        }
        for r in outcome.results
    ]
    result["destroyed"] = [_unit_dict(u) for u in outcome.destroyed]
    result["next_phase"] = str(outcome.next.phase)
    result["winners"] = sorted(outcome.winners)
    result["at_victory_count"] = sorted(outcome.at_count)
    return result


def adjudicate_document(doc: Any) -> dict[str, Any]:
    """``{"position": ..., "orders": ..., "options": ...}`` -> result, as the CLI reads it."""
    if not isinstance(doc, Mapping):
        raise InterchangeError(
            'the document must be an object: {"position": {...}, "orders": {...}}'
        )
    if "position" not in doc:
        raise InterchangeError("the document has no 'position'")
    unknown = set(doc) - {"position", "orders", "options", "map"}
    if unknown:
        raise InterchangeError(
            f"unknown keys {sorted(unknown)}; a document has position, orders, options, map"
        )
    map_name = doc.get("map", "standard")
    if not isinstance(map_name, str):
        raise InterchangeError("'map' must be a map name like 'standard'")
    try:
        return adjudicate(doc["position"], doc.get("orders"), doc.get("options"), map_name)
    except InterchangeError:
        raise
    except (TypeError, ValueError) as err:
        raise InterchangeError(str(err)) from None

"""Boards for tests, written as a phase, unit lines and centre owners."""

from __future__ import annotations

from mailjudge.engine.interchange import position_from_dict, position_to_dict
from mailjudge.engine.maps import load_map

GMAP = load_map("standard")


def position(phase: str, units: list[str], owners: dict[str, str]) -> dict[str, object]:
    """The interchange form of a standard board: ``["FRANCE A par", ...]`` and owners."""
    doc = {
        "phase": phase,
        "units": [dict(zip(("power", "type", "loc"), u.split(), strict=True)) for u in units],
        "sc_owners": owners,
    }
    return position_to_dict(position_from_dict(doc, GMAP))

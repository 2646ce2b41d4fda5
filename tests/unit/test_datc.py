"""Every DATC case (tests/data/datc.json, copied from the project's shared data) through the
public interchange contract, once with the canonical orders and once as the source wrote them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mailjudge.engine.interchange import adjudicate

DATA = json.loads((Path(__file__).parents[1] / "data" / "datc.json").read_text())
CASES = DATA["cases"]


def _position(case: dict[str, Any]) -> dict[str, Any]:
    pre = case["prestate"]
    return {
        "phase": case["phase"],
        "phase_type": case["phase_type"],
        "units": pre["units"],
        "dislodged": pre.get("dislodged", []),
        "contested": pre.get("contested", []),
        "sc_owners": pre.get("sc_owners"),
    }


def _units(entries: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(u["power"], u["type"], u["loc"]) for u in entries}


def _check(case: dict[str, Any], orders: dict[str, list[str]]) -> None:
    result = adjudicate(_position(case), orders)
    expected = case["expected"]
    assert _units(result["units"]) == _units(expected["units"]), case["title"]
    assert _units(result["dislodged"]) == _units(expected["dislodged"]), case["title"]


def test_all_cases_present() -> None:
    assert len(CASES) == DATA["n_cases"] == 167


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_canonical(case: dict[str, Any]) -> None:
    _check(case, case["orders"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_as_written(case: dict[str, Any]) -> None:
    _check(case, case["orders_raw"])

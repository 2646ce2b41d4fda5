"""The JSON contract and `mailjudge adjudicate`: round trips, and clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from mailjudge.engine.interchange import (
    InterchangeError,
    adjudicate,
    adjudicate_document,
    position_from_dict,
    position_to_dict,
)
from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import play

MAP = load_map("standard")


def test_positions_round_trip_through_json() -> None:
    for pos, _, outcome in play(MAP, 11, 60):
        for p in (pos, outcome.after, outcome.next):
            doc = json.loads(json.dumps(position_to_dict(p)))
            assert position_from_dict(doc, MAP) == p


def test_a_result_feeds_the_next_phase() -> None:
    """Chaining results reproduces a game played directly through the engine."""
    positions = []
    for pos, orders, outcome in play(MAP, 5, 24):
        doc = position_to_dict(pos)
        result = adjudicate(doc, orders)
        after = {k: result[k] for k in ("units", "dislodged", "contested", "sc_owners")}
        assert after == {k: v for k, v in position_to_dict(outcome.after).items() if k in after}
        assert result["next_phase"] == str(outcome.next.phase)
        positions.append(result)
    assert len(positions) == 24


BAD: list[tuple[Any, str]] = [
    ([], "must be an object"),
    ({}, "no 'position'"),
    ({"position": {"units": []}}, "'phase' is missing"),
    ({"position": {"phase": "S1901", "units": []}}, "not a phase"),
    ({"position": {"phase": "S1901M", "phase_type": "retreat", "units": []}}, "phase_type"),
    ({"position": {"phase": "S1901M", "units": {}}}, "'units' must be a list"),
    (
        {"position": {"phase": "S1901M", "units": [{"power": "FRANCE", "type": "A"}]}},
        "'loc' is missing",
    ),
    (
        {
            "position": {
                "phase": "S1901M",
                "units": [{"power": "FRANCE", "type": "A", "loc": "xyz"}],
            }
        },
        "not a location",
    ),
    (
        {
            "position": {
                "phase": "S1901M",
                "units": [{"power": "FRANCE", "type": "A", "loc": "eng"}],
            }
        },
        "army cannot",
    ),
    (
        {
            "position": {
                "phase": "S1901M",
                "units": [{"power": "FRANCE", "type": "F", "loc": "spa"}],
            }
        },
        "coast is needed",
    ),
    (
        {
            "position": {
                "phase": "S1901M",
                "units": [{"power": "NARNIA", "type": "A", "loc": "par"}],
            }
        },
        "unknown power",
    ),
    (
        {
            "position": {
                "phase": "S1901M",
                "units": [
                    {"power": "FRANCE", "type": "A", "loc": "par"},
                    {"power": "GERMANY", "type": "A", "loc": "par"},
                ],
            }
        },
        "two units",
    ),
    ({"position": {"phase": "W1901A", "units": []}}, "sc_owners' is required"),
    (
        {"position": {"phase": "W1901A", "units": [], "sc_owners": {"bur": "FRANCE"}}},
        "not a supply centre",
    ),
    ({"position": {"phase": "S1901M", "units": []}, "orders": ["A PAR H"]}, "map powers"),
    (
        {"position": {"phase": "S1901M", "units": []}, "orders": {"FRANCE": "A PAR H"}},
        "list of order texts",
    ),
    ({"position": {"phase": "S1901M", "units": []}, "orders": {"ELBONIA": []}}, "unknown power"),
    ({"position": {"phase": "S1901M", "units": []}, "options": {"fast": True}}, "unknown"),
    (
        {"position": {"phase": "S1901M", "units": []}, "options": {"build_any": "yes"}},
        "must be bool",
    ),
    ({"position": {"phase": "S1901M", "units": []}, "extra": 1}, "unknown keys"),
]


@pytest.mark.parametrize(("doc", "fragment"), BAD, ids=[f for _, f in BAD])
def test_malformed_documents_get_clear_errors(doc: Any, fragment: str) -> None:
    with pytest.raises(InterchangeError) as err:
        adjudicate_document(doc)
    assert fragment in str(err.value)


def test_bad_orders_are_results_not_errors() -> None:
    result = adjudicate_document(
        {
            "position": {
                "phase": "S1901M",
                "units": [{"power": "FRANCE", "type": "A", "loc": "par"}],
            },
            "orders": {"FRANCE": ["A PAR - MOS", "banana"]},
        }
    )
    outcomes = [(r["outcome"], "reason" in r) for r in result["results"]]
    assert outcomes.count(("invalid", True)) == 2


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mailjudge.tools.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_round_trip_on_stdin() -> None:
    doc = {
        "position": {"phase": "S1901M", "units": [{"power": "FRANCE", "type": "A", "loc": "par"}]},
        "orders": {"FRANCE": ["a paris - burgundy"]},
    }
    proc = _cli("adjudicate", "-", stdin=json.dumps(doc))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["units"] == [{"power": "FRANCE", "type": "A", "loc": "bur"}]
    assert result["results"][0]["order"] == "A PAR - BUR"


@pytest.mark.parametrize(
    "text", ["{not json", json.dumps({"position": {"phase": "nope", "units": []}}), "[]"]
)
def test_cli_bad_input_is_one_clear_line(text: str) -> None:
    proc = _cli("adjudicate", "-", stdin=text)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("mailjudge adjudicate: ")
    assert proc.stdout == ""


def test_cli_missing_file() -> None:
    proc = _cli("adjudicate", "/nonexistent/doc.json")
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr

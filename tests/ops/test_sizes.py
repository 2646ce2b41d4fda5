"""The code stays easy to read: no module of the judge over 650 lines, no function over 80.
A longer one is a sign that it does two jobs."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"
MODULE_LINES = 650
FUNCTION_LINES = 80


def test_no_module_is_too_long() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}: {n} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    ]
    assert long == []


def test_no_function_is_too_long() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > FUNCTION_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}: {n}")
    assert long == []

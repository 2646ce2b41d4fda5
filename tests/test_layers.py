"""The layers point one way: mail in -> commands -> permissions -> service -> engine; render
takes data; mail out. Every import of the judge's own modules counts, wherever it sits (a
function body, an ``if TYPE_CHECKING:`` block)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mailjudge"

# package -> what it may never import (a module and everything under it)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("app", "commands", "inbound", "outbound", "permissions", "render", "service",
               "variants", "voting", "models", "db"),
    "voting": ("app", "commands", "inbound", "outbound", "permissions", "render", "service",
               "variants", "engine", "models", "db"),
    "render": ("app", "service", "variants", "commands", "inbound"),
    "service": ("app", "commands", "inbound"),
    "variants": ("app", "commands", "inbound", "outbound", "service.processing",
                 "service.deadlines"),
    "permissions": ("app", "commands", "inbound", "outbound", "render"),
    "inbound": ("app", "service", "variants", "commands", "render", "engine"),
    "outbound": ("app", "service", "variants", "commands", "engine"),
    "commands": ("app",),
    # The web pages read; they never take mail in or send it, nor run commands.
    "web": ("app", "commands", "inbound", "outbound", "permissions"),
}  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def judge_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import of a mailjudge module in the file."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names if name.startswith("mailjudge")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("mailjudge")]
    return found


def violations(layer: str) -> list[str]:
    banned = [f"mailjudge.{b}" for b in FORBIDDEN[layer]]
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for line, name in judge_imports(path):
            if any(name == b or name.startswith(b + ".") for b in banned):
                bad.append(f"{module_name(path)}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_one_way(layer: str) -> None:
    assert violations(layer) == []


def test_the_rules_catch_a_wrong_import(tmp_path: Path) -> None:
    """The walk sees imports in function bodies and TYPE_CHECKING blocks."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from mailjudge.service.processing import Processed\n"
        "def f():\n    import mailjudge.commands.run\n"
    )
    assert [name for _, name in judge_imports(sample)] == [
        "mailjudge.service.processing", "mailjudge.service.processing.Processed",
        "mailjudge.commands.run",
    ]  # fmt: skip


# A test of a game's variant against a variant's name, in code outside mailjudge/variants/.
NAMES_A_VARIANT = re.compile(r"""variant\s*(==|!=)\s*["']|variant\s+(not\s+)?in\s*[(\[{]\s*["']""")


def test_no_shared_module_names_a_variant() -> None:
    """Outside mailjudge/variants/ no code asks which variant a game is: a variant's
    differences are its hooks, and its commands say whose they are (Command.variant)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "variants") in path.parents:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAMES_A_VARIANT.search(line):
                bad.append(f"{module_name(path)}:{n}: {line.strip()}")
    assert bad == []


def test_the_variant_rule_sees_a_comparison() -> None:
    assert NAMES_A_VARIANT.search('if game.variant == "democratic":')
    assert NAMES_A_VARIANT.search("if game.variant in ('survive', 'double'):")
    assert not NAMES_A_VARIANT.search("if command.variant != ctx.game.variant:")

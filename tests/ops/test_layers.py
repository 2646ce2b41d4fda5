"""The layers point one way: mail in -> commands -> permissions -> service -> engine; render
takes data; mail out. Every import of the judge's own modules counts, wherever it sits (a
function body, an ``if TYPE_CHECKING:`` block)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"

# package -> what it may never import (a module and everything under it). The order, top
# down: app; inbound and commands; service (what players and masters do); permissions;
# variants; game (a game as stored, its clock and outcomes); engine, voting, render, outbound.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engine": ("app", "commands", "inbound", "outbound", "permissions", "render", "service",
               "game", "variants", "voting", "store", "tools", "web"),
    "voting": ("app", "commands", "inbound", "outbound", "permissions", "render", "service",
               "game", "variants", "engine", "store", "tools", "web"),
    "render": ("app", "service", "game", "variants", "commands", "inbound", "permissions", "web"),
    "game": ("app", "commands", "inbound", "permissions", "service", "variants", "web"),
    # A variant states its permission rows in the table's vocabulary; it never asks the policy.
    "variants": ("app", "commands", "inbound", "outbound", "service", "permissions.policy",
                 "web"),
    "permissions": ("app", "commands", "inbound", "outbound", "render", "service", "web"),
    "service": ("app", "commands", "inbound", "web"),
    "inbound": ("app", "service", "game", "variants", "commands", "render", "engine",
                "permissions", "web"),
    "outbound": ("app", "service", "game", "variants", "commands", "engine", "permissions",
                 "web"),
    "commands": ("app", "web"),
    # The web pages read; they never take mail in or send it, nor run commands.
    "web": ("app", "commands", "inbound", "outbound", "permissions"),
    # The storage layer: the connection, the tables (whose fields know the engine's pure
    # values) and the hand-written SQL, named reads and writes asking no layer above.
    "store": ("app", "commands", "inbound", "outbound", "permissions", "render", "service",
              "game", "variants", "voting", "web", "benchmarks", "demo", "tools"),
}  # fmt: skip

# The settings and the secrets are read by every layer; they ask none of the judge's own.
# (masking reads an HTML part as text to find a password in it.)
FORBIDDEN["config"] = (*FORBIDDEN["store"], "engine", "store", "secrecy")
FORBIDDEN["secrecy"] = (*(n for n in FORBIDDEN["store"] if n != "inbound"), "engine", "store")
# The two modules at the top of the package belong to no layer: every layer may use them.
SHARED_TOP = {"addresses", "remembered"}
TOOLS = {"benchmarks", "demo", "tools"}  # run the judge from outside, as an operator would
TOP = {"app"}  # the judge process: it may import everything


def test_every_package_is_placed() -> None:
    """A new package or top-level module must be given its place in the layers."""
    for path in PACKAGE.iterdir():
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("__") or (path.is_dir() and not (path / "__init__.py").exists()):
            continue
        placed = SHARED_TOP | TOOLS | TOP
        assert name in FORBIDDEN or name in placed, f"{name} has no layer"


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


VARIANTS = PACKAGE / "variants"
REGISTRY = VARIANTS / "__init__.py"  # VARIANTS: the one place that names every variant


def variant_of_path(path: Path) -> str | None:
    """The variant package a file belongs to (``democratic``); None outside one."""
    if VARIANTS not in path.parents or path.parent == VARIANTS:
        return None
    return path.relative_to(VARIANTS).parts[0]


def is_variant_commands(path: Path) -> bool:
    """A variant's own commands (its ``commands.py``, or a ``commands/`` package in it)
    sit in the commands layer, though they live in the variant's package."""
    inside = path.relative_to(VARIANTS).parts[1:]
    return variant_of_path(path) is not None and (
        inside == ("commands.py",) or (len(inside) > 1 and inside[0] == "commands")
    )


def layer_of(path: Path) -> str:
    top = path.relative_to(PACKAGE).parts[0]
    if top == "variants" and is_variant_commands(path):
        return "commands"
    return top.removesuffix(".py")


def named_variant(name: str) -> str | None:
    """The variant package ``name`` reaches into (mailjudge.variants.democratic.x:
    ``democratic``); None for the registry (mailjudge.variants and what it exports) and
    for base.py, the Variant class every layer above may name."""
    parts = name.split(".")
    if parts[:2] != ["mailjudge", "variants"] or len(parts) < 3 or parts[2] == "base":
        return None
    return parts[2] if (VARIANTS / parts[2] / "__init__.py").exists() else None


def violations(layer: str) -> list[str]:
    banned = [f"mailjudge.{b}" for b in FORBIDDEN[layer]]
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if layer_of(path) != layer:
            continue
        for line, name in judge_imports(path):
            if any(name == b or name.startswith(b + ".") for b in banned):
                bad.append(f"{module_name(path)}:{line} imports {name}")
    return bad


def variant_leaks() -> list[str]:
    """Outside mailjudge/variants/ nothing names a variant's package: the shared code
    reaches a variant through the registry (VARIANTS, variant_of) and its hooks. Inside,
    a variant names no other variant, and only its commands name its commands."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REGISTRY:
            continue
        own = variant_of_path(path)
        for line, name in judge_imports(path):
            named = named_variant(name)
            if named is None:
                continue
            reaches_commands = name.startswith(f"mailjudge.variants.{named}.commands")
            if own != named or (reaches_commands and not is_variant_commands(path)):
                bad.append(f"{module_name(path)}:{line} imports {name}")
    return bad


def test_no_module_reaches_into_a_variant() -> None:
    assert variant_leaks() == []


def test_the_variant_rule_sees_a_leak(tmp_path: Path) -> None:
    """The names that count as reaching into a variant, and those that do not."""
    assert named_variant("mailjudge.variants.democratic.country_lists") == "democratic"
    assert named_variant("mailjudge.variants.democratic") == "democratic"
    assert named_variant("mailjudge.variants.base.Variant") is None
    assert named_variant("mailjudge.variants.variant_of") is None
    assert named_variant("mailjudge.variants") is None
    sample = tmp_path / "sample.py"
    sample.write_text("from mailjudge.variants import democratic, variant_of\n")
    assert [named_variant(n) for _, n in judge_imports(sample)] == [None, "democratic", None]
    assert layer_of(VARIANTS / "survive" / "commands.py") == "commands"
    assert layer_of(VARIANTS / "survive" / "vote_out.py") == "variants"


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


# A string that is SQL text: a statement's first words, written as SQL writes them (upper
# case), so that the commands' names (SET PASSWORD, CREATE game, ROLLBACK) are not taken
# for SQL. Docstrings are prose and are not looked at.
SQL_TEXT = re.compile(
    r"""^\s*(?:SELECT\s+\S|INSERT\s+INTO\s|UPDATE\s+"?\w+"?\s+(?:\w+\s+)?SET\s|DELETE\s+FROM\s
    |WITH\s+(?:RECURSIVE\s+)?\w+(?:\(\w+\))?\s+AS\s|CREATE\s+(?:TEMP\s+|UNIQUE\s+)?(?:TABLE|INDEX
    |SCHEMA|DATABASE)\s|DROP\s+(?:TABLE|INDEX|SCHEMA|DATABASE)\s|ALTER\s+TABLE\s|PRAGMA\s+\w
    |SAVEPOINT\s|RELEASE\s+SAVEPOINT|ROLLBACK\s+TO\s|BEGIN\s+(?:IMMEDIATE|TRANSACTION|EXCLUSIVE)
    |EXPLAIN\s|SET\s+\w+\s*(?:=|TO\s)|SHOW\s+\w+\s*$|VACUUM\b|ANALYZE\b|TRUNCATE\s|PREPARE\s+\w+\s+AS
    |DEALLOCATE\s|LOCK\s+TABLE)""",
    re.VERBOSE,
)
# Where SQL text may be: the hand-written statements (store/) and the schema's changes.
SQL_HOMES = ("store/", "tools/migrations.py")


def sql_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of each string literal in ``tree`` that is SQL text (an f-string's
    holes read as {}), docstrings left out."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # An f-string's own pieces are read with it, not apart.
    docstrings |= {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            text = node.value
        else:
            continue
        if SQL_TEXT.match(text):
            found.append((node.lineno, text))
    return found


def test_sql_text_is_only_in_the_store_and_the_migrations() -> None:
    """Every statement the judge writes by hand is a named read or write of store/;
    everything else is peewee's (issue 58)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(SQL_HOMES):
            continue
        tree = ast.parse(path.read_text(), str(path))
        found += [f"{relative}:{line}: {text[:60]!r}" for line, text in sql_texts(tree)]
    assert found == []


def test_the_sql_search_finds_sql_and_not_the_commands() -> None:
    """The search sees SQL in plain strings and f-strings, and not the commands' words."""
    source = (
        'def f(x):\n    """SELECT ... FOR UPDATE is prose here."""\n'
        '    a = "SELECT id FROM game WHERE name = %s"\n'
        '    b = f"UPDATE outbox o SET {x} FROM k"\n'
        '    c = ("WITH cleared AS (DELETE FROM bounce RETURNING 1) "\n         "UPDATE outbox")\n'
        '    d = "SET PASSWORD"; e = "CREATE game password"; g = "ROLLBACK"; h = "SET ZONE UTC"\n'
        '    i = "PRAGMA busy_timeout = 0"; j = "SAVEPOINT s1"\n'
    )
    assert sorted(line for line, _ in sql_texts(ast.parse(source))) == [3, 4, 5, 8, 8]

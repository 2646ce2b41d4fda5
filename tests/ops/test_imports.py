"""Imports that read one way: no two modules of the judge import each other, however far
round (through a function's body, an ``if TYPE_CHECKING:`` block or a package's
``__init__``), and no module takes another's private name (``from x import _name``): a
name used from outside is part of its module's interface and says so by its spelling.

A circle means the modules share one job and were cut in two, or a piece of one sits in
the other; either way it is split by job until the imports point one way. An import of
``mailjudge.a.b`` counts as an import of ``b`` (Python runs ``a/__init__.py`` first, but a
package's own code importing its modules is no circle); ``from mailjudge.a import name``
counts as an import of ``a/__init__.py`` when ``name`` is no module of it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported_from(node: ast.ImportFrom, importer: str) -> str:
    """The module a ``from ... import`` names, relative ones made absolute."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[importer].name == "__init__.py"
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(importer: str) -> Iterator[tuple[str, str | None, int]]:
    """(module imported, the name taken from it or None, line) for each import of a judge's
    module in ``importer``, wherever it sits in the file."""
    tree = ast.parse(MODULES[importer].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(node, importer)
            if source not in MODULES:
                continue
            for alias in node.names:
                inner = f"{source}.{alias.name}"
                if inner in MODULES:
                    yield inner, None, node.lineno
                else:
                    yield source, alias.name, node.lineno


def import_graph() -> dict[str, set[str]]:
    return {m: {target for target, _, _ in imports_of(m) if target != m} for m in MODULES}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The groups of modules that reach each other by imports (Tarjan's strongly
    connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_finder_sees_a_circle() -> None:
    """The finder itself: a circle of three, and a separate chain, which is none."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [frozenset({"a", "b", "c"})]


def test_no_import_circles() -> None:
    found = [sorted(group) for group in circles(import_graph())]
    left = found
    assert left == [], "modules that import each other: split them by job"


def test_no_private_name_is_imported_from_another_module() -> None:
    taken = [
        (importer, source, name, line)
        for importer in sorted(MODULES)
        for source, name, line in imports_of(importer)
        if name is not None and name.startswith("_") and not name.startswith("__")
        and source != importer
    ]  # fmt: skip
    assert taken == [], "a name used by another module is public: name it without the _"

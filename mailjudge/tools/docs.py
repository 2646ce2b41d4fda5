"""The README's reference sections, made from the code so that they cannot drift: the
commands from the command classes, the settings from the SETTINGS table, the module tree
from the package's files and their docstrings. A test checks that the README holds them as
printed by `mailjudge docs` (and `mailjudge docs --tree`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.registry import unique_commands
from mailjudge.config.settings_docs import settings_markdown


def commands_markdown() -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for command in unique_commands():
        usage = (command.usage or command.name).replace("|", "\\|")  # never an empty row
        who = " (master)" if command.master_only else ""
        rows.append(f"| `{usage}` | {command.summary}{who} |")
    return "\n".join(rows) + "\n"


def reference() -> str:
    return (
        "### Commands\n\n"
        + commands_markdown()
        + "\n### Settings\n\n"
        + settings_markdown().rstrip("\n")
        + "\n"
    )


PACKAGE = Path(__file__).resolve().parents[1]
# A module's line in the tree is its docstring's first sentence, cut to this many characters.
TREE_LINE = 110


def summary(path: Path) -> str:
    """The first sentence of a module's docstring, on one line (cut at a word if long)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    # A sentence ends at a full stop after a word (not at "..." or a lone initial).
    sentence = re.split(r"(?<=\w\w[.!?])\s", paragraph, maxsplit=1)[0].rstrip(".")
    if len(sentence) > TREE_LINE:
        sentence = sentence[:TREE_LINE].rsplit(" ", 1)[0] + " ..."
    return sentence


def module_tree(folder: Path = PACKAGE, depth: int = 0) -> str:
    """The package as a nested list: each package (its ``__init__``'s line) and module
    (its own line), folders after modules, in name order."""
    lines = []
    if depth == 0:
        lines.append(f"- `mailjudge/`: {summary(folder / '__init__.py')}")
    indent = "  " * (depth + 1)
    for path in sorted(folder.glob("*.py")):
        if path.name != "__init__.py":
            lines.append(f"{indent}- `{path.name}`: {summary(path)}")
    for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
        lines.append(f"{indent}- `{sub.name}/`: {summary(sub / '__init__.py')}")
        lines.append(module_tree(sub, depth + 1))
    return "\n".join(line for line in lines if line) + ("\n" if depth == 0 else "")

"""The README's reference sections, made from the code so that they cannot drift: the
commands from the command classes, the settings from the SETTINGS table. A test checks that
the README holds them as printed by `mailjudge docs`."""

from __future__ import annotations

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

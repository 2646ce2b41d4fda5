"""The settings explained: the table of every setting as text for ``check-config`` and as
Markdown for the README, and the settings in force as TOML with secrets masked."""

from __future__ import annotations

import re
import textwrap
from typing import Any

from mailjudge.config.sections import Settings
from mailjudge.config.settings_files import SECTIONS, SETTINGS, value_of


def _toml_literal(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def settings_docs() -> str:
    """Every setting with its type, default, environment variable and meaning, as text."""
    lines = [
        "Settings come from the TOML file given with --config, then from environment",
        "variables, which win. Every key below can be set either way.",
    ]
    for section in SECTIONS:
        lines += ["", f"[{section}]"]
        for s in SETTINGS:
            if s.section != section:
                continue
            kind = s.type_name + (", one of " + "/".join(s.choices) if s.choices else "")
            lines.append(f"  {s.key} = {_toml_literal(s.default)}  ({kind}; {s.env})")
            lines += textwrap.wrap(s.help, 88, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines) + "\n"


def settings_markdown() -> str:
    """The same table in Markdown, for the README."""
    rows = [
        "| key | default | environment | meaning |",
        "|---|---|---|---|",
    ]
    for s in SETTINGS:
        meaning = s.help.replace("|", "\\|")
        if s.choices:
            meaning += " One of: " + ", ".join(f"`{c}`" for c in s.choices) + "."
        default = "unset" if s.default is None else f"`{_toml_literal(s.default)}`"
        rows.append(f"| `{s.name}` | {default} | `{s.env}` | {meaning} |")
    return "\n".join(rows) + "\n"


def _mask_url_password(value: str) -> str:
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1********@", value)


def describe_settings(settings: Settings, show_secrets: bool = False) -> str:
    """The settings in force, as TOML; secrets are masked unless asked for."""
    blocks: list[str] = []
    for section in SECTIONS:
        lines = [f"[{section}]"]
        for s in SETTINGS:
            if s.section != section:
                continue
            value = value_of(settings, s)
            if value is None:
                lines.append(f"# {s.key} is unset")
                continue
            if not show_secrets:
                if s.secret:
                    value = "********"
                elif isinstance(value, str):
                    value = _mask_url_password(value)
            lines.append(f"{s.key} = {_toml_literal(value)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"

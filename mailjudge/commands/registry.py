"""The table of commands by their opening words, filled by each family module."""

from __future__ import annotations

from mailjudge.commands.base import Command

COMMANDS: dict[str, Command] = {}


def register(cls: type[Command]) -> type[Command]:
    command = cls()
    for name in (cls.name, *cls.aliases):
        if name in COMMANDS:
            raise ValueError(f"two commands called {name}")
        COMMANDS[name] = command
    return cls


def lookup(words: list[str]) -> tuple[Command, int] | None:
    """The command a line starts with (longest name first: SET WAIT before SET), and how
    many words its name takes."""
    upper = [w.upper() for w in words]
    for size in (3, 2, 1):
        if len(upper) >= size:
            command = COMMANDS.get(" ".join(upper[:size]))
            if command is not None:
                return command, size
    return None


def unique_commands() -> list[Command]:
    seen: dict[int, Command] = {}
    for command in COMMANDS.values():
        seen.setdefault(id(command), command)
    return sorted(seen.values(), key=lambda c: c.name)

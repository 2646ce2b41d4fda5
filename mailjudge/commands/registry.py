"""The table of commands by their opening words, filled by each family module.

A command is shared (every game) or belongs to one variant (``Command.variant``): NOMINATE
is Democratic's, and VOTE has a form of its own in several variants. In a game the
variant's command of a name comes first, then the shared one."""

from __future__ import annotations

from mailjudge.commands.arguments import secret_positions
from mailjudge.commands.base import Command

SHARED = ""
COMMANDS: dict[str, dict[str, Command]] = {}  # variant ("" for shared) -> name -> command
# The tables lookup searches for a game's variant, in order: made once per variant (every
# line of every mail is looked up), made again after a command is registered.
_SEARCH_ORDER: dict[str | None, tuple[dict[str, Command], ...]] = {}


def register(cls: type[Command]) -> type[Command]:
    if cls.arguments is not None:
        cls.usage = f"{cls.name} {cls.arguments}".strip()
        cls.secret_words = secret_positions(cls.arguments)
    command = cls()
    table = COMMANDS.setdefault(cls.variant or SHARED, {})
    for name in (cls.name, *cls.aliases):
        if name in table:
            raise ValueError(f"two commands called {name} for {cls.variant or 'every game'}")
        same = [t[name] for t in COMMANDS.values() if name in t]
        if any(other.block_end != cls.block_end for other in same):
            raise ValueError(f"every {name} must close its block the same way")
        table[name] = command
    _SEARCH_ORDER.clear()
    return cls


def lookup(words: list[str], variant: str | None = None) -> tuple[Command, int] | None:
    """The command a line starts with (longest name first: SET WAIT before SET), and how
    many words its name takes: ``variant``'s own, else the shared one, else another
    variant's (whose run tells the writer which games it is for)."""
    upper = [w.upper() for w in words[:3]]
    tables = _SEARCH_ORDER.get(variant)
    if tables is None:
        tables = _SEARCH_ORDER[variant] = _search_order(variant)
    for size in (3, 2, 1):
        if len(upper) < size:
            continue
        name = " ".join(upper[:size])
        for table in tables:
            if name in table:
                return table[name], size
    return None


def _search_order(variant: str | None) -> tuple[dict[str, Command], ...]:
    tables = [COMMANDS.get(variant or SHARED, {}), COMMANDS.get(SHARED, {})]
    tables += [t for v, t in sorted(COMMANDS.items()) if v not in (variant, SHARED)]
    return tuple(tables)


def unique_commands(variant: str | None = None) -> list[Command]:
    """The commands of a game of ``variant`` (None: of every game), each once, by name."""
    keys = sorted(COMMANDS) if variant is None else [SHARED, variant]
    seen: dict[int, Command] = {}
    for key in keys:
        for command in COMMANDS.get(key, {}).values():
            seen.setdefault(id(command), command)
    return sorted(seen.values(), key=lambda c: (c.name, c.variant or ""))

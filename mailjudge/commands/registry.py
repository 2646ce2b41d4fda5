"""The table of commands by their opening words, filled by each family module.

A command is shared (every game) or belongs to one variant (``Command.variant``): NOMINATE
is Democratic's, and VOTE has a form of its own in several variants. In a game the
variant's command of a name comes first, then the shared one."""

from __future__ import annotations

from mailjudge.commands.arguments import SpecError, secret_place
from mailjudge.commands.base import Command
from mailjudge.secrecy.secret_words import SECRET_COMMANDS, SECRET_FOLLOWERS, SecretPlace

SHARED = ""
COMMANDS: dict[str, dict[str, Command]] = {}  # variant ("" for shared) -> name -> command
# The tables lookup searches for a game's variant, in order: made once per variant (every
# line of every mail is looked up), made again after a command is registered.
_SEARCH_ORDER: dict[str | None, tuple[dict[str, Command], ...]] = {}


def register(cls: type[Command]) -> type[Command]:
    if cls.arguments is not None:
        cls.usage = f"{cls.name} {cls.arguments}".strip()
    _check_secrets(cls)
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


def secrets_of(cls: type[Command]) -> SecretPlace | None:
    """Where the command's passwords stand, from its spec: its arguments, or (a command
    that reads its words itself) its usage line; and its veteran forms (DPjudge's RESIGN
    power@game password). Every form must put them in the same place."""
    forms = [cls.arguments] if cls.arguments is not None else [words_after_name(cls, cls.usage)]
    forms += [words_after_name(cls, form) for form in cls.veteran_forms]
    places = {place for form in forms if form is not None and (place := secret_place(form))}
    if len(places) > 1:
        raise SpecError(f"{cls.name}: its forms put its passwords in different places")
    return places.pop() if places else None


def words_after_name(cls: type[Command], form: str) -> str | None:
    """The words of ``form`` after the command's name; None when it opens with another
    command's (SET DRAW, shown beside VOTE)."""
    for name in sorted((cls.name, *cls.aliases), key=len, reverse=True):
        if f"{form} ".upper().startswith(f"{name} "):
            return form[len(name) :]
    return None


def followers_of(cls: type[Command]) -> dict[str, SecretPlace]:
    """The lines that follow the command and carry a password, by their opening word."""
    found = {}
    for form in cls.followers:
        opening, _, rest = form.partition(" ")
        place = secret_place(rest)
        if place is not None:
            found[opening.upper()] = place
    return found


def _check_secrets(cls: type[Command]) -> None:
    """The command's passwords stand where secret_words.py says, which every masking and
    guard goes by: a command whose spec declares one the table lacks stops the judge."""
    place, followers = secrets_of(cls), followers_of(cls)
    for name in (cls.name, *cls.aliases):
        listed = SECRET_COMMANDS.get(name)
        if listed != place:
            raise SpecError(
                f"{name}: its spec puts its passwords at {place}, secrecy/secret_words.py "
                f"at {listed}: the echo, the stored mail and the press guard go by the "
                "table, so make it say what the spec says"
            )
        if dict(SECRET_FOLLOWERS.get(name, {})) != followers:
            raise SpecError(f"{name}: its followers' passwords are not as secret_words.py says")


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

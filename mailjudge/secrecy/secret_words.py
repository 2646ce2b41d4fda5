"""Which commands carry a password, and where among their words: the one list that every
reader of a mail goes by (the echo of a command, the stored copy of a mail, the press
guard, a post to a country's list, and the tests' secrecy check), through masking.py.

The list is the commands' own: a word ``password`` or ``newpassword`` in a command's
argument spec (commands/arguments.py) is secret, and so is every word after it when the
spec ends there (SIGNON austria vic pw: a typo must not show pw). The command registry
holds every command it registers, shared or a variant's, to this table: a spec that puts
a password where the table does not (or a name the table has and no command declares)
stops the judge at its start, so the table cannot fall behind the commands. It is
written out here, not built by the registry, because the listener and the backup mask
mail without loading the commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class SecretPlace:
    """Where a command's passwords stand: their places among the words after its name,
    and whether every word after the last of them is hidden too."""

    words: tuple[int, ...]
    to_end: bool


_ONE = SecretPlace((1,), to_end=False)  # game password [more]: what follows is shown
_REST = SecretPlace((1,), to_end=True)  # who@game password: the spec ends with it

# Every name a command is written by (its aliases and the two-word forms too). The names
# hold their spaces as the commands are registered; the masking also reads each written
# run together or with = or : after it (SIGNON=france@g pw, SETPASSWORD pw).
SECRET_COMMANDS: Mapping[str, SecretPlace] = MappingProxyType({
    "ACCEPT": _ONE,  # Diplonomic: ACCEPT game password [AS name]
    "CREATE": _ONE,  # CREATE game password [VARIANT v] ...
    "JOIN": _ONE,  # JOIN game password [power] [AS name]
    "OBSERVE": _REST,
    "RESET PASSWORD": _REST,  # the master's RESET PASSWORD power newpassword
    "RESIGN": _REST,  # DPjudge's RESIGN power@game password
    "SET PASSWORD": SecretPlace((0,), to_end=True),
    "SIGN ON": _REST,  # njudge's spelling
    "SIGNON": _REST,
    "TAKEOVER": _REST,
    "TOURNAMENT CREATE": _ONE,  # TOURNAMENT CREATE name password [settings...]
    "TOURNAMENT JOIN": _ONE,  # TOURNAMENT JOIN name password [AS shown]
    "TOURNAMENT ROUND": _REST,  # TOURNAMENT ROUND name password
})  # fmt: skip

# Lines that belong to the command above them and carry a password: DPjudge's setup lines
# after CREATE (PRIVATE password: the game's privacy password).
SECRET_FOLLOWERS: Mapping[str, Mapping[str, SecretPlace]] = MappingProxyType({
    "CREATE": MappingProxyType({"PRIVATE": SecretPlace((0,), to_end=True)}),
})  # fmt: skip

"""The pieces of the permission table: a row (action, condition, decision, reason), the
conditions rows are made of, and a decision. The table itself is in policy.py; a variant
adds rows of its own (Variant.permission_rows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mailjudge.permissions.actors import Actor
from mailjudge.permissions.vocabulary import Action, Role

ALLOW, DENY = True, False

Condition = Callable[[Actor], bool]


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str

    def __bool__(self) -> bool:
        return self.allowed


@dataclass(frozen=True)
class Row:
    action: Action | None  # None matches every action
    condition: Condition
    decision: bool
    reason: str


def role(*roles: Role) -> Condition:
    return lambda a: a.role in roles


def rule(name: str) -> Condition:
    return lambda a: name in a.rules


def state(*states: str) -> Condition:
    return lambda a: a.game is not None and a.game.state in states


def both(*conditions: Condition) -> Condition:
    return lambda a: all(c(a) for c in conditions)


def always(_: Actor) -> bool:
    return True

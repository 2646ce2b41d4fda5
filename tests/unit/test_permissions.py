"""The permission table is the gate: every command declares an action, every action has
rows, every row can decide, and the table's answers for each role are these."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.registry import unique_commands
from mailjudge.engine.rules import RuleSet
from mailjudge.permissions.actors import Actor
from mailjudge.permissions.policy import ANY, GATES, TABLE, check, rows_for
from mailjudge.permissions.vocabulary import Action, Role
from mailjudge.variants import VARIANTS


@dataclass
class FakeGame:
    """What the table reads of a game: its rules, state and variant (no database)."""

    rules: RuleSet = field(default_factory=RuleSet)
    state: str = "active"
    variant: str = "standard"


@dataclass
class FakeSeat:
    role: str
    authorized: bool = False
    powers: str = "FRANCE"


def actor(role: Role, variant: str = "standard", rules: str = "", state: str = "active") -> Actor:
    game: Any = FakeGame(RuleSet.parse(rules), state, variant)
    if role is Role.ANYONE:
        return Actor("someone@example.org", game, None)
    seat_role = "teammate" if role is Role.AUTHORIZED_TEAMMATE else role.value
    seat: Any = FakeSeat(seat_role, authorized=role is Role.AUTHORIZED_TEAMMATE)
    return Actor("someone@example.org", game, seat)


def test_every_command_declares_an_action() -> None:
    missing = [
        c.name for c in unique_commands() if not isinstance(getattr(c, "action", None), Action)
    ]
    assert missing == []


def test_every_action_has_a_row_of_its_own_or_its_family() -> None:
    rows = [*GATES, *TABLE, *(r for v in VARIANTS.values() for r in v.permission_rows)]
    named = {row.action for row in rows}
    assert all(action in named or action.family in named for action in Action)


# Every combination the rows' conditions look at.
ROLES = list(Role)
SITUATIONS = [
    (variant, rules, state)
    for variant in VARIANTS
    for rules in (
        "",
        "NO_PRESS",
        "PUBLIC_PRESS",
        "NO_OBSERVATIONS",
        "STANDIN",
        "NO_DEADLINE",
        "FOG",
    )
    for state in ("forming", "active", "finished")
]


def test_every_row_decides_for_someone() -> None:
    """No row is shadowed by the rows above it: for each there is an actor and an action
    for which it is the first to match."""
    deciding: set[int] = set()
    for (variant, rules, state), role, action in product(SITUATIONS, ROLES, Action):
        who = actor(role, variant, rules, state)
        for row in rows_for(who):
            if row.action in (action, action.family, ANY) and row.condition(who):
                deciding.add(id(row))
                break
    every = [*GATES, *TABLE, *(r for v in VARIANTS.values() for r in v.permission_rows)]
    idle = [f"{row.action} {row.reason}" for row in every if id(row) not in deciding]
    assert idle == []


# The table's answer for each role in an active standard game (and Democratic's citizens).
ALLOWED: dict[Role, set[Action]] = {
    Role.ANYONE: {Action.INFO, Action.CREATE, Action.JOIN, Action.OBSERVE, Action.TAKEOVER,
                  Action.OPENINGS, Action.RECORD, Action.RECORD_SET},
    Role.MASTER: set(Action) - {Action.VOTE, Action.VOTE_VICTOR, Action.VOTE_EXTEND, Action.SEAT_STANDIN},
    Role.PLAYER: set(Action) - {Action.MASTER, Action.PRESS_COUNTRY, Action.SEAT_STANDIN},
    Role.AUTHORIZED_TEAMMATE: set(Action) - {Action.MASTER, Action.VOTE, Action.VOTE_VICTOR, Action.VOTE_EXTEND, Action.PRESS_COUNTRY, Action.SEAT_STANDIN},
    Role.TEAMMATE: set(Action) - {Action.MASTER, Action.VOTE, Action.VOTE_VICTOR, Action.VOTE_EXTEND, Action.PRESS_COUNTRY, Action.ORDERS, Action.SEAT_STANDIN},
    Role.OBSERVER: {Action.INFO, Action.CREATE, Action.JOIN, Action.OBSERVE, Action.TAKEOVER,
                    Action.OPENINGS, Action.PRESS, Action.PRESS_MASTER, Action.SEAT, Action.RECORD,
                    Action.RECORD_SET},
}  # fmt: skip


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_answers_for_each_role_in_a_standard_game(role: Role) -> None:
    who = actor(role)
    assert {a for a in Action if check(who, a)} == ALLOWED[role]


def test_democratic_citizens_and_diplomats() -> None:
    citizen = actor(Role.CITIZEN, "democratic")
    diplomat = actor(Role.DIPLOMAT, "democratic")
    assert not check(citizen, Action.ORDERS) and check(citizen, Action.VOTE)
    assert check(citizen, Action.PRESS_COUNTRY)
    # The table lets a citizen write abroad; the variant's press routes refuse it once the
    # country has a diplomat (the database says who holds the office).
    assert check(citizen, Action.PRESS_PRIVATE)
    assert check(diplomat, Action.PRESS_PRIVATE) and not check(citizen, Action.PRESS_BROADCAST)


def test_survive_master_breaks_a_victor_tie_and_the_gates_come_first() -> None:
    assert check(actor(Role.MASTER, "survive"), Action.VOTE_VICTOR)
    assert not check(actor(Role.MASTER), Action.VOTE_VICTOR)
    finished = actor(Role.CITIZEN, "democratic", state="finished")
    assert check(finished, Action.VOTE).reason == "the game is over"
    assert "SIGNON first" in check(actor(Role.ANYONE, "democratic"), Action.VOTE).reason


def test_standin_is_for_players_of_a_game_with_standin() -> None:
    """SET STANDIN (issue 35): refused with its reason without the rule; under it only
    players (and authorized teammates, who order for a power) may ask for it."""
    plain = check(actor(Role.PLAYER), Action.SEAT_STANDIN)
    assert not plain and "no STANDIN rule" in plain.reason and "SET RULE +STANDIN" in plain.reason
    assert check(actor(Role.PLAYER, rules="STANDIN"), Action.SEAT_STANDIN)
    assert check(actor(Role.AUTHORIZED_TEAMMATE, rules="STANDIN"), Action.SEAT_STANDIN)
    for role in (Role.OBSERVER, Role.MASTER, Role.TEAMMATE):
        refused = check(actor(role, rules="STANDIN"), Action.SEAT_STANDIN)
        assert not refused and "only a player" in refused.reason, role
    # Its other settings stay the observer's own.
    assert check(actor(Role.OBSERVER, rules="STANDIN"), Action.SEAT)


def test_vote_extend_is_the_players_of_an_active_game_with_a_deadline() -> None:
    assert check(actor(Role.PLAYER), Action.VOTE_EXTEND)
    assert (
        "NO_DEADLINE" in check(actor(Role.PLAYER, rules="NO_DEADLINE"), Action.VOTE_EXTEND).reason
    )
    assert not check(actor(Role.PLAYER, state="forming"), Action.VOTE_EXTEND)
    assert not check(actor(Role.PLAYER, state="paused"), Action.VOTE_EXTEND)
    assert (
        "the game is over" in check(actor(Role.PLAYER, state="finished"), Action.VOTE_EXTEND).reason
    )
    for who in (Role.OBSERVER, Role.MASTER, Role.TEAMMATE):
        assert "only the game's players" in check(actor(who), Action.VOTE_EXTEND).reason

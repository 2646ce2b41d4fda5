"""One table decides every permission: (action, condition, decision, reason).

Rows are read top to bottom and the first row whose action and condition match decides.
An action no row allows is refused with the reason of the catch-all row. Conditions look
at the actor's role and the game's rules flags and state; what needs the database beyond
that (is this power really theirs?) is asked by the service layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mailjudge.permissions.actors import ANYONE, Actor

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
    action: str  # "*" matches every action
    condition: Condition
    decision: bool
    reason: str


def role(*roles: str) -> Condition:
    return lambda a: a.role in roles


def rule(name: str) -> Condition:
    return lambda a: name in a.rules


def state(*states: str) -> Condition:
    return lambda a: a.game is not None and a.game.state in states


def both(*conditions: Condition) -> Condition:
    return lambda a: all(c(a) for c in conditions)


def always(_: Actor) -> bool:
    return True


PLAYERS = ("player", "teammate (authorized)")
SEATED = (
    "master",
    "player",
    "teammate",
    "teammate (authorized)",
    "citizen",
    "diplomat",
    "observer",
)

TABLE: tuple[Row, ...] = (
    # Anyone, no secret needed.
    Row("info", always, ALLOW, "information needs no password"),
    Row("create", always, ALLOW, "anyone may create a game"),
    Row("join", always, ALLOW, "anyone may join a forming game"),
    Row("observe", rule("NO_OBSERVATIONS"), DENY, "this game takes no observers (NO_OBSERVATIONS)"),
    Row("observe", always, ALLOW, "anyone may watch a game"),
    Row("takeover", always, ALLOW, "anyone may take over a vacant power"),
    # Everything below needs a SIGNON.
    Row("*", role(ANYONE), DENY, "SIGNON first: SIGNON power@game password"),
    Row("master", role("master"), ALLOW, "the master runs the game"),
    Row("master", always, DENY, "only the game's master may do that"),
    Row("*", state("finished"), DENY, "the game is over"),
    Row("orders", role("master"), ALLOW, "the master may order for any power"),
    Row("orders", state("forming"), DENY, "the game has not started yet"),
    Row("orders", role(*PLAYERS), ALLOW, "players order for their powers"),
    Row("orders", role("teammate"), DENY, "a teammate orders only when the player AUTHORIZEs it"),
    Row("orders", role("citizen", "diplomat"), DENY,
        "in a Democratic game the country's orders are chosen by PROPOSAL ORDERS and VOTE ORDERS"),
    Row("orders", always, DENY, "only players and the master submit orders"),
    Row("status", role("master", *PLAYERS, "teammate"), ALLOW, "orders on file are shown to their power's side"),
    Row("status", always, DENY, "STATUS shows a power's own orders; observers see results only"),
    Row("press", role("master"), ALLOW, "the master may write to anyone"),
    Row("press.country", role("citizen", "diplomat"), ALLOW, "citizens write to their own country"),
    Row("press.private", role("observer"), DENY, "observers may write only to the master (PRESS TO M)"),
    Row("press.private", rule("NO_PRESS"), DENY, "this game has NO_PRESS: press goes only to the master (PRESS TO M)"),
    Row("press.private", rule("PUBLIC_PRESS"), DENY,
        "this game has PUBLIC_PRESS: only BROADCAST or press to the master (PRESS TO M)"),
    Row("press.private", role("citizen"), DENY,
        "citizens write to their own country's list; only the diplomat writes to other countries"),
    Row("press.private", role(*SEATED), ALLOW, "players may write to each other"),
    Row("press.broadcast", role("observer"), DENY, "observers may write only to the master"),
    Row("press.broadcast", rule("NO_PRESS"), DENY, "this game has NO_PRESS: press goes only to the master"),
    Row("press.broadcast", role("citizen"), DENY, "only the diplomat speaks for the country to all"),
    Row("press.broadcast", role(*SEATED), ALLOW, "broadcasts reach everyone"),
    Row("press.master", role(*SEATED), ALLOW, "anyone in the game may write to the master"),
    Row("vote.victor", role("master"), ALLOW, "the master breaks an even victor vote (Survive)"),
    Row("vote", role("player"), ALLOW, "players vote on how the game ends"),
    Row("vote", role("citizen", "diplomat"), ALLOW, "citizens vote for their country"),
    Row("vote", always, DENY, "only players (and citizens) vote"),
    Row("seat", role(*SEATED), ALLOW, "your own settings"),
    Row("*", always, DENY, "that is not allowed here"),
)  # fmt: skip


def check(actor: Actor, action: str) -> Decision:
    """The first row that matches ``action`` (or ``*``) and its condition decides."""
    family = action.split(".", 1)[0]
    for row in TABLE:
        if row.action in (action, family, "*") and row.condition(actor):
            return Decision(row.decision, row.reason)
    return Decision(False, "that is not allowed here")

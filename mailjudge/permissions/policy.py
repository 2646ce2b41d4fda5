"""One table decides every permission: (action, condition, decision, reason).

The gates come first (what needs no password, what needs a SIGNON, the master's
commands, a finished game), then the rows of the game's variant, then the rest.

Rows are read top to bottom and the first row whose action and condition match decides.
An action no row allows is refused with the reason of the catch-all row. Conditions look
at the actor's role and the game's rules flags and state; what needs the database beyond
that (is this power really theirs?) is asked by the service layer.
"""

from __future__ import annotations

from mailjudge.permissions.actors import Actor
from mailjudge.permissions.rows import (
    ALLOW,
    DENY,
    Decision,
    Row,
    always,
    both,
    role,
    rule,
    state,
)
from mailjudge.permissions.vocabulary import SEATED, Action, Role
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants import variant_of

A = Action
ANY = None  # a row for every action
PLAYERS = (Role.PLAYER, Role.AUTHORIZED_TEAMMATE)

GATES: tuple[Row, ...] = (
    # Anyone, no secret needed.
    Row(A.INFO, always, ALLOW, "information needs no password"),
    Row(A.CREATE, always, ALLOW, "anyone may create a game"),
    Row(A.JOIN, always, ALLOW, "anyone may join a forming game"),
    Row(A.OBSERVE, rule("NO_OBSERVATIONS"), DENY, "this game takes no observers (NO_OBSERVATIONS)"),
    Row(A.OBSERVE, rule("FOG"), DENY, "a fog-of-war game takes no observers (FOG)"),
    Row(A.OBSERVE, always, ALLOW, "anyone may watch a game"),
    Row(A.TAKEOVER, always, ALLOW, "anyone may take over a vacant power"),
    Row(A.OPENINGS, always, ALLOW, "anyone may ask for the openings; OPENINGS ON waits for CONFIRM from the address"),
    Row(A.RECORD_SET, always, ALLOW, "anyone the judge knows may show or hide their own record"),
    Row(A.RECORD, always, ALLOW, "anyone may ask for their own record: it goes to their own address"),
    # Everything below needs a SIGNON.
    Row(ANY, role(Role.ANYONE), DENY, "SIGNON first: SIGNON power@game password"),
    Row(A.MASTER, role(Role.MASTER), ALLOW, "the master runs the game"),
    Row(A.MASTER, always, DENY, "only the game's master may do that"),
    Row(ANY, state(GameState.FINISHED), DENY, "the game is over"),
)  # fmt: skip
# Here the variant's own rows are read (Variant.permission_rows), then these.
TABLE: tuple[Row, ...] = (
    Row(A.ORDERS, role(Role.MASTER), ALLOW, "the master may order for any power"),
    Row(A.ORDERS, state(GameState.FORMING), DENY, "the game has not started yet"),
    Row(A.ORDERS, role(*PLAYERS), ALLOW, "players order for their powers"),
    Row(A.ORDERS, always, DENY, "only players and the master submit orders"),
    Row(A.STATUS, role(Role.MASTER, *PLAYERS, Role.TEAMMATE), ALLOW, "orders on file are shown to their power's side"),
    Row(A.STATUS, always, DENY, "STATUS shows a power's own orders; observers see results only"),
    Row(A.PRESS, role(Role.MASTER), ALLOW, "the master may write to anyone"),
    Row(A.PRESS_COUNTRY, always, DENY, "only citizens write to a country's list"),
    Row(A.PRESS_PRIVATE, role(Role.OBSERVER), DENY, "observers may write only to the master (PRESS TO M)"),
    Row(A.PRESS_PRIVATE, rule("NO_PRESS"), DENY, "this game has NO_PRESS: press goes only to the master (PRESS TO M)"),
    Row(A.PRESS_PRIVATE, rule("PUBLIC_PRESS"), DENY,
        "this game has PUBLIC_PRESS: only BROADCAST or press to the master (PRESS TO M)"),
    Row(A.PRESS_PRIVATE, role(*SEATED), ALLOW, "players may write to each other"),
    Row(A.PRESS_BROADCAST, role(Role.OBSERVER), DENY, "observers may write only to the master"),
    Row(A.PRESS_BROADCAST, rule("NO_PRESS"), DENY, "this game has NO_PRESS: press goes only to the master"),
    Row(A.PRESS_BROADCAST, role(*SEATED), ALLOW, "broadcasts reach everyone"),
    Row(A.PRESS_MASTER, role(*SEATED), ALLOW, "anyone in the game may write to the master"),
    Row(A.VOTE_EXTEND, rule("NO_DEADLINE"), DENY, "this game has NO_DEADLINE: there is no deadline to extend"),
    Row(A.VOTE_EXTEND, state(GameState.FORMING, GameState.PAUSED), DENY,
        "only an active game's deadline is extended; this game is not under way"),
    Row(A.VOTE_EXTEND, role(Role.PLAYER), ALLOW, "the players of a game may vote to extend its deadline"),
    Row(A.VOTE_EXTEND, always, DENY, "only the game's players vote to extend its deadline; the master uses SET DEADLINE"),
    Row(A.VOTE, role(Role.PLAYER), ALLOW, "players vote on how the game ends"),
    Row(A.VOTE, always, DENY, "only players (and citizens) vote"),
    Row(A.SEAT_STANDIN, both(rule("STANDIN"), role(*PLAYERS)), ALLOW, "a player may have the stand-in order while away"),
    Row(A.SEAT_STANDIN, rule("STANDIN"), DENY, "only a player with a power may have a stand-in (SET STANDIN)"),
    Row(A.SEAT_STANDIN, always, DENY,
        "this game has no STANDIN rule, so no stand-in orders for anyone; the master may SET RULE +STANDIN"),
    Row(A.SEAT, role(*SEATED), ALLOW, "your own settings"),
    Row(A.PRESS, role(*SEATED), ALLOW, "PRESS and BROADCAST: the rows of the press's kind decide once its recipients are known"),
)  # fmt: skip


def rows_for(actor: Actor) -> tuple[Row, ...]:
    """The table as it reads for the actor's game: the gates, its variant's rows, the rest."""
    own = variant_of(actor.game).permission_rows if actor.game is not None else ()
    return (*GATES, *own, *TABLE)


def check(actor: Actor, action: Action) -> Decision:
    """The first row that matches ``action`` (or its family, or every action) and its
    condition decides; an action no row speaks of is refused."""
    matching = (action, action.family, ANY)  # the family once, not once a row
    for row in rows_for(actor):
        if row.action in matching and row.condition(actor):
            return Decision(row.decision, row.reason)
    return Decision(False, "that is not allowed here")


def may_order_for(seat: Seat, power: str) -> bool:
    """Whether ``seat`` gives ``power``'s orders: the master any power's; another active
    seat the powers it holds, when the table lets it give orders at all (a player, or a
    variant's seat its rows let: Diplonomic's teammate once authorized, never
    Democratic's citizens, who choose their country's orders by vote)."""
    if seat.role == Role.MASTER:
        return True
    if seat.status != "active" or power.upper() not in seat.powers:
        return False
    return bool(check(Actor("", seat.game, seat), Action.ORDERS))


# Seed 001 rules that close a game to watchers: NO_OBSERVATIONS ("no observers are allowed
# for the game") and SOLITAIRE ("A PRIVACY password will be automatically assigned").
CLOSED_TO_WATCHERS = ("NO_OBSERVATIONS", "SOLITAIRE")


def check_read(actor: Actor, game: Game) -> Decision:
    """Who reads a game's SUMMARY, HISTORY and MAP by mail: anyone, unless a rule closes
    the game to watchers; then only a seat of that game signed on in the same mail (its
    master, players, citizens; for SOLITAIRE also whoever OBSERVEs it with its privacy
    password)."""
    closed = [name for name in CLOSED_TO_WATCHERS if game.rules.has(name)]
    if game.rules.has("FOG") and game.state != GameState.FINISHED:
        closed.append("FOG")  # fog of war: the board is its seats' until the game ends
    if not closed:
        return Decision(ALLOW, "information needs no password")
    if actor.seat is not None and actor.game is not None and actor.game.id == game.id:
        return Decision(ALLOW, "a game's own seats read it")
    how = "OBSERVE it with its privacy password, " if "SOLITAIRE" in closed else ""
    return Decision(
        DENY,
        f"{game.name} is closed to watchers ({closed[0]}): only its own seats read its "
        f"SUMMARY, HISTORY and MAP; {how}SIGNON to it first in the same mail",
    )

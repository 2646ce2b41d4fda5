"""The words of the permission table: what an actor is (Role) and what a command does
(Action). Every command declares its action; the table has a row for every one."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    """Who is acting: their seat's role, or nobody signed on."""

    ANYONE = "anyone"  # not signed on
    MASTER = "master"
    PLAYER = "player"
    TEAMMATE = "teammate"  # Diplonomic: helps a contestant
    AUTHORIZED_TEAMMATE = "authorized teammate"  # ... and may order for them
    CITIZEN = "citizen"  # Democratic
    DIPLOMAT = "diplomat"  # Democratic: the citizen who speaks abroad
    OBSERVER = "observer"


class Action(StrEnum):
    """What a command does, as the table sees it. A dotted action falls back to the rows
    of its family (``vote.victor`` to ``vote``) when none of its own matches."""

    INFO = "info"  # anyone may ask: HELP, LIST, SIGNON itself
    CREATE = "create"
    JOIN = "join"
    OBSERVE = "observe"
    TAKEOVER = "takeover"
    OPENINGS = "openings"  # OPENINGS, OPENINGS ON / OFF: no password; a token confirms ON
    MASTER = "master"  # the master's commands
    ORDERS = "orders"
    STATUS = "status"
    PRESS = "press"  # PRESS and BROADCAST; the kind is known once the recipients are
    PRESS_COUNTRY = "press.country"
    PRESS_PRIVATE = "press.private"
    PRESS_BROADCAST = "press.broadcast"
    PRESS_MASTER = "press.master"
    VOTE = "vote"
    VOTE_VICTOR = "vote.victor"
    VOTE_EXTEND = "vote.extend"  # VOTE EXTEND: the players move their own deadline
    RECORD = "record"  # RECORD: one's own record, mailed to one's own address
    RECORD_SET = "record.set"  # SET RECORD PUBLIC / PRIVATE: one's own record on the web
    SEAT = "seat"  # one's own settings: WAIT, ZONE, ABSENCE, PASSWORD, RESIGN ...
    SEAT_STANDIN = "seat.standin"  # SET STANDIN: only players, only under STANDIN

    @property
    def family(self) -> Action:
        return _FAMILIES[self]


# Each action's family, worked out once: every command asks the table twice.
_FAMILIES = {action: Action(action.value.split(".", 1)[0]) for action in Action}


SEATED = frozenset(Role) - {Role.ANYONE}

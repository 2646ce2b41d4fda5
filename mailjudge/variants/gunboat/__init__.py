"""Gunboat Diplomacy: the standard game with no negotiation and no names.

The board, the orders and the adjudication are the standard game's. What changes is what
the players know of each other and what they may say:

- No press between players. A player may write to the master only (PRESS TO M); private
  press to another power and broadcasts are refused, grey or not, whatever the rules
  flags say (the master cannot open press by dropping NO_PRESS). The master may still
  write to any power and broadcast to everyone, as in any game: the master speaks for the
  judge, not for a power.
- Anonymous. Players are known to each other by their powers only: JOIN takes no
  `AS name` (the standard game would show that name on the web page and in LIST), so the
  game's page says only that a power is joined or played, and LIST that it is played,
  never by whom; the page's join line asks for no name. Nothing else the
  judge shows a player names another: results, press signatures (the power) and the
  lines of who still owes orders (powers) name powers, never people. The master's own
  mail and view are those of the standard game.
"""

from __future__ import annotations

from mailjudge.permissions.rows import DENY, Row, role
from mailjudge.permissions.vocabulary import Action, Role
from mailjudge.variants.base import Variant
from mailjudge.variants.people import PeopleHooks

# Everyone seated but the master: in a Gunboat game they hold or watch powers.
NOT_THE_MASTER = tuple(r for r in Role if r not in (Role.MASTER, Role.ANYONE))
NO_PRESS = "a Gunboat game has no press between players: write to the master only (PRESS TO M)"


class GunboatPeople(PeopleHooks):
    anonymous = True


class Gunboat(Variant):
    name = "gunboat"
    people = GunboatPeople()
    permission_rows = (
        Row(Action.PRESS_PRIVATE, role(*NOT_THE_MASTER), DENY, NO_PRESS),
        Row(Action.PRESS_BROADCAST, role(*NOT_THE_MASTER), DENY, NO_PRESS),
    )

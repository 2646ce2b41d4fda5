"""Where a Democratic country's press goes (seed 000): diplomats write to diplomats, and
citizens to their own country's list."""

from __future__ import annotations

from mailjudge.game.errors import ServiceError
from mailjudge.store.models import Game, Seat
from mailjudge.variants.addresses import PressRoutes
from mailjudge.variants.democratic.citizens import CITIZEN_ROLES, country_of, diplomat_of

PRESS_TO_MASTER = "MASTER"  # how service.press names the master among recipients


def press_routes(game: Game, sender: Seat, recipients: list[str], cc_list: bool) -> PressRoutes:
    """Seed 000: "The selected diplomat of each country communicates with other
    selected diplomats. Updates are posted in the countries mailing list." A
    diplomat's press to another country reaches that country's diplomat only; its
    citizens read what their own diplomat chooses to post. Press to one's own country,
    and the master's press to a country, go to that country's list; CC LIST posts a
    diplomat's press on their own country's list as well. No diplomat exists before
    the first count (end of S1901M): until its country has one, a citizen writes
    abroad itself, to the other country's diplomat, or to its list while it has none."""
    routes = PressRoutes()
    own = country_of(sender) if sender.role in CITIZEN_ROLES else None
    lists: set[str] = set()
    abroad = [c for c in recipients if c not in (PRESS_TO_MASTER, own)]
    if sender.role == "citizen" and abroad:
        # Only while its country has no diplomat (the table lets citizens write; who
        # holds the office is the database's to say, so it is checked here).
        mine = diplomat_of(game, own) if own is not None else None
        if own is None or mine is not None:
            raise ServiceError(
                "citizens write to their own country's list; only the diplomat writes to "
                f"other countries (nothing was sent to {', '.join(abroad)})"
            )
    for country in recipients:
        if country == PRESS_TO_MASTER:
            continue
        if country == own or sender.role not in CITIZEN_ROLES:
            lists.add(country)
            continue
        seat = diplomat_of(game, country)
        if (seat is None or seat.person_id is None) and sender.role == "citizen":
            lists.add(country)  # before any diplomat: citizen to citizens
        elif seat is None or seat.person_id is None:
            routes.unreached.append(country)
        else:
            routes.seats.append(seat)
    if cc_list and own is not None:
        lists.add(own)
    routes.lists = sorted(lists)
    if sender.role == "diplomat" and routes.unreached and not (routes.seats or routes.lists):
        raise ServiceError(
            f"{', '.join(routes.unreached)} has no diplomat now, and diplomats write only "
            "to diplomats; nothing was sent"
        )
    return routes

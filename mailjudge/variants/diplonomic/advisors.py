"""Diplonomic rule 7 (seed 003): advisors. "Contestants may seek the assistance of
non-Contestants. If any do so, they SHALL notify the Judge and publicly announce the
identities of any such non-Contestants and what assistance they will provide."

An advisor is a name and a line of what help they give, kept per power in the game's
``variant_state`` (advisors have no seat: they do not sign on or receive mail). Adding or
removing one is announced to everyone in the game; LIST shows them.
"""

from __future__ import annotations

from mailjudge.game.errors import ServiceError
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game, Seat

MAX_PER_POWER = 20
MAX_NAME = 64
MAX_HELP = 200


def advisors(game: Game, power: str) -> dict[str, str]:
    """``power``'s advisors: name -> the help they give ("" when not said)."""
    return dict((game.variant_state or {}).get("advisors", {}).get(power, {}))


def add(game: Game, seat: Seat, name: str, help_text: str) -> list[Outgoing]:
    """ADVISOR ADD: record (or update) an advisor of the contestant's powers, and tell all."""
    name, help_text = " ".join(name.split()), " ".join(help_text.split())
    if not name or len(name) > MAX_NAME or len(help_text) > MAX_HELP:
        raise ServiceError(
            f"write ADVISOR ADD name what they help with (a name of at most {MAX_NAME} "
            f"characters, the help in at most {MAX_HELP})"
        )
    return _change(game, seat, name, help_text, added=True)


def remove(game: Game, seat: Seat, name: str) -> list[Outgoing]:
    """ADVISOR REMOVE: the advisor no longer helps; everyone is told."""
    return _change(game, seat, " ".join(name.split()), "", added=False)


def _change(game: Game, seat: Seat, name: str, help_text: str, added: bool) -> list[Outgoing]:
    powers = seat.powers
    with database_proxy.atomic():
        fresh = Game.get_by_id(game.id)
        state = dict(fresh.variant_state or {})
        table = {p: dict(v) for p, v in state.get("advisors", {}).items()}
        for power in powers:
            mine = table.setdefault(power, {})
            known = {n.lower(): n for n in mine}
            if added:
                if len(mine) >= MAX_PER_POWER and name.lower() not in known:
                    raise ServiceError(f"{power} has {MAX_PER_POWER} advisors already")
                mine.pop(known.get(name.lower(), name), None)
                mine[name] = help_text
            elif name.lower() in known:
                del mine[known[name.lower()]]
            else:
                listed = ", ".join(sorted(mine)) or "none"
                raise ServiceError(f"{name!r} is not an advisor of {power} (advisors: {listed})")
        state["advisors"] = {p: v for p, v in table.items() if v}
        Game.update(variant_state=state).where(Game.id == game.id).execute()
        game.variant_state = state
    body = render("diplonomic/advisor_news.txt.j2", game=game, powers=" ".join(powers),
                  advisor=name, help=help_text, added=added)  # fmt: skip
    verb = "advises" if added else "no longer advises"
    return mail_to_everyone(game, f"{name} {verb} {' '.join(powers)}", body)

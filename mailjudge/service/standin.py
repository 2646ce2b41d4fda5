"""The STANDIN rule in play: which powers the stand-in (engine/standin.py) orders for when
a phase is processed, its orders kept with the phase marked as its own, and SET STANDIN.

In a game with STANDIN, a power that owes orders and has none on file when its phase is
processed (a dummy, a vacant power, a late one, a player away) is ordered by the stand-in
instead of getting the civil-disorder defaults, unless its variant plays its silent powers
by a rule of its own (its refusal of the StandIn question: Diplonomic's rule 24). A player
away on a SET ABSENCE who set STANDIN ON is not waited for while the absence lasts
(service/processing._exempt), and the absence does not move the deadline
(game/schedule.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from mailjudge.engine.phases import ResultRow
from mailjudge.engine.standin import CARETAKER, MARK, PLAYS, standin_texts
from mailjudge.engine.state import Position
from mailjudge.game import fog
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.schedule import absences
from mailjudge.game.state import current_position, game_map, has_rule
from mailjudge.service.games import engine_options
from mailjudge.service.orders import powers_to_order
from mailjudge.store.models import Game, Seat, utcnow
from mailjudge.variants import variant_of
from mailjudge.variants.questions import StandIn

Kept = dict[str, list[dict[str, Any]]]


def plays(game: Game) -> bool:
    """Whether the stand-in orders for the game's silent powers: the STANDIN rule, and a
    variant that leaves its silent powers to it (people.refusal(StandIn))."""
    return has_rule(game, "STANDIN") and variant_of(game).people.refusal(StandIn(game)) is None


def mode_of(game: Game) -> str:
    """The stand-in's mode in the game: a caretaker under STANDIN_CARETAKER, else it plays."""
    return CARETAKER if has_rule(game, "STANDIN_CARETAKER") else PLAYS


def away_with_standin(game: Game, seats: Iterable[Seat], now: datetime | None = None) -> set[str]:
    """The powers whose player is away now (SET ABSENCE) and asked for the stand-in."""
    if not plays(game):
        return set()
    now = now or utcnow()
    return {
        power
        for seat in seats
        if seat.standin and any(start <= now < end for start, end in absences(seat))
        for power in seat.powers
    }


def asked_for(game: Game) -> set[str]:
    """The powers whose player set STANDIN ON (for STATUS), under STANDIN."""
    if not plays(game):
        return set()
    seats = Seat.select().where((Seat.game == game) & (Seat.standin == True))  # noqa: E712
    return {power for seat in seats for power in seat.powers}


def add_standin_orders(
    game: Game, texts: dict[str, list[str]], kept: Kept, now: datetime | None = None
) -> list[str]:
    """Under STANDIN, the stand-in's orders for every power that owes orders and has none
    on file, added to ``texts`` and ``kept`` (marked as the stand-in's); the powers it
    ordered for."""
    if not plays(game):
        return []
    pos = current_position(game)
    # A passive power's orders would be ignored; the map's dummies hold, nobody orders them.
    passive = engine_options(game).passive.powers | game_map(game).dummies
    silent = [p for p in powers_to_order(game, pos) if not texts.get(p) and p not in passive]
    if not silent:
        return []
    gmap, build_any = game_map(game), has_rule(game, "BUILD_ANY")
    found: dict[str, list[str]] = {}
    # Under fog of war the stand-in plays each power from what that power sees.
    boards = {p: fog.board_for(game, pos, p) for p in silent} if fog.fog_running(game) else {}
    for board, powers in _grouped(pos, silent, boards):
        found.update(
            standin_texts(gmap, board, powers, game.name, build_any=build_any, mode=mode_of(game))
        )
    at = (now or utcnow()).isoformat()
    for power, lines in found.items():
        texts[power] = lines
        kept[power] = [{"text": t, "by": MARK, "standin": True, "at": at} for t in lines]
    return sorted(found)


def orders_now(game: Game, power: str | None) -> list[str]:
    """STANDIN ORDERS: what the stand-in would order now for ``power`` (or for every power
    that has something to order), in the game's mode, and how anyone recomputes it."""
    if game.position is None:
        raise ServiceError(f"{game.name} has not started: there is no board to order on")
    if fog.fog_running(game):
        # Its orders would show units out of the asker's sight (issue 57).
        raise ServiceError(f"{game.name} is played in fog of war: the stand-in's orders "
                           "are shown when the game is over")  # fmt: skip
    refusal = variant_of(game).people.refusal(StandIn(game))
    if refusal is not None:
        raise ServiceError(refusal)
    gmap, pos = game_map(game), current_position(game)
    owing = powers_to_order(game, pos)
    if power is not None:
        power = power.upper()
        if power not in gmap.power_names:
            raise ServiceError(f"{game.name} has no power {power}: write one of {gmap.power_names}")
        owing = [power] if power in owing else []
    mode = mode_of(game)
    found = standin_texts(
        gmap, pos, owing, game.name, build_any=has_rule(game, "BUILD_ANY"), mode=mode
    )
    rule = "under its STANDIN rule" if plays(game) else "(this game has no STANDIN rule)"
    lines = [f"the stand-in ({mode}) {rule}, {game.name} {pos.phase}:"]
    for name in sorted(found):
        lines += [f"  {name}:", *(f"    {line}" for line in found[name])]
    if not found:
        lines.append("  nothing to order in this phase")
    lines.append(f"seed: {game.name}:{pos.phase}:POWER (HELP STANDIN says how to recompute)")
    return lines


def _grouped(
    pos: Position, powers: list[str], boards: dict[str, Position]
) -> list[tuple[Position, list[str]]]:
    """The powers to play on each board: all on ``pos``, or each on its own."""
    if not boards:
        return [(pos, powers)]
    return [(boards[p], [p]) for p in powers]


def by_standin(entry: dict[str, Any]) -> bool:
    """Whether a kept order line was the stand-in's."""
    return bool(entry.get("standin"))


def mark_results(rows: list[ResultRow], kept: Kept) -> None:
    """Mark the results of the stand-in's orders, so that they show (stand-in)."""
    given = {(p, e["text"]) for p, lines in kept.items() for e in lines if by_standin(e)}
    if not given:
        return
    for row in rows:
        if (row["power"], row["order"]) in given:
            row["standin"] = True


def set_standin(seat: Seat, on: bool) -> str:
    """SET STANDIN ON / OFF: the player's own choice; the permission table has already
    checked the rule and the role."""
    if not seat.powers:
        raise ServiceError("you hold no power for a stand-in to order")
    refusal = variant_of(seat.game).people.refusal(StandIn(seat.game))
    if refusal is not None and on:
        raise NotAllowed(refusal)
    seat.standin = on
    seat.save()
    if not on:
        return "no stand-in: while you are away the deadline waits for you as before"
    planned = [end for _, end in absences(seat) if end > utcnow()]
    when = "during your absences" if planned else "once you SET ABSENCE (you have none planned)"
    return (
        f"the stand-in orders for {seat.powers} {when}, unless your own orders are "
        "on file; the deadline no longer moves for your absences (HELP STANDIN)"
    )

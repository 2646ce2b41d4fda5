"""Survive: who is out of the game, and who is still in play.

An outcast is recorded with the sequence of the adjustment phase it went out in, so that
the record follows ROLLBACK and ROLLFORWARD like the rest of the game's history.
"""

from __future__ import annotations

from mailjudge.engine.state import ADJUSTMENT, Phase, Position
from mailjudge.store.models import Game, Seat
from mailjudge.variants.survive.tables import Outcast

OUT = ("voted", "no centres")
TIED = "tied"  # a candidate of an open victor vote (rule 5b)


def is_vote_phase(phase: str | None) -> bool:
    """The adjustment phase after the Fall of an even year (W1902A, W1904A, ...)."""
    if not phase:
        return False
    parsed = Phase.parse(phase)
    return parsed.type == ADJUSTMENT and parsed.year % 2 == 0


def outcasts(game: Game, through: int) -> frozenset[str]:
    """Powers out of the game as of the phase numbered ``through``."""
    rows = Outcast.select(Outcast.power).where(
        (Outcast.game == game) & (Outcast.sequence <= through) & Outcast.reason.in_(OUT)
    )
    return frozenset(row.power for row in rows)


def tied(game: Game) -> list[str]:
    """The candidates of the victor vote open in the current phase (none: no vote open).
    Once the vote is counted its losers are "voted" out in that phase and the victor
    stays "tied": after a ROLLBACK to the phase the vote is open again among them all."""
    rows = Outcast.select(Outcast.power, Outcast.reason).where(
        (Outcast.game == game) & (Outcast.sequence == game.sequence)
        & Outcast.reason.in_((TIED, "voted"))
    )  # fmt: skip
    found = {row.power: row.reason for row in rows}
    return sorted(found) if TIED in found.values() else []


def in_play(game: Game, pos: Position, through: int) -> list[str]:
    """Powers not out that own a centre: they vote, and they may be voted out."""
    out = outcasts(game, through)
    return sorted(p for p, n in pos.centre_counts().items() if n > 0 and p not in out)


def centreless(pos: Position) -> frozenset[str]:
    """Powers with units but no centre: at an adjustment they are out (rule 4c)."""
    owners = set(pos.sc_owners.values())
    return frozenset(u.power for u in pos.units.values() if u.power not in owners)


def remaining_outcasts(game: Game, pos: Position) -> list[str]:
    """Outcasts with a unit still on the board: they choose a victor (rule 5b). Those out
    before this phase: a candidate is no voter, even once counted out in it."""
    out = outcasts(game, game.sequence - 1)
    return sorted({u.power for u in pos.units.values()} & out)


def record(game: Game, powers: list[str], reason: str) -> None:
    for power in powers:
        Outcast.create(
            game=game, power=power, phase=game.phase, sequence=game.sequence, reason=reason
        )


def clear_undone(game: Game) -> None:
    """Forget what a ROLLBACK undid: the records of later phases, and this phase's own
    outcasts (its vote is counted again), but not the candidates of an open victor vote
    (those its count had put out are candidates again)."""
    forget_future(game)
    here = (Outcast.game == game) & (Outcast.sequence == game.sequence)
    if tied(game):
        Outcast.update(reason=TIED).where(here & (Outcast.reason == "voted")).execute()
    Outcast.delete().where(here & (Outcast.reason != TIED)).execute()


def forget_future(game: Game) -> None:
    """The records of phases after the current one: a future a ROLLBACK undid, kept for
    ROLLFORWARD until the phase is played anew."""
    later = Outcast.sequence > game.sequence
    Outcast.delete().where((Outcast.game == game) & later).execute()


def of_phase(game: Game, sequence: int) -> dict[str, list[str]]:
    """What happened in one phase: reason -> powers."""
    found: dict[str, list[str]] = {}
    rows = Outcast.select().where((Outcast.game == game) & (Outcast.sequence == sequence))
    for row in rows.order_by(Outcast.power):
        found.setdefault(row.reason, []).append(row.power)
    return found


def resign_refused(game: Game, seat: Seat, units: int) -> str | None:
    """Seed 002, rule 8: "If you are voted out, you must remain in the game as least until
    the judge recognizes you have no units left! Do not resign, even if your units are
    immobile." An outcast's player may RESIGN only once its power has no unit left."""
    if game.state != "active" or units == 0:
        return None
    out = outcasts(game, game.sequence) & set(seat.powers)
    if not out:
        return None
    return (
        f"{' '.join(sorted(out))} is voted out but still has {units} unit(s): Survive rule 8 "
        "keeps you in the game until it has none (its units hold; outcasts may still "
        "choose the victor under rule 5b); RESIGN once they are gone"
    )

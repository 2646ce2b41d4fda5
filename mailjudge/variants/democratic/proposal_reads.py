"""A Democratic country's proposals as its citizens know them: the order sets of the phase,
the nominees still standing, and the numbers citizens are told each by."""

from __future__ import annotations

from mailjudge.store.models import Game, Proposal, Seat
from mailjudge.variants.democratic.citizens import CITIZEN_ROLES, centres_of


def nominees(game: Game, power: str) -> list[str]:
    """Citizens nominated for diplomat of ``power`` who are still its citizens."""
    names = [
        p.text.split("\n", 1)[0]
        for p in Proposal.select().where(
            (Proposal.game == game) & (Proposal.kind == "nomination") & (Proposal.power == power)
            & (Proposal.state == "open")
        )
    ]  # fmt: skip
    if not names:
        return []
    # By name only, so that the database goes straight to the few nominees' rows (a test
    # on role or centre here made it walk every citizen of the country, at every ballot).
    centres = set(centres_of(game, power))
    still = Seat.select(Seat.name, Seat.role, Seat.centre).where(
        (Seat.game == game) & Seat.name.in_(names)
    )
    return sorted({s.name for s in still if s.role in CITIZEN_ROLES and s.centre in centres})


def proposals(game: Game, power: str) -> list[Proposal]:
    """``power``'s order sets of this phase; set n is the n-th of the list (seed 000
    numbers each country's sets of a phase 1, 2, 3, whatever other countries propose)."""
    here = (Proposal.game == game) & (Proposal.phase == game.phase)
    mine = (Proposal.kind == "orders") & (Proposal.power == power)
    return list(Proposal.select().where(here & mine).order_by(Proposal.number))


def set_number(proposal: Proposal) -> int:
    """The number a country's citizens know a proposal by: its order set's number within
    the country and phase, or its nomination's number within the country (nominations
    stand from phase to phase and are numbered apart). ``Proposal.number`` stays the
    game-wide key."""
    same = (
        (Proposal.game == proposal.game_id) & (Proposal.kind == proposal.kind)
        & (Proposal.power == proposal.power) & (Proposal.number < proposal.number)
    )  # fmt: skip
    if proposal.kind == "orders":
        same &= Proposal.phase == proposal.phase
    return int(Proposal.select().where(same).count()) + 1


def nomination(game: Game, power: str, number: int) -> Proposal | None:
    """``power``'s nomination with the number its citizens were told."""
    rows = Proposal.select().where(
        (Proposal.game == game) & (Proposal.kind == "nomination") & (Proposal.power == power)
    )
    found = list(rows.order_by(Proposal.number).offset(number - 1).limit(1)) if number > 0 else []
    return found[0] if found else None

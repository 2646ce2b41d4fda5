"""STATUS for a Democratic citizen: what a citizen may see of their own country now (its
diplomat, its nominees, this phase's order sets and who proposed them) and their own
ballots; never another citizen's ballot, nor a count before the deadline."""

from __future__ import annotations

from mailjudge.store.models import Ballot, Game, Seat
from mailjudge.variants.democratic.ballots import STANDING
from mailjudge.variants.democratic.citizens import country_of, diplomat_of
from mailjudge.variants.democratic.proposal_reads import nominees, proposals, set_number


def citizen_status(game: Game, seat: Seat) -> list[str]:
    """The lines of a citizen's STATUS, after the game, phase and deadline line."""
    power = country_of(seat)
    if power is None:
        return ["your centre belongs to no country yet; wait for the game to start"]
    diplomat = diplomat_of(game, power)
    you = f"You are a {seat.role} of {power} (centre {str(seat.centre).upper()})"
    lines = [you + (f"; its diplomat is {diplomat.name}" if diplomat is not None else "")]
    if diplomat is None:
        lines.append(f"{power} has no diplomat yet")
    named = nominees(game, power)
    lines.append("Nominees for diplomat: " + (", ".join(named) if named else "none yet"))
    sets = proposals(game, power)
    lines.append(f"Order sets for {game.phase}:" + ("" if sets else " none yet"))
    for proposal in sets:
        author = proposal.author.name if proposal.author is not None else "the judge"
        lines.append(f"  set {set_number(proposal)} (by {author}):")
        lines += [f"      {order}" for order in proposal.text.split("\n")]
    lines += _own_ballots(game, seat)
    lines.append("Ballots and their counts stay secret until the deadline.")
    return lines


def _own_ballots(game: Game, seat: Seat) -> list[str]:
    """The citizen's own standing ballots, as they cast them (theirs alone to see)."""
    mine = {
        b.kind: b.content
        for b in Ballot.select().where(
            (Ballot.voter == seat) & Ballot.kind.in_(("orders", "diplomat"))
            & Ballot.phase.in_((game.phase, STANDING))
        )
    }  # fmt: skip
    orders, diplomat = mine.get("orders"), mine.get("diplomat")
    return [
        "Your orders ballot: "
        + (" ".join(map(str, orders)) if orders else "none (VOTE ORDERS 2 1 ranks the sets)"),
        "Your diplomat ballot: "
        + (" ".join(map(str, diplomat)) if diplomat else "none (VOTE DIPLOMAT name name)"),
    ]

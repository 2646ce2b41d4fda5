"""How a game ends by agreement: the secret draw vote, PROPOSE_DIAS and NO_DIAS.

Only the powers still in the game that have a player vote (dummies and vacant powers do
not). Ballots stay until changed and are never shown to anyone.

- Default: each player votes for one ending, ``DRAW`` (all survivors) or ``CONCEDE X``.
  All voting CONCEDE X ends the game in X's win; when all have voted and nobody votes a
  concession to their own power, it ends in a draw of all survivors.
- PROPOSE_DIAS: a player proposes ``DRAW`` or ``CONCEDE X``; the others vote YES or NO;
  one NO vetoes it, all YES end the game.
- NO_DIAS (seed 001): each votes ``n`` (a draw of at most n powers that includes them,
  or their own win), ``SOLO`` (their own win only) or ``LOSS`` (any result that does not
  include them). So the one ending every ballot can allow is shared by exactly the
  powers not voting LOSS: their win when they are one, their draw when they are several,
  all vote ``n`` and none's n is below their number. When every ballot is LOSS the seed
  declares a draw of all survivors.
"""

from __future__ import annotations

from typing import Any

from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import (
    current_position,
    finish_game,
    game_map,
    has_rule,
    players,
    require_active,
)
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, Proposal, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.questions import ProposeDraw

STANDING = ""  # draw ballots belong to no phase: they stand until changed


def survivors(game: Game) -> list[str]:
    """The powers still on the board that can share a result: the map's dummies cannot
    (nobody plays them; they cannot win either, engine/phases.py)."""
    pos = current_position(game)
    alive = {u.power for u in pos.units.values()} | set(pos.sc_owners.values())
    return sorted(alive - game_map(game).dummies)


def electorate(game: Game) -> dict[str, Seat]:
    """Surviving powers with a player, and that player's seat."""
    alive = set(survivors(game))
    voters: dict[str, Seat] = {}
    for seat in players(game):
        if seat.person_id is None or seat.dummy:
            continue
        for power in seat.powers:
            if power in alive:
                voters[power] = seat
    return voters


def _cast(game: Game, seat: Seat, kind: str, content: Any, subject: str = "") -> None:
    Ballot.delete().where(
        (Ballot.voter == seat) & (Ballot.kind == kind) & (Ballot.subject == subject)
        & (Ballot.phase == STANDING)
    ).execute()  # fmt: skip
    Ballot.create(
        game=game, phase=STANDING, kind=kind, subject=subject, voter=seat, content=content
    )


def _ballots(game: Game, kind: str, subject: str = "") -> dict[int, Any]:
    rows = Ballot.select().where(
        (Ballot.game == game) & (Ballot.kind == kind) & (Ballot.subject == subject)
    )
    return {b.voter_id: b.content for b in rows}


def _voter(game: Game, seat: Seat) -> str:
    for power, voter in electorate(game).items():
        if voter.id == seat.id:
            return power
    raise NotAllowed("only players of powers still in the game vote on how it ends")


def vote(game: Game, seat: Seat, choice: str) -> str | None:
    """The default secret vote: DRAW, CONCEDE POWER, or NONE to withdraw. Returns the
    outcome when this ballot ends the game."""
    _require_open_to_draws(game)
    if has_rule(game, "PROPOSE_DIAS") or has_rule(game, "NO_DIAS"):
        raise NotAllowed(
            "this game votes with "
            + ("PROPOSE DRAW / PROPOSE CONCEDE and VOTE YES/NO" if has_rule(game, "PROPOSE_DIAS")
               else "VOTE n, VOTE SOLO or VOTE LOSS (NO_DIAS)")
        )  # fmt: skip
    _voter(game, seat)
    words = choice.upper().split()
    if words == ["NONE"]:
        Ballot.delete().where((Ballot.voter == seat) & (Ballot.kind == "draw")).execute()
        return None
    if words == ["DRAW"]:
        content: Any = "DRAW"
    elif len(words) == 2 and words[0] == "CONCEDE" and words[1] in survivors(game):
        content = f"CONCEDE {words[1]}"
    else:
        raise ServiceError(
            "write VOTE DRAW, VOTE CONCEDE POWER (a power still in the game) or VOTE NONE"
        )
    with database_proxy.atomic():
        _cast(game, seat, "draw", content)
        return _settle_default(game)


def _all_votes(game: Game, kind: str) -> dict[str, Any] | None:
    """Each voting power's standing ballot of ``kind``; None until every one has voted."""
    ballots = _ballots(game, kind)
    votes = {power: ballots.get(seat.id) for power, seat in electorate(game).items()}
    if not votes or any(v is None for v in votes.values()):
        return None
    return votes


def _settle_default(game: Game) -> str | None:
    votes = _all_votes(game, "draw")
    if votes is None:
        return None
    choices = set(votes.values())
    if len(choices) == 1 and next(iter(choices)).startswith("CONCEDE"):
        winner = next(iter(choices)).split()[1]
        return _end(game, f"CONCESSION {winner}")
    if all(v != f"CONCEDE {power}" for power, v in votes.items()):
        return _end(game, "DRAW " + " ".join(survivors(game)))
    return None


def _require_open_to_draws(game: Game) -> None:
    """An active game whose variant takes draws now (not in a Double tie-break)."""
    require_active(game)
    why = variant_of(game).people.refusal(ProposeDraw(game))
    if why:
        raise NotAllowed(why)


def _end(game: Game, outcome: str) -> str:
    finish_game(game, outcome)
    return outcome


def propose(game: Game, seat: Seat, what: str) -> Proposal:
    """PROPOSE DRAW or PROPOSE CONCEDE POWER (PROPOSE_DIAS); one open proposal at a time."""
    _require_open_to_draws(game)
    if not has_rule(game, "PROPOSE_DIAS"):
        raise NotAllowed("proposals are for PROPOSE_DIAS games; here use VOTE DRAW or VOTE CONCEDE")
    _voter(game, seat)
    words = what.upper().split()
    if not (
        words == ["DRAW"]
        or (len(words) == 2 and words[0] == "CONCEDE" and words[1] in survivors(game))
    ):
        raise ServiceError("write PROPOSE DRAW or PROPOSE CONCEDE POWER")
    with database_proxy.atomic():
        if _open_proposal(game) is not None:
            raise NotAllowed("a proposal is already open; it must be voted on first")
        proposal = Proposal.create(
            game=game,
            phase=game.phase,
            kind="draw",
            number=Proposal.next_number(game),
            text=" ".join(words),
            author=seat,
        )
        _cast(game, seat, "dias", "YES", str(proposal.number))
    return proposal


def _open_proposal(game: Game) -> Proposal | None:
    return Proposal.get_or_none(
        (Proposal.game == game) & (Proposal.kind == "draw") & (Proposal.state == "open")
    )


def answer(game: Game, seat: Seat, yes: bool) -> str | None:
    """VOTE YES / VOTE NO on the open proposal; a NO vetoes it at once."""
    _require_open_to_draws(game)
    proposal = _open_proposal(game)
    if proposal is None:
        raise NotAllowed("there is no open proposal to vote on; PROPOSE DRAW starts one")
    _voter(game, seat)
    with database_proxy.atomic():
        if not yes:
            proposal.state = "vetoed"
            proposal.save()
            return None
        _cast(game, seat, "dias", "YES", str(proposal.number))
        ballots = _ballots(game, "dias", str(proposal.number))
        if all(ballots.get(s.id) == "YES" for s in electorate(game).values()):
            proposal.state = "enacted"
            proposal.save()
            if proposal.text == "DRAW":
                return _end(game, "DRAW " + " ".join(survivors(game)))
            return _end(game, f"CONCESSION {proposal.text.split()[1]}")
    return None


def vote_no_dias(game: Game, seat: Seat, choice: str) -> str | None:
    """NO_DIAS ballots: VOTE n, VOTE SOLO, VOTE LOSS."""
    _require_open_to_draws(game)
    if not has_rule(game, "NO_DIAS"):
        raise NotAllowed("VOTE n / SOLO / LOSS is for NO_DIAS games")
    _voter(game, seat)
    word = choice.strip().upper()
    number = word.isascii() and word.isdigit() and len(word) <= 6
    if number and 1 <= int(word) <= len(survivors(game)):
        content: Any = int(word)
    elif word in ("SOLO", "LOSS"):
        content = word
    else:
        raise ServiceError(
            f"write VOTE n (1 to {len(survivors(game))}: the largest draw you accept, you "
            "included), VOTE SOLO or VOTE LOSS"
        )
    with database_proxy.atomic():
        _cast(game, seat, "nodias", content)
        return _settle_no_dias(game)


def _settle_no_dias(game: Game) -> str | None:
    votes = _all_votes(game, "nodias")
    if votes is None:
        return None
    wanting = sorted(power for power, ballot in votes.items() if ballot != "LOSS")
    if not wanting:
        return _end(game, "DRAW " + " ".join(survivors(game)))
    if len(wanting) == 1:
        return _end(game, f"WIN {wanting[0]}")
    if all(votes[power] != "SOLO" and len(wanting) <= int(votes[power]) for power in wanting):
        return _end(game, "DRAW " + " ".join(wanting))
    return None

"""Survive's ballots: VOTE OUT (rules 1 to 3, 5a) and VOTE VICTOR (rule 5b).

Ballots are secret and change until the deadline. Only the names of the powers that go
out (or win) are ever published, never a number or who voted how.
"""

from __future__ import annotations

from collections.abc import Mapping

from mailjudge.engine.maps import GameMap
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import current_position, game_map
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, GameState, Seat
from mailjudge.variants.survive.outcasts import (
    in_play,
    is_vote_phase,
    remaining_outcasts,
    tied,
)
from mailjudge.voting import seeded_draw

OUT, VICTOR, MASTER = "out", "victor", "MASTER"
HOW = "write VOTE OUT, then each power with its number of votes: VOTE OUT FRANCE 3 TURKEY 2"


def most_votes(totals: Mapping[str, int]) -> frozenset[str]:
    """Who has the most votes; all of them on a tie; nobody when no vote was cast."""
    best = max(totals.values(), default=0)
    return frozenset(p for p, n in totals.items() if n == best) if best > 0 else frozenset()


def tally(ballots: Mapping[str, Mapping[str, int]], candidates: list[str]) -> dict[str, int]:
    """Votes against each candidate; a vote for anyone else does not count."""
    totals = dict.fromkeys(candidates, 0)
    for allocation in ballots.values():
        for power, n in allocation.items():
            if power in totals:
                totals[power] += n
    return totals


def _power(word: str, gmap: GameMap) -> str:
    w = word.upper().strip(",")
    by_initial = {p.initial.upper(): p.name for p in gmap.powers.values()}
    if w in gmap.powers:
        return w
    if w in by_initial:
        return by_initial[w]
    raise ServiceError(f"{word!r} is not a power ({', '.join(gmap.power_names)}); {HOW}")


def parse_allocation(words: list[str], gmap: GameMap) -> dict[str, int]:
    """``FRANCE 3 TURKEY 2`` -> {"FRANCE": 3, "TURKEY": 2}."""
    if not words or len(words) % 2:
        raise ServiceError(HOW)
    allocation: dict[str, int] = {}
    for name, number in zip(words[::2], words[1::2], strict=True):
        power = _power(name, gmap)
        if not (number.isascii() and number.isdigit()) or len(number) > 6 or int(number) < 1:
            raise ServiceError(f"{number!r} after {power} is not a number of votes; {HOW}")
        if power in allocation:
            raise ServiceError(f"{power} is named twice; name each power once. {HOW}")
        allocation[power] = int(number)
    return allocation


def _voter_power(game: Game, seat: Seat) -> str:
    powers = seat.powers
    if seat.role != "player" or len(powers) != 1:
        raise NotAllowed("a vote-out ballot is cast by the player of one power")
    return str(powers[0])


def check_out_ballot(game: Game, seat: Seat, allocation: Mapping[str, int]) -> str:
    """The voting power, once the ballot is known to be one that counts."""
    if game.state != GameState.ACTIVE or not is_vote_phase(game.phase):
        raise NotAllowed(
            "the vote-out is held in the adjustment phase after each even year's Fall "
            f"(W1902A, W1904A, ...); it is {game.phase or 'not started'} now"
        )
    if tied(game):
        raise NotAllowed("the vote-out is over: the outcasts now choose the victor")
    me = _voter_power(game, seat)
    pos = current_position(game)
    playing = in_play(game, pos, game.sequence - 1)
    if me not in playing:
        raise NotAllowed(f"{me} is out of the game and has no vote-out ballot")
    others = [p for p in playing if p != me]
    votes = pos.centre_counts()[me]
    example = f"VOTE OUT {others[0]} {votes}" if others else "VOTE OUT"
    if me in allocation:
        raise ServiceError(
            f"{me} may not vote for itself; give its {votes} votes to powers still in play "
            f"({', '.join(others)}), e.g. {example}"
        )
    for power in allocation:
        if power not in others:
            raise ServiceError(
                f"{power} is out of the game and cannot receive votes; "
                f"powers still in play: {', '.join(others)}"
            )
    total = sum(allocation.values())
    if total != votes:
        raise ServiceError(
            f"{me} has {votes} votes (one per supply centre) and must use them all; these "
            f"add up to {total}. Split them as you like, e.g. {example}"
        )
    return me


def _cast(game: Game, seat: Seat, kind: str, subject: str, content: object) -> None:
    here = (Ballot.voter == seat) & (Ballot.kind == kind) & (Ballot.phase == game.phase)
    with database_proxy.atomic():
        Ballot.delete().where(here & (Ballot.subject == subject)).execute()
        Ballot.create(
            game=game, phase=game.phase, kind=kind, subject=subject, voter=seat, content=content
        )


def vote_out(game: Game, seat: Seat, words: list[str]) -> dict[str, int]:
    """VOTE OUT FRANCE 3 TURKEY 2: this phase's ballot of the seat's power, replacing any."""
    allocation = parse_allocation(words, game_map(game))
    me = check_out_ballot(game, seat, allocation)
    _cast(game, seat, OUT, me, allocation)
    return allocation


def out_ballots(game: Game) -> dict[str, dict[str, int]]:
    """This phase's vote-out ballots by voting power."""
    rows = Ballot.select().where(
        (Ballot.game == game) & (Ballot.phase == game.phase) & (Ballot.kind == OUT)
    )
    return {row.subject: dict(row.content) for row in rows}


def victor_voters(game: Game) -> tuple[list[str], bool]:
    """The outcasts who choose the victor, and whether the master votes too (when the
    outcasts are an even number, so that one vote more can settle it)."""
    voters = remaining_outcasts(game, current_position(game))
    return voters, len(voters) % 2 == 0


def vote_victor(game: Game, seat: Seat, word: str) -> str:
    """VOTE VICTOR TURKEY, by an outcast still on the board (or the master when due)."""
    candidates = tied(game)
    if game.state != GameState.ACTIVE or not candidates:
        raise NotAllowed("no victor vote is open; it opens only when a vote-out tie would "
                         "leave nobody in the game")  # fmt: skip
    choice = _power(word, game_map(game))
    if choice not in candidates:
        raise ServiceError(f"vote for one of the tied powers: VOTE VICTOR {candidates[0]} "
                           f"(they are {', '.join(candidates)})")  # fmt: skip
    voters, master_votes = victor_voters(game)
    if seat.role == "master":
        if not master_votes:
            raise NotAllowed("the master votes only when the outcasts are an even number")
        _cast(game, seat, VICTOR, MASTER, choice)
        return choice
    mine = [p for p in seat.powers if p in voters]
    if seat.role != "player" or not mine:
        raise NotAllowed(f"only the outcasts still on the board vote: {', '.join(voters)}")
    _cast(game, seat, VICTOR, mine[0], choice)
    return choice


def victor_ballots(game: Game) -> dict[str, str]:
    """Who voted for whom in the open victor vote, counting only those entitled."""
    voters, master_votes = victor_voters(game)
    entitled = set(voters) | ({MASTER} if master_votes else set())
    rows = Ballot.select().where(
        (Ballot.game == game) & (Ballot.phase == game.phase) & (Ballot.kind == VICTOR)
    )
    return {row.subject: str(row.content) for row in rows if row.subject in entitled}


def choose_victor(game: Game) -> str:
    """The victor among the tied: a missing vote is an abstention, and a tie is drawn by a
    SHA-256 of public data, as mailjudge.voting's ties are."""
    candidates = tied(game)
    totals = dict.fromkeys(candidates, 0)
    for choice in victor_ballots(game).values():
        if choice in totals:
            totals[choice] += 1
    top = sorted(p for p, n in totals.items() if n == max(totals.values()))
    if len(top) == 1:
        return top[0]
    return seeded_draw(f"{game.name}:{game.phase}:victor", 1, top).chosen


def voters_missing(game: Game) -> list[str]:
    """Powers in play without a vote-out ballot in this phase."""
    cast = out_ballots(game)
    return [p for p in in_play(game, current_position(game), game.sequence - 1) if p not in cast]


def out_text(allocation: dict[str, int]) -> str:
    """A ballot as its voter reads it back: "FRANCE 3, TURKEY 2"."""
    return ", ".join(f"{power} {n}" for power, n in allocation.items())

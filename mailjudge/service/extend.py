"""VOTE EXTEND: the players move their own deadline (issue 35, point 3).

- Who votes: the powers in play, each once: a power still on the board (units or supply
  centres: not eliminated) held by a player (a person, not a dummy, not vacant), and not
  out of the game by its variant's rule (``variant.phase.passive``: Survive's outcasts, whose
  units stay on the board; Diplonomic's countries in civil disorder). A seat
  holding two powers votes for both; a power two players share (Double) counts once: it
  asks when one of its players asks, for the shorter length when both did.
- When: in an active game with a deadline (not NO_DEADLINE), at most ``EXTENSIONS``
  extensions a game year (counted in ``deadline_extension``).
- The quorum: ``EXTEND_QUORUM`` of the powers in play (2/3 by default) have a standing
  ``VOTE EXTEND`` in the current phase. The length: the longest that a quorum of voters
  all asked for at least (the votes by length, longest first: the length of the vote
  that reaches the quorum), so no voter of that quorum gets more than they asked. A vote
  without a length asks for ``EXTEND_MAX``; a longer one is cut to it.
- The deadline moves by that length (from now when the deadline has passed, in the grace
  period), its reminders and calendar event follow it (game/schedule.set_deadline, as the
  master's SET DEADLINE), and the ballots of the phase are spent.

Votes are secret: they are Ballot rows (kind ``extend``, subject the game's sequence, so a
phase's votes never count in another) and nothing shows who voted, or how many did; only
the new deadline is announced.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from mailjudge.game import schedule
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.options import count_option, length_option, share_option
from mailjudge.game.state import has_rule, phase_of, players, require_active
from mailjudge.service.draws import survivors
from mailjudge.service.games import passive_now
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, DeadlineExtension, Game, Seat
from mailjudge.variants import variant_of

KIND = "extend"
_PHASE_TYPES = {"M": "movement", "R": "retreat", "A": "adjustment"}


@dataclass(frozen=True)
class Extension:
    """A deadline the votes moved: by how much, to when."""

    length: timedelta
    deadline: datetime


def game_year(game: Game) -> int:
    return int(phase_of(game)[1:5])


def phase_length(game: Game) -> timedelta:
    return schedule.timing_of(game).length(_PHASE_TYPES[phase_of(game)[-1]])


def longest(game: Game) -> timedelta:
    """EXTEND_MAX in time; NotAllowed when it is OFF."""
    cap = length_option(game, "EXTEND_MAX", phase_length(game))
    if cap is None or cap <= timedelta():
        raise NotAllowed("the master turned extensions off in this game (EXTEND_MAX OFF)")
    return cap


def extensions_left(game: Game) -> int:
    """How many more times the players may extend a deadline this game year."""
    used = (
        DeadlineExtension.select()
        .where((DeadlineExtension.game == game) & (DeadlineExtension.year == game_year(game)))
        .count()
    )
    return max(0, count_option(game, "EXTENSIONS") - used)


def require_open(game: Game) -> None:
    """An active game with a deadline and an extension left this year, or why not."""
    require_active(game)
    if has_rule(game, "NO_DEADLINE") or game.deadline is None:
        raise NotAllowed("this game has no deadline to extend")
    allowed = count_option(game, "EXTENSIONS")
    if allowed == 0:
        raise NotAllowed("the master allows no extensions in this game (EXTENSIONS 0)")
    if extensions_left(game) == 0:
        raise NotAllowed(
            f"the deadline was extended {allowed} time(s) in {game_year(game)} already, "
            f"all this game allows a year (EXTENSIONS {allowed}); the master may still "
            "SET DEADLINE"
        )


def in_play(game: Game) -> dict[str, list[Seat]]:
    """The powers in play (see the module's docstring), each with the seats of its players.
    The variant says who is out though still on the board (seed 002, rule 4a: an outcast's
    units hold on; it decides nothing any more)."""
    alive = set(survivors(game)) - passive_now(game)
    held: dict[str, list[Seat]] = {}
    for seat in players(game):
        if seat.person_id is None or seat.dummy:
            continue
        for power in seat.powers:
            if power in alive:
                held.setdefault(power, []).append(seat)
    return held


def _powers_of(game: Game, seat: Seat) -> list[str]:
    mine = [power for power, seats in in_play(game).items() if seat in seats]
    if not mine:
        out = sorted(set(seat.powers) & passive_now(game))
        if out:
            raise NotAllowed(
                f"{' and '.join(out)} {variant_of(game).phase.passive_note}; only the players of "
                "powers still in play vote to extend the deadline"
            )
        raise NotAllowed("only the players of powers still in the game vote to extend it")
    return mine


def vote(game: Game, seat: Seat, asked: timedelta | None, now: datetime) -> Extension | None:
    """A player's VOTE EXTEND [length]; the extension when this vote completes a quorum."""
    require_open(game)
    _powers_of(game, seat)
    cap = longest(game)
    if asked is not None and asked <= timedelta():
        raise ServiceError("an extension must be longer than nothing: VOTE EXTEND 24H")
    length = cap if asked is None else min(asked, cap)
    subject = str(game.sequence)
    with database_proxy.atomic():
        Ballot.delete().where(
            (Ballot.voter == seat) & (Ballot.kind == KIND) & (Ballot.subject == subject)
        ).execute()
        Ballot.create(
            game=game, phase=phase_of(game), kind=KIND, subject=subject, voter=seat,
            content={"seconds": int(length.total_seconds())},
        )  # fmt: skip
        agreed = agreed_length(game)
        if agreed is None:
            return None
        return _extend(game, agreed, now)


def withdraw(game: Game, seat: Seat) -> bool:
    """VOTE NOEXTEND: the player's vote in this phase withdrawn; whether there was one."""
    require_active(game)
    _powers_of(game, seat)
    gone = (
        Ballot.delete()
        .where((Ballot.voter == seat) & (Ballot.kind == KIND))
        .where(Ballot.subject == str(game.sequence))
        .execute()
    )
    return bool(gone)


def asked_lengths(game: Game) -> dict[str, timedelta]:
    """Each power in play whose player has a standing vote in this phase: the length asked."""
    ballots = {
        b.voter_id: timedelta(seconds=int(b.content["seconds"]))
        for b in Ballot.select().where(
            (Ballot.game == game) & (Ballot.kind == KIND)
            & (Ballot.subject == str(game.sequence))
        )
    }  # fmt: skip
    asked: dict[str, timedelta] = {}
    for power, seats in in_play(game).items():
        lengths = [ballots[seat.id] for seat in seats if seat.id in ballots]
        if lengths:
            asked[power] = min(lengths)
    return asked


def agreed_length(game: Game) -> timedelta | None:
    """The length a quorum agreed to, or None while the votes are short of one."""
    asked = sorted(asked_lengths(game).values(), reverse=True)
    return quorum_length(asked, len(in_play(game)), share_option(game, "EXTEND_QUORUM"))


def quorum_length(asked: list[timedelta], in_play: int, quorum: Fraction) -> timedelta | None:
    """Of the lengths the powers asked, the longest that enough of them (``quorum`` of the
    ``in_play`` powers) asked at least: None when fewer voted."""
    if in_play == 0:
        return None
    ordered = sorted(asked, reverse=True)
    for count, length in enumerate(ordered, start=1):
        if Fraction(count, in_play) >= quorum:
            return length
    return None


def _extend(game: Game, length: timedelta, now: datetime) -> Extension:
    deadline = game.deadline
    assert deadline is not None  # require_open
    schedule.set_deadline(game, max(deadline, now) + length, now)
    DeadlineExtension.create(
        game=game, phase=phase_of(game), sequence=game.sequence, year=game_year(game),
        length=int(length.total_seconds()), at=now,
    )  # fmt: skip
    Ballot.delete().where(
        (Ballot.game == game) & (Ballot.kind == KIND) & (Ballot.subject == str(game.sequence))
    ).execute()
    new = game.deadline
    assert new is not None
    return Extension(length, new)

"""STALEMATE_DRAW n (issue 35, point 5): after n game years in which no supply centre
changed owner, the players are asked to draw, and silence is consent.

- When: a phase has just opened on a Spring movement phase, the game year before it ended
  the n-th static year in a row (game/stalemate.py), and the game takes draws by vote now
  (its variant's refusal of ``ProposeDraw``: Diplonomic refuses, its rule 9 keeps the
  master's DECLARE DRAW; Double refuses in a tie-break), and it has a deadline (not NO_DEADLINE).
  The question is kept as a ``stalemate_question`` row for that phase.
- Everyone in the game is told, in their zone, by when to refuse: the phase's deadline.
- A player of a power in play refuses with ``VOTE NOSTALEMATE``; everyone is told that a
  player refused (never who) and the game goes on. A refusal stands for this question; if
  the next year is static as well, they are asked again.
- Until the deadline the phase waits (like ALWAYS_WAIT), so that early orders do not cut
  the time to refuse; the master's PROCESS still may, and then the question lapses.
- At the deadline, unrefused, the game ends in a draw of all surviving powers, with the
  game-over mail every ending has (service/results.game_over_mails).
"""

from __future__ import annotations

from datetime import datetime

from mailjudge.game.errors import NotAllowed
from mailjudge.game.options import count_option
from mailjudge.game.schedule import deadline_lines
from mailjudge.game.stalemate import static_since, year_just_ended
from mailjudge.game.state import finish_game, has_rule, require_active
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone, mail_to_seat
from mailjudge.service.draws import survivors
from mailjudge.service.extend import in_play
from mailjudge.service.results import game_over_mails
from mailjudge.store.models import Game, GameState, Seat, StalemateQuestion
from mailjudge.variants import variant_of
from mailjudge.variants.questions import ProposeDraw

OPTION = "STALEMATE_DRAW"


def open_question(game: Game) -> StalemateQuestion | None:
    """The question asked in the current phase and not refused, if any."""
    if game.state != GameState.ACTIVE:
        return None
    found: StalemateQuestion | None = StalemateQuestion.get_or_none(
        (StalemateQuestion.game == game) & (StalemateQuestion.sequence == game.sequence)
    )
    return found if found is not None and found.refused_at is None else None


def _asked(game: Game) -> bool:
    return bool(
        StalemateQuestion.select()
        .where((StalemateQuestion.game == game) & (StalemateQuestion.sequence == game.sequence))
        .exists()
    )


def ask(game: Game, now: datetime) -> list[Outgoing]:
    """After a phase is processed: ask the players when the years just ended were static
    (see the module's docstring); the mail to everyone in the game, or none. A question
    of this phase or later is from a future the master's ROLLBACK undid: it goes."""
    StalemateQuestion.delete().where(
        (StalemateQuestion.game == game) & (StalemateQuestion.sequence >= game.sequence)
    ).execute()
    years = count_option(game, OPTION)
    year = year_just_ended(game.phase or "")
    if years == 0 or year is None or game.state != GameState.ACTIVE or game.deadline is None:
        return []
    if has_rule(game, "NO_DEADLINE") or variant_of(game).people.refusal(ProposeDraw(game)):
        return []
    first = static_since(game, year, years)
    voters = {seat.id for seats in in_play(game).values() for seat in seats}
    if first is None or not voters:
        return []
    StalemateQuestion.create(game=game, sequence=game.sequence, phase=game.phase, asked_at=now)
    powers = survivors(game)
    subject = f"no centre changed owner since {first}: a draw unless someone refuses"
    mails = []
    for seat in Seat.select().where((Seat.game == game) & (Seat.status == "active")):
        if seat.person_id is None:
            continue
        body = render(
            "stalemate_asked.txt.j2", game=game, first=first, last=year, years=years,
            powers=powers, deadline=deadline_lines(game, seat),
            voter=seat.id in voters, seat_name=seat.name,
        )  # fmt: skip
        mails.append(mail_to_seat(seat, subject, body, "notice"))
    return mails


def refuse(game: Game, seat: Seat, now: datetime) -> list[Outgoing]:
    """VOTE NOSTALEMATE: the game goes on; everyone is told that a player refused."""
    require_active(game)
    if not any(seat in seats for seats in in_play(game).values()):
        raise NotAllowed("only the players of powers still in the game refuse a draw")
    question = open_question(game)
    if question is None and _asked(game):
        raise NotAllowed("a player refused this stalemate draw already: the game goes on")
    if question is None:
        raise NotAllowed(
            f"no stalemate draw is asked of {game.name} in {game.phase}: there is nothing "
            "to refuse (the players are asked after STALEMATE_DRAW static years)"
        )
    question.refused_at = now
    question.save()
    body = render("stalemate_refused.txt.j2", game=game)
    return mail_to_everyone(game, "a player refused the stalemate draw: the game goes on", body)


def waits(game: Game, now: datetime) -> str:
    """Why the phase waits for its deadline (an open question), or "". Asked at every
    readiness check: a game without the option reads no table."""
    if count_option(game, OPTION) == 0 or game.deadline is None or now >= game.deadline:
        return ""
    if open_question(game) is None:
        return ""
    return "STALEMATE_DRAW: the players may refuse the draw until the deadline"


def settle(game: Game, now: datetime) -> list[Outgoing]:
    """By the clock: at the deadline, an unrefused question ends the game in a draw of all
    surviving powers; the game-over mail, or nothing. The master who turns the option
    OFF meanwhile withdraws the question."""
    if count_option(game, OPTION) == 0 or game.deadline is None or now < game.deadline:
        return []
    if open_question(game) is None:
        return []
    outcome = "DRAW " + " ".join(survivors(game))
    finish_game(game, outcome, now)
    return game_over_mails(game, outcome)

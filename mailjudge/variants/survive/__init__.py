"""Survive Diplomacy (seed 002): after each even year the powers vote one of them out.

The vote is held in the adjustment phase after every even year's Fall, which is never
skipped; that phase waits for every ballot (or the deadline). When it is processed the vote
is counted first, so a power voted out makes that phase's adjustments as an outcast
already: no builds, removals by rule 4b. Powers with no centre at any adjustment are out
too. A tie that would leave nobody keeps the phase open for a victor vote of the outcasts
(rule 5b). The last power in play wins; the victory count is the map's centres plus one,
so no ordinary solo ends the game.
"""

from __future__ import annotations

from datetime import datetime

from mailjudge.engine.passive import Passive, Removal
from mailjudge.engine.state import ADJUSTMENT, Position
from mailjudge.game.outcomes import Processed, Readiness, Wait
from mailjudge.game.schedule import deadline_lines, schedule_phase
from mailjudge.game.state import current_position, finish_game, has_rule
from mailjudge.permissions.rows import ALLOW, Row, role
from mailjudge.permissions.vocabulary import Action, Role
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone, mail_to_seat
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants.base import Variant
from mailjudge.variants.events import AfterProcess, BeforeProcess, PhaseEvent
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.questions import BallotInPress, Lines, Refusal, Resign
from mailjudge.variants.survive import outcasts as oc
from mailjudge.variants.survive import public
from mailjudge.variants.survive import vote_out as vo
from mailjudge.variants.survive.tables import Outcast
from mailjudge.variants.web import PublicSection, WebHooks


def _position(game: Game) -> Position:
    return current_position(game)


class SurvivePeople(PeopleHooks):
    def refusal(self, question: Refusal) -> str | None:
        if isinstance(question, Resign):  # rule 8
            return self._resign_refused(question.game, question.seat)
        return None

    def lines(self, question: Lines) -> list[str] | None:
        if isinstance(q := question, BallotInPress):
            return self._ballot_in_press(q.game, q.seat, q.recipients, q.lines)
        return None

    def _resign_refused(self, game: Game, seat: Seat) -> str | None:
        if not game.position:
            return None
        board = current_position(game)
        return oc.resign_refused(game, seat, sum(len(board.units_of(p)) for p in seat.powers))

    def _ballot_in_press(
        self, game: Game, seat: Seat, recipients: tuple[str, ...], lines: tuple[str, ...]
    ) -> list[str]:
        """Seed 002, rule 3: players may send their vote-out to the master as press. The
        VOTE OUT lines of a press to the master alone are one ballot, recorded before the
        press is sent."""
        found = [line.split() for line in lines if line.upper().split()[:2] == ["VOTE", "OUT"]]
        if recipients != ("MASTER",) or not found:
            return []
        allocation = vo.vote_out(game, seat, [w for words in found for w in words[2:]])
        return [
            f"vote-out ballot recorded: {vo.out_text(allocation)} (secret; a later one replaces it)"
        ]


class SurvivePhase(PhaseHooks):
    keep_adjustments_every = 2

    def on(self, event: PhaseEvent) -> list[Outgoing]:
        match event:
            case BeforeProcess(game):
                return self._count_vote(game)
            case AfterProcess(game, done, now):
                return self._after(game, done, now)
        return []

    def passive(self, game: Game, through: int) -> Passive:
        out = oc.outcasts(game, through)
        if game.phase and game.phase.endswith("A"):
            out |= oc.centreless(_position(game))  # rule 4c: out from the adjustment on
        return Passive(out, Removal.LISTED_OFF_CENTRE)

    def victory_count(self, centres: int) -> int | None:
        return centres + 1  # rule 6: only the last power left wins

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        if not oc.is_vote_phase(game.phase) or not standard.ready:
            return standard
        deadline = None if has_rule(game, "NO_DEADLINE") else game.deadline
        passed = deadline is not None and now >= deadline
        if oc.tied(game):
            voters, master_votes = vo.victor_voters(game)
            needed = len(voters) + (1 if master_votes else 0)
            if passed or len(vo.victor_ballots(game)) >= needed:
                return Readiness(True, "the victor vote is complete")
            return Readiness(False, "the outcasts are choosing the victor")
        missing = vo.voters_missing(game)
        if missing and not passed:
            return Readiness(False, f"vote-out ballots are missing from {', '.join(missing)}")
        return standard

    def hold(self, game: Game, now: datetime) -> Wait | None:
        """A vote-out that would put every power in play out opens the victor vote."""
        if not oc.is_vote_phase(game.phase) or oc.tied(game):
            return None
        playing = oc.in_play(game, _position(game), game.sequence - 1)
        out = vo.most_votes(vo.tally(vo.out_ballots(game), playing))
        if len(playing) < 2 or out != frozenset(playing):
            return None
        oc.clear_undone(game)
        oc.record(game, sorted(out), oc.TIED)
        schedule_phase(game, now)  # the victor vote gets a phase length of its own
        voters, master_votes = vo.victor_voters(game)
        mails = []
        for seat in Seat.select().where((Seat.game == game) & (Seat.status == "active")):
            if seat.person is None:
                continue
            body = render(
                "survive/survive_victor_round.txt.j2", game=game, phase=game.phase,
                candidates=sorted(out), voters=voters, master_votes=master_votes,
                deadline=deadline_lines(game, seat),
            )  # fmt: skip
            mails.append(mail_to_seat(seat, f"victor vote {game.phase}", body, "notice"))
        return Wait("the vote-out tie would leave nobody: the outcasts choose the victor", mails)

    def _count_vote(self, game: Game) -> list[Outgoing]:
        """Count the vote before the adjustments, so that outcasts adjust by rule. A
        phase played anew after a ROLLBACK: the outcasts of the undone future go, as its
        phases' records do (its ballots went with the ROLLBACK: service/keeping.py)."""
        pos = _position(game)
        if pos.phase.type != ADJUSTMENT:
            oc.forget_future(game)
            return []
        oc.clear_undone(game)
        candidates = oc.tied(game)
        if candidates:
            victor = vo.choose_victor(game)
            Outcast.update(reason="voted").where(
                (Outcast.game == game) & (Outcast.sequence == game.sequence)
                & Outcast.power.in_([p for p in candidates if p != victor])
            ).execute()  # fmt: skip
            return []
        forced = oc.centreless(pos) - oc.outcasts(game, game.sequence - 1)
        oc.record(game, sorted(forced), "no centres")
        if oc.is_vote_phase(game.phase):
            playing = oc.in_play(game, pos, game.sequence - 1)
            oc.record(game, sorted(vo.most_votes(vo.tally(vo.out_ballots(game), playing))), "voted")
        return []

    def _after(self, game: Game, done: Processed, now: datetime) -> list[Outgoing]:
        """Publish who went out (names only) and end the game when one power is left."""
        if not done.phase.endswith("A"):
            return []
        sequence = game.sequence - 1
        happened = oc.of_phase(game, sequence)
        victor = next(iter(happened.get(oc.TIED, [])), None)
        left = oc.in_play(game, done.outcome.next, sequence)
        winner = left[0] if len(left) == 1 else None
        if winner is not None and game.state != GameState.FINISHED:
            finish_game(game, f"WIN {winner}", now)
        is_vote = oc.is_vote_phase(done.phase)
        if not happened and not winner and not is_vote:
            return []
        body = render(
            "survive/survive_outcome.txt.j2", game=game, phase=done.phase, is_vote=is_vote,
            forced=happened.get("no centres", []),
            voted=[] if victor else happened.get("voted", []),
            victor=victor, winner=winner,
        )  # fmt: skip
        # Outcasts' players are told too: they keep their seats.
        return mail_to_everyone(game, f"vote-out {done.phase}", body, done.phase)


class SurviveWeb(WebHooks):
    def public_sections(self, game: Game) -> list[PublicSection]:
        return public.sections(game)


class Survive(Variant):
    name = "survive"
    commands_module = "mailjudge.variants.survive.commands"
    tables = (Outcast,)
    permission_rows = (
        Row(Action.VOTE_VICTOR, role(Role.MASTER), ALLOW,
            "the master breaks an even victor vote (Survive)"),
    )  # fmt: skip
    phase = SurvivePhase()
    people = SurvivePeople()
    web = SurviveWeb()

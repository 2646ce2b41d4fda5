"""Diplonomic (seed 003): teammates, rule changes voted by the contestants, a rules text.

What the variant changes in the game itself:
- a new turn (each movement phase) begins with the rule 8 duties: proposals voted on last
  turn are resolved, then those sent last turn are published (variants/diplonomic/rule_changes.py);
- rule 9: when no supply centre changed owner in three game years the master is told, and
  DECLARE DRAW ends the game two days later with every remaining contestant winning;
- rule 16: 18 centres after a Fall win, teammates included unless NO_TEAMMATE_WINS;
- rule 24: a power whose contestant left and was not replaced (vacant, or a DUMMY) is in
  civil disorder: its units hold without supporting each other, disband when dislodged,
  never build, and are removed farthest from home first, fleets before armies, then by
  province name. A country that sends no orders for one phase gets the same defaults
  for that phase, its removals too (CIVIL_DISORDER is on by default, but its random
  removals of seed 001 give way to rule 24's "farthest from the country first");
- rule 15: the RULE15 timing, on by default (orders due at 12:00 UTC, a day after the day
  of negotiation), with ALWAYS_WAIT so orders can change until the deadline; retreats
  and builds may be given with the movement orders (variants/diplonomic/rule15.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from mailjudge.engine.passive import Passive, Removal
from mailjudge.engine.timing import show
from mailjudge.game import stalemate
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Readiness
from mailjudge.game.state import current_position, game_map, has_rule, phase_of
from mailjudge.permissions.rows import DENY, Row, role
from mailjudge.permissions.vocabulary import Action, Role
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone, mail_to_seat
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants.base import Variant
from mailjudge.variants.diplonomic import advisors, convoys, kept, public, rule15
from mailjudge.variants.diplonomic import rule_changes as rc
from mailjudge.variants.diplonomic import teammates as tm
from mailjudge.variants.diplonomic.tables import Rulebook
from mailjudge.variants.events import (
    AfterProcess,
    ClockTick,
    DrawDeclared,
    PeopleEvent,
    PhaseEvent,
    Resigned,
    Started,
    TookOver,
)
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.questions import (
    DrawNow,
    InAdvance,
    Lines,
    Orders,
    PowerNotes,
    ProposeDraw,
    Refusal,
    StandIn,
)
from mailjudge.variants.web import PublicSection, WebHooks

if TYPE_CHECKING:
    from mailjudge.engine.phases import PhaseOutcome

STATIC_YEARS = 3  # rule 9
DRAW_NOTICE = timedelta(days=2)


def with_teammates(game: Game, outcome: str, powers: list[str]) -> str:
    """'WIN FRANCE' -> 'WIN FRANCE with teammates bob, carol' (rule 7), unless the master
    ruled otherwise (NO_TEAMMATE_WINS)."""
    names = [] if has_rule(game, "NO_TEAMMATE_WINS") else tm.of_powers(game, powers)
    return f"{outcome} with teammates {', '.join(names)}" if names else outcome


def static_since(game: Game, year: int) -> int | None:
    """Rule 9: the first of the last STATIC_YEARS years in which no centre changed owner,
    when the year ``year`` has just ended that way; None otherwise (game/stalemate.py,
    which STALEMATE_DRAW counts with too)."""
    return stalemate.static_since(game, year, STATIC_YEARS)


class DiplonomicWeb(WebHooks):
    def public_sections(self, game: Game) -> list[PublicSection]:
        return public.sections(game)


class DiplonomicPeople(PeopleHooks):
    def refusal(self, question: Refusal) -> str | None:
        match question:
            case StandIn():
                # Rule 24: "If a Contestant leaves the game or eir country otherwise fails
                # to submit orders on a given Spring or Fall turn, ... Eir units all hold in
                # position, but don't support each other." The rules text says how a silent
                # country plays, so the stand-in, which supports, never plays one.
                return (
                    "in Diplonomic a country that sends no orders is played by rule 24 (its "
                    "units hold and do not support each other), not by the stand-in"
                )
            case Orders(game, power, texts):  # rule 17: a move by convoy names its path
                return convoys.refusal(game_map(game), current_position(game), power, list(texts))
            case ProposeDraw():
                return "in Diplonomic only the master declares a draw (rule 9: DECLARE DRAW)"
            case DrawNow():
                return "rule 9: a declared draw takes effect two days later"
        return None

    def lines(self, question: Lines) -> list[str] | None:
        match question:
            case InAdvance(game, seat, words):
                return [self._in_advance(game, seat, words)]
            case PowerNotes(game, power):
                return self._advisors(game, power)
        return None

    def on(self, event: PeopleEvent) -> list[Outgoing]:
        match event:
            case TookOver(game, seat):
                return self._took_over(game, seat)
            case Resigned(game, seat):
                return self._resigned(game, seat)
        return []

    def _in_advance(self, game: Game, seat: Seat, words: tuple[str, ...]) -> str:
        """Rule 15: IF DISLODGED / IF ADJUSTING with the movement orders."""
        if len(words) < 2:
            raise ServiceError(f"write {rule15.USAGE}")
        phase, power, order = rule15.file_advance_order(game, seat, words[0], " ".join(words[1:]))
        return f"for {power} in {phase}, if it comes to that: {order}"

    def _advisors(self, game: Game, power: str) -> list[str]:
        """A country's advisors (rule 5), each with the help they give."""
        return [
            f"advisor {name}" + (f": {aid}" if aid else "")
            for name, aid in sorted(advisors.advisors(game, power).items())
        ]

    def _took_over(self, game: Game, seat: Seat) -> list[Outgoing]:
        """Rules 24 and 25: the replacement contestant's assignment is published."""
        body = (
            f"Diplonomic, game {game.name}: {seat.powers} has a new contestant, who took it"
            " over (rule 24); the assignments of the Great Powers are published (rule 25):"
            f" LIST {game.name} shows them."
        )
        return mail_to_everyone(game, f"{seat.powers} has a new contestant", body)

    def _resigned(self, game: Game, seat: Seat) -> list[Outgoing]:
        """Rule 24: a contestant who leaves is to be replaced by the Gamemaster, so the
        master and everyone else are told (a teammate who leaves is not a contestant)."""
        if seat.role != "player" or game.state not in (GameState.ACTIVE, GameState.PAUSED):
            return []
        who = seat.public_name or f"the contestant of {seat.powers}"
        body = render(
            "diplonomic/contestant_left.txt.j2", game=game, who=who, powers=str(seat.powers)
        )
        return mail_to_everyone(game, f"{seat.powers} has no contestant (rule 24)", body)


class DiplonomicPhase(PhaseHooks):
    replace_the_late = True
    random_removals = False  # rule 24: a silent country's units go farthest first
    passive_note = (
        "is in civil disorder (rule 24) and takes no orders: its units hold without"
        " supporting each other, disband when dislodged and never build"
    )

    def on(self, event: PhaseEvent) -> list[Outgoing]:
        match event:
            case Started(game, _, now):
                return self._start(game, now)
            case AfterProcess(game, _, now):
                return self._after(game, now)
            case ClockTick(game, now):
                return self._tick(game, now)
            case DrawDeclared(game, now):
                return self._declare_draw(game, now)
        return []

    def passive(self, game: Game, through: int) -> Passive:
        """Rule 24: a contestant who left and was not replaced (vacant or DUMMY)."""
        seats = Seat.select().where((Seat.game == game) & (Seat.role == "player"))
        collapsed = {p for s in seats if s.person_id is None or s.dummy for p in s.powers}
        return Passive(frozenset(collapsed), Removal.FARTHEST)

    def victory_count(self, centres: int) -> int | None:
        return centres // 2 + 1  # rule 16: 18 on the standard map

    def _start(self, game: Game, now: datetime) -> list[Outgoing]:
        mails = self._assignments(game, now)
        current = rc.latest(game)
        if current is None:
            return mails
        body = render("diplonomic/rulebook.txt.j2", game=game, rulebook=current)
        subject = f"the rules, version {current.version}"
        return mails + mail_to_everyone(game, subject, body)

    def _assignments(self, game: Game, now: datetime) -> list[Outgoing]:
        """Rule 25: "The Gamemaster SHALL ... publish the assignments of Great Powers and
        announce the day on which the game will begin." Each contestant by the public
        name chosen with JOIN ... AS name (never one made from an address)."""
        rows = []
        for seat in Seat.select().where((Seat.game == game) & (Seat.role == "player")):
            if seat.dummy or seat.person_id is None:
                who = "nobody: in civil disorder (rule 24)"
            else:
                who = seat.public_name or "a contestant who chose no public name"
            rows.append((str(seat.powers), who))
        body = render(
            "diplonomic/assignments.txt.j2", game=game, rows=sorted(rows),
            began=show(game.started_at or now, game.timezone),
            deadline=show(game.deadline, game.timezone) if game.deadline else "",
        )  # fmt: skip
        return mail_to_everyone(game, "the assignments of the Great Powers", body)

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        """Rule 15: retreats and adjustments given in advance let their phase go ahead
        without waiting for its deadline."""
        if standard.ready or not rule15.ready_early(game, standard):
            return standard
        return Readiness(True, "rule 15: every order for this phase was given in advance")

    def keep(self, game: Game) -> dict[str, Any]:
        """Rule 8's changes: the rules version in force, the proposals and their votes."""
        return kept.keep(game)

    def restore(self, game: Game, keep: dict[str, Any]) -> None:
        kept.restore(game, keep)

    def _after(self, game: Game, now: datetime) -> list[Outgoing]:
        if game.state == GameState.ACTIVE:
            rule15.drop_undislodged(game)
        if game.state != GameState.ACTIVE or not (game.phase or "").endswith("M"):
            return []
        mails = rc.at_turn_start(game, now)
        phase = phase_of(game)
        if phase.startswith("S"):
            mails += self._static_notice(game, int(phase[1:5]) - 1)
        return mails

    def _static_notice(self, game: Game, year: int) -> list[Outgoing]:
        first = static_since(game, year)
        master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
        if first is None or master is None or master.person_id is None:
            return []
        powers = [p for s in rc.contestants(game) for p in s.powers]
        teammates = bool(tm.of_powers(game, powers))
        body = render(
            "diplonomic/static_ownership.txt.j2",
            game=game,
            first=first,
            last=year,
            teammates=teammates,
        )
        return [mail_to_seat(master, f"no centre changed owner in {first}-{year}", body, "notice")]

    def ending(self, game: Game, outcome: PhaseOutcome) -> str | None:
        if not outcome.winners:
            return None
        winners = sorted(outcome.winners)
        return with_teammates(game, "WIN " + " ".join(winners), winners)

    def _declare_draw(self, game: Game, now: datetime) -> list[Outgoing]:
        """Rule 9: allowed after three static years; takes effect two days later."""
        phase = phase_of(game)
        year = int(phase[1:5]) - (0 if phase.startswith("W") else 1)
        if static_since(game, year) is None:
            raise NotAllowed(
                "rule 9 allows a draw only when no supply centre has changed owner in the"
                f" past three game years; that is not so after {year}"
            )
        when = now + DRAW_NOTICE
        game.variant_state = {**game.variant_state, "draw_at": when.isoformat()}
        game.save()
        winners = self._draw(game)
        body = render(
            "diplonomic/draw_notice.txt.j2",
            game=game,
            when=show(when, game.timezone),
            winners=winners,
        )
        return mail_to_everyone(game, "a draw is declared", body)

    def _draw(self, game: Game) -> str:
        powers = sorted(p for s in rc.contestants(game) for p in s.powers)
        return with_teammates(game, "DRAW " + " ".join(powers), powers)

    def _tick(self, game: Game, now: datetime) -> list[Outgoing]:
        due = game.variant_state.get("draw_at")
        if not due or now < datetime.fromisoformat(due):
            return []
        outcome = self._draw(game)
        state = {k: v for k, v in game.variant_state.items() if k != "draw_at"}
        won = (
            Game.update(
                state=GameState.FINISHED, outcome=outcome, finished_at=now, deadline=None,
                deadline_sequence=Game.deadline_sequence + 1, variant_state=state,
            )
            .where((Game.id == game.id) & (Game.state == GameState.ACTIVE))
            .execute()
        )  # fmt: skip
        if won == 1:  # else another judge process ended it, or it ended otherwise
            game.__data__.update(Game.get_by_id(game.id).__data__)
        # The notice that the game is over is the clock's to send (service/deadlines), as
        # for every ending: with the deadline withdrawn from the calendars.
        return []


class Diplonomic(Variant):
    name = "diplonomic"
    tables = (Rulebook,)
    roles = ("teammate",)  # a non-contestant assisting a contestant (rule 7)
    seat_fields = ("assists", "authorized")  # the contestant assisted; may order for it
    default_rules = "+CIVIL_DISORDER +ALWAYS_WAIT"
    permission_rows = (
        Row(Action.ORDERS, role(Role.TEAMMATE), DENY,
            "a teammate orders only when the player AUTHORIZEs it"),
    )  # fmt: skip
    default_timing = "RULE15"
    commands_module = "mailjudge.variants.diplonomic.commands"
    phase = DiplonomicPhase()
    people = DiplonomicPeople()
    web = DiplonomicWeb()

"""The mail a processed phase causes, built here and nowhere else, whoever processed it (the
master's PROCESS, the last orders in, the clock, ROLLFORWARD): the results, one to each
person seated in the game with their own deadline lines and the board drawn once for all;
the variant's notices; and the notice that the game is over. The words come from
render/results.py; this module reads the game to address them."""

from __future__ import annotations

from typing import Any

from mailjudge.engine.state import Phase
from mailjudge.engine.timing import zone_of
from mailjudge.game import fog
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.outcomes import Processed
from mailjudge.game.pictures import picture_for, played_picture
from mailjudge.game.schedule import deadline_lines, timing_of
from mailjudge.game.state import game_map, has_rule, web_link
from mailjudge.outbound.message import board_cid
from mailjudge.render import render
from mailjudge.render.board.closeup import MailCloseup, mail_closeup
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.render.results import facts_of, report
from mailjudge.service import openings, ratings
from mailjudge.service.ready_block import ready_lines
from mailjudge.store.models import BoardPicture, Game, GameState, PhaseRecord, Seat


def njudge_header(game: Game, link: str | None) -> list[str]:
    """njudge's lines at the top of a results mail, which the tools players use to file
    and read njudge results look for: the judge, game and variant; the next phase and
    its deadline; the game's page."""
    from mailjudge.config.settings import current_settings

    judge = current_settings().judge
    label = (judge.name or judge.address.partition("@")[0]).replace(" ", "_")
    lines = [f":: Judge: {label}  Game: {game.name}  Variant: {game.variant.capitalize()}"]
    if game.state == GameState.ACTIVE and game.phase:
        when = ""
        if game.deadline is not None:
            local = game.deadline.astimezone(zone_of(timing_of(game).zone))
            when = " " + local.strftime("%a %b %d %Y %H:%M %z")
        lines.append(f":: Deadline: {game.phase}{when}")
    if link:
        lines.append(f":: URL: {link}")
    return lines


def phase_mails(game: Game, done: Processed, reprocessed: bool = False) -> list[Outgoing]:
    """Every mail a processed phase causes: its results, the notices of the variant's phase protocol
    (before, after or instead of processing), and, when this phase ended the game, the
    notice that it is over. ``reprocessed``: the phase was adjudicated again (ROLLFORWARD)."""
    mails = results_mails(game, done, reprocessed) + list(done.notices)
    mails += openings.after_phase(game, done)  # civil disorder opens a power; the end closes
    if game.state == GameState.FINISHED and game.phase == done.next_phase and not done.waiting:
        # The phase the game ended on was never given a deadline: no event to cancel.
        mails += game_over_mails(game, game.outcome, cancel_deadline=False)
    return mails


def game_over_mails(game: Game, outcome: str, cancel_deadline: bool = True) -> list[Outgoing]:
    """The notice that the game is over, to every person seated in it, however it ended (a
    phase processed, a vote, the master's DECLARE DRAW). Ended by a vote or a draw, the
    current phase's deadline is withdrawn from the calendars of those invited to it. The
    ratings take the result in here, once (service/ratings.py)."""
    ratings.rate_game(game)
    body = render("game_over.txt.j2", game=game, outcome=outcome)
    subject = f"the game is over: {outcome.lower()}"
    mails = []
    for seat in Seat.select().where(Seat.game == game):
        if seat.person is None:
            continue
        mail = mail_to_seat(seat, subject, body, "notice")
        if cancel_deadline:
            mail.calendar = invitation_ics(game, seat, Change.GONE)
        mails.append(mail)
    return mails


def results_mails(game: Game, done: Any, reprocessed: bool = False) -> list[Outgoing]:
    """The results of a processed phase, to every player, the master and every observer:
    a text part, and an HTML part that shows the board (drawn once for all of them).
    A phase kept open for another round (``done.waiting``) has none. ``reprocessed``
    marks the results of a phase the master's ROLLFORWARD adjudicated again."""
    if getattr(done, "waiting", ""):
        return []
    record = processed_record(game, done.phase)
    before = record.position.get("sc_owners") if record is not None else None
    facts = facts_of(done.results, done.outcome, before, game.map_name)
    views = SeatViews(game, done, record, facts)
    mails = []
    link = web_link(game, done.phase)
    header = njudge_header(game, web_link(game))
    for seat in Seat.select().where(Seat.game == game):
        # An observer gets results once its address confirmed, and until it said STOP.
        if seat.person is None or (seat.role == "observer" and seat.status != "active"):
            continue
        words, picture = views.of(seat)
        shown = picture is not None and picture.png is not None  # the PNG in the HTML part
        context = {
            "game": game, "phase": done.phase, "r": words, "seat": seat,
            "deadline": deadline_lines(game, seat), "reprocessed": reprocessed,
            "web_link": link, "header": header, "pictured": shown,
            "ready": ready_lines(game, seat),
        }  # fmt: skip
        body = render("results.txt.j2", **context)
        subject = f"results {done.phase}" + (" (re-processed)" if reprocessed else "")
        mail = mail_to_seat(seat, subject, body, "results", done.phase)
        mail.calendar = results_calendar(game, seat, done)
        if picture is not None:
            mail.html = render(
                "results.html.j2", **context, text=body, cid=board_cid(picture.id),
                png=picture.png is not None, phase_name=Phase.parse(done.phase).long_name(),
                closeup=seat_closeup(game, seat, done, picture.png),
            )  # fmt: skip
            mail.board = picture.id
        mails.append(mail)
    return mails


def seat_closeup(game: Game, seat: Seat, done: Any, png: bytes | None) -> MailCloseup | None:
    """The part of the mailed board around the seat's powers after the phase (a player's,
    a team's); none for the master, an observer or a board with no PNG."""
    if png is None or not seat.powers or seat.role in ("master", "observer"):
        return None
    return mail_closeup(game_map(game), done.outcome.after, list(seat.powers), png)


class SeatViews:
    """The words and board of a phase's results for each seat: one for all who see the
    game whole, one for each set of powers under fog of war (game/fog.py)."""

    def __init__(self, game: Game, done: Any, record: PhaseRecord | None, facts: Any) -> None:
        self.game, self.done, self.record, self.facts = game, done, record, facts
        self.seen: dict[frozenset[str] | None, tuple[dict[str, Any], BoardPicture | None]] = {}

    def of(self, seat: Seat) -> tuple[dict[str, Any], BoardPicture | None]:
        eyes = fog.eyes_of(self.game, seat)
        if eyes not in self.seen:
            self.seen[eyes] = self._view(eyes)
        return self.seen[eyes]

    def _view(self, eyes: frozenset[str] | None) -> tuple[dict[str, Any], BoardPicture | None]:
        game, record, facts = self.game, self.record, self.facts
        if eyes is not None and record is not None:
            facts = fog.fogged_facts(game, facts, record.position, eyes)
        words = report(facts, has_rule(game, "BUILD_ANY"), has_rule(game, "CIVIL_DISORDER"))
        words.update(outcome_words(game, self.done, words["winners"]))
        if record is None:
            return words, None
        if eyes is None:
            return words, played_picture(game, record)
        board = fog.fogged_position(game, record.position, eyes)
        rows = fog.fogged_rows(game, record.position, record.results["results"], eyes)
        return fog.fogged_words(words, eyes), picture_for(game, record.sequence, board, rows)


def results_calendar(game: Game, seat: Seat, done: Any) -> bytes | None:
    """The invitation in the results to ``seat``: the next phase's deadline (NEW); when the
    game ended on a phase processed before its deadline, that deadline withdrawn (GONE).
    (A phase processed early in a game that goes on leaves its event to pass: the one
    invitation a mail may carry is the next deadline's.)"""
    if game.state == GameState.FINISHED and getattr(done, "early", False):
        return invitation_ics(game, seat, Change.GONE, phase=done.phase)
    return invitation_ics(game, seat, Change.NEW)


def outcome_words(game: Game, done: Any, winners: list[str]) -> dict[str, Any]:
    """The results say what the game's variant decided, not what the centre count alone
    would: a power at the count has won only when the game ended with that win (seed 004,
    Lytton: a two-power solo outranks it, equal solos vote on a joint win first)."""
    from mailjudge.variants import variant_of  # the variants import this module

    ended = game.state == GameState.FINISHED and game.phase == done.next_phase and game.outcome
    if ended:
        if game.outcome == "WIN " + " ".join(winners):
            return {}  # "The game is won by FRANCE."
        return {"winners": [], "ending": game.outcome}
    return {"winners": [], "pending": variant_of(game).phase.pending_outcome(game)}


def processed_record(game: Game, phase: str) -> PhaseRecord | None:
    """The stored record of the phase just processed (the latest of that name)."""
    found: PhaseRecord | None = (
        PhaseRecord.select()
        .where((PhaseRecord.game == game) & (PhaseRecord.phase == phase))
        .order_by(PhaseRecord.sequence.desc())
        .first()
    )
    return found

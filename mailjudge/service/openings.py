"""What opening a power and taking it over cause: the openings mail to the addresses that
asked for it, the power opened when it falls into civil disorder and closed when its
player is back or it is out, and a takeover's extension of the deadline (the game's
TAKEOVER_EXTENSION, once a phase) told to everyone in the game. The rows and the public
view are game/openings.py's."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from mailjudge.engine.phases import ResultRow
from mailjudge.game import openings, schedule
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.errors import NotAllowed
from mailjudge.game.options import length_option
from mailjudge.game.outcomes import Processed
from mailjudge.game.state import (
    current_position,
    game_map,
    has_rule,
    is_public,
    players,
    power_title,
)
from mailjudge.models import Game, GameState, Opening, Seat, utcnow
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.service import seats
from mailjudge.service.standin import away_with_standin
from mailjudge.settings import current_settings
from mailjudge.timing import format_length
from mailjudge.variants import variant_of

PHASE_TYPES = {"M": "movement", "R": "retreat", "A": "adjustment"}


def announce(game: Game, powers: Iterable[str], reason: str, now: datetime) -> list[Outgoing]:
    """Open each power and tell the subscribers of the new openings (a power open already
    is not told again; a game the public may not see opens rows but tells nobody)."""
    mails: list[Outgoing] = []
    for power in powers:
        row = openings.open_power(game, power, reason, now)
        if row is not None and is_public(game):
            mails += _to_subscribers(row)
    return mails


def _to_subscribers(row: Opening) -> list[Outgoing]:
    shown = openings.view(row)
    if shown is None:
        return []
    settings = current_settings()
    base = str(settings.web.base_url or "").rstrip("/")
    body = render("openings_new.txt.j2", opening=shown, judge=settings.judge.address,
                  page=f"{base}/openings" if base else "")  # fmt: skip
    subject = f"opening: {shown.title} in {shown.game} ({shown.phase})"
    return [Outgoing(to=[address], subject=subject, body=body, kind="notice", game=shown.game)
            for address in openings.subscribers()]  # fmt: skip


def after_phase(game: Game, done: Processed) -> list[Outgoing]:
    """A processed phase: under CIVIL_DISORDER the powers whose player sent no orders are
    opened, and those whose player ordered again are closed; vacant powers (a dummy since
    START) are opened; powers out of the game, and a finished game's, are closed."""
    now = utcnow()
    if game.state not in (GameState.ACTIVE, GameState.PAUSED):
        for power in openings.open_powers(game):
            openings.close_power(game, power, "over", now)
        return []
    pos = current_position(game)
    alive = {u.power for u in pos.units.values()} | set(pos.sc_owners.values())
    for power in openings.open_powers(game):
        if power not in alive:
            openings.close_power(game, power, "out", now)
    idle, ordered = _idle_powers(done.results)
    passive = variant_of(game).passive(game, game.sequence).powers
    # A player away who asked for the stand-in is not gone: their power stays theirs.
    away = away_with_standin(game, players(game), now)
    mails: list[Outgoing] = []
    held_by_nobody = game_map(game).dummies  # the map's own dummies never need a player
    for seat in players(game):
        mine = [p for p in seat.powers if p in alive and p not in held_by_nobody]
        if seat.person_id is None:
            reason = str(seat.status) if seat.status in ("resigned", "ejected") else "dummy"
            mails += announce(game, mine, reason, now)
            continue
        for power in mine:
            if power in passive or power in away:  # passive: nobody orders it by the rules
                continue
            if power in idle and has_rule(game, "CIVIL_DISORDER"):
                mails += announce(game, [power], "civil disorder", now)
            elif power in ordered:
                row = openings.open_row(game, power)
                if row is not None and row.reason == "civil disorder":
                    openings.close_power(game, power, "returned", now)
    return mails


def _idle_powers(results: list[ResultRow]) -> tuple[set[str], set[str]]:
    """(the powers all of whose results were the engine's defaults, those that ordered)."""
    own: dict[str, bool] = {}
    for row in results:
        # The stand-in's orders are not the player's: the power is as silent as with defaults.
        by_player = not row["default"] and not row.get("standin")
        mine = by_player and row["outcome"] != "civil disorder"
        own[row["power"]] = own.get(row["power"], False) or mine
    return {p for p, o in own.items() if not o}, {p for p, o in own.items() if o}


def take_over(
    game: Game, power: str, email: str, password: str, now: datetime
) -> tuple[Seat, list[Outgoing], list[str]]:
    """TAKEOVER of a vacant power, or of one open because it fell into civil disorder (its
    absent player is told it went to someone else). The opening closes; the deadline
    moves by TAKEOVER_EXTENSION unless a takeover moved it this phase already; everyone
    in the game is told. The seat, the mail, and lines for the answer."""
    seat = seats.seat_for_power(game, power)
    row = openings.open_row(game, power)
    mails: list[Outgoing] = []
    if not seats.is_vacant(seat):
        if row is None or (seat.person is not None and seat.person.email == email.lower()):
            raise NotAllowed(
                f"{power.upper()} has a player; only a vacant power can be taken over, or "
                "one open in civil disorder (the openings: OPENINGS by mail, /openings on "
                "the web)"
            )
        mails.append(_to_replaced(seat))
        seats.eject(game, power)
    seat = seats.takeover(game, power, email, password)
    for held in seat.powers:
        openings.close_power(game, held, "taken", now)
    if row is None:  # a vacant power never announced (from before openings were kept)
        row = Opening.create(
            game=game, power=power.upper(), reason="dummy", phase=game.phase or "",
            sequence=game.sequence, closed_at=now, closed_why="taken",
        )  # fmt: skip
    moved = _extend(game, row, now)
    mails += _tell_everyone(game, seat, moved, now)
    lines = []
    if moved is not None:
        lines.append(f"the deadline of {game.phase} moved by {format_length(moved)} for you "
                     "to find your feet; everyone in the game is told")  # fmt: skip
    return seat, mails, lines


def _extend(game: Game, row: Opening, now: datetime) -> timedelta | None:
    """Move the deadline by TAKEOVER_EXTENSION, once a phase; the length moved, or None."""
    if game.state != GameState.ACTIVE or game.deadline is None or not game.phase:
        return None
    if openings.extended_this_phase(game):
        return None
    phase_type = PHASE_TYPES[game.phase[-1]]
    length = length_option(game, "TAKEOVER_EXTENSION", schedule.timing_of(game).length(phase_type))
    if not length:
        return None
    schedule.set_deadline(game, max(game.deadline, now) + length, now)
    # An update of the one column: ``row`` was read before the takeover closed it.
    Opening.update(extended_sequence=game.sequence).where(Opening.id == row.id).execute()
    return length


def _tell_everyone(
    game: Game, taken: Seat, moved: timedelta | None, now: datetime
) -> list[Outgoing]:
    """A notice to each person in the game (the master and the newcomer too), with the new
    deadline in their own zone and, when it moved, their calendar's event moved."""
    mails = []
    for seat in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
    ):  # fmt: skip
        body = render(
            "openings_taken.txt.j2", game=game, powers=_titles(game, taken.powers),
            mine=seat.id == taken.id,
            moved=format_length(moved) if moved else "",
            deadline=deadline_lines(game, seat.person) if game.state == GameState.ACTIVE else [],
        )  # fmt: skip
        mail = mail_to_seat(seat, f"{' '.join(_titles(game, taken.powers))} has a new player", body,
                            "notice")  # fmt: skip
        if moved is not None:
            mail.calendar = invitation_ics(game, seat, Change.MOVED, now=now)
        mails.append(mail)
    return mails


def _to_replaced(seat: Seat) -> Outgoing:
    shown = _titles(seat.game, seat.powers)
    body = render("openings_replaced.txt.j2", game=seat.game, powers=shown)
    return mail_to_seat(seat, f"you no longer play {' '.join(shown)}", body,
                        "notice")  # fmt: skip


def _titles(game: Game, powers: Iterable[str]) -> list[str]:
    """The powers as people read them ("British Columbia")."""
    return [power_title(game, power) for power in powers]

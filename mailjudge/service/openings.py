"""What opening a power and taking it over cause: the openings mail to the addresses that
asked for it, the power opened when its player leaves or really misses a deadline and
closed when its player is back or it is out, a takeover (from an address the judge never
had an answer from, once it answers its CONFIRM), its extension of the deadline (the
game's TAKEOVER_EXTENSION, once a phase) told to everyone in the game, and the master's
UNDO TAKEOVER. The rows and the public view are game/openings.py's.

A power is an opening only when its player resigned, was ejected or made a dummy by the
master, or really missed a deadline (service.records.missed_deadline: civil disorder
after the grace, not excused; an early PROCESS! takes nobody's power); and never when the
variant says it is not one (Democratic: a country is its citizens', who come by JOIN).
A takeover takes exactly the seat that is open (the variant finds it: in Double, of a
power's two seats, the vacant one), never a partner who still plays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from mailjudge.config.settings import current_settings
from mailjudge.engine.phases import ResultRow
from mailjudge.engine.timing import format_length
from mailjudge.game import confirmations, guard, openings, schedule
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.errors import NotAllowed, NotFound
from mailjudge.game.options import length_option
from mailjudge.game.outcomes import Processed
from mailjudge.game.state import (
    current_position,
    game_map,
    has_rule,
    is_public,
    orders_on_file,
    players,
    power_title,
)
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.secrecy.passwords import hash_password
from mailjudge.service import records, seats
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.standin import away_with_standin
from mailjudge.store.models import Game, GameState, Opening, PhaseRecord, Seat, utcnow
from mailjudge.variants import VARIANTS, variant_of
from mailjudge.variants.events import TookOver
from mailjudge.variants.questions import Open

PHASE_TYPES = {"M": "movement", "R": "retreat", "A": "adjustment"}
CIVIL_DISORDER = "civil disorder"


def announce(game: Game, powers: Iterable[str], reason: str, now: datetime) -> list[Outgoing]:
    """Open each power and tell the subscribers of the new openings (a power open already
    is not told again; a game the public may not see opens rows but tells nobody; a power
    the variant says is never an opening is not opened)."""
    variant = variant_of(game)
    mails: list[Outgoing] = []
    for power in powers:
        if variant.people.refusal(Open(game, power)) is not None:
            continue
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


def _alive(game: Game) -> set[str]:
    pos = current_position(game)
    return {u.power for u in pos.units.values()} | set(pos.sc_owners.values())


def after_phase(game: Game, done: Processed) -> list[Outgoing]:
    """A processed phase: under CIVIL_DISORDER a seat whose player sent no orders and
    really missed the deadline (``done.missed``) has its powers opened, and a power whose
    player ordered again is closed; vacant powers (a dummy since START) are opened; powers
    out of the game, those the variant says are never openings, and a finished game's
    are closed."""
    now = utcnow()
    if game.state not in (GameState.ACTIVE, GameState.PAUSED):
        for power in openings.open_powers(game):
            openings.close_power(game, power, "over", now)
        return []
    alive = _alive(game)
    variant = variant_of(game)
    for power in openings.open_powers(game):
        if power not in alive:
            openings.close_power(game, power, "out", now)
        elif variant.people.refusal(Open(game, power)) is not None:
            openings.close_power(game, power, "never", now)  # opened before the variant said
    idle, ordered = _idle_powers(done.results)
    passive = variant.phase.passive(game, game.sequence).powers
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
        # Passive: nobody orders it by the rules.
        playing = [p for p in mine if p not in passive and p not in away]
        silent = bool(playing) and all(p in idle for p in playing)
        if silent and seat.id in done.missed and has_rule(game, "CIVIL_DISORDER"):
            mails += announce(game, playing, CIVIL_DISORDER, now)
            continue
        for power in playing:
            row = openings.open_row(game, power) if power in ordered else None
            if row is not None and row.reason == CIVIL_DISORDER:
                openings.close_power(game, power, "returned", now)
    return mails


def _idle_powers(results: list[ResultRow]) -> tuple[set[str], set[str]]:
    """(the powers all of whose results were the engine's defaults, those that ordered)."""
    own: dict[str, bool] = {}
    for row in results:
        # The stand-in's orders are not the player's: the power is as silent as with defaults.
        by_player = not row["default"] and not row.get("standin")
        mine = by_player and row["outcome"] != CIVIL_DISORDER
        own[row["power"]] = own.get(row["power"], False) or mine
    return {p for p, o in own.items() if not o}, {p for p, o in own.items() if o}


@dataclass
class TakenOver:
    """A TAKEOVER's outcome: the seat taken (None while it waits for the CONFIRM of the
    token mailed to the taker), the mail it causes, and lines for the answer."""

    seat: Seat | None
    mails: list[Outgoing] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def take_over(
    game: Game, name: str, email: str, password: str, now: datetime, proven: bool
) -> TakenOver:
    """TAKEOVER of ``name`` (a power, or in Double a seat's name): the seat the variant
    finds, if it is open (vacant, or its player really missed a deadline). From an address
    the judge never had an answer from (not ``proven``) it waits for the CONFIRM of a token
    mailed there, as a Democratic JOIN does: a forged From takes nothing."""
    seat = variant_of(game).people.takeover_seat(game, name)
    if seat is None:
        powers = ", ".join(p.lower() for p in game_map(game).power_names)
        raise NotFound(f"{name!r} is not a power in game {game.name}; its powers: {powers}")
    _check_open(game, seat, email, name)
    seats.check_takeover(game, seat, email)
    hashed = hash_password(password)
    if proven:
        return _take(game, seat, email, hashed, now)
    token = confirmations.new_takeover_token(seat, email, hashed)
    hours = current_settings().security.confirm_hours
    return TakenOver(None, lines=[
        f"you take over {seat.powers} in {game.name} once this address confirms: answer this "
        "mail with the line",
        f"    CONFIRM {token}",
        f"from this address, within {hours} hours. Until then the power is not yours, and it "
        "goes to whoever confirms first.",
    ])  # fmt: skip


def confirm_takeover(token: str, sender: str, now: datetime) -> TakenOver | None:
    """CONFIRM of a TAKEOVER's token from the address it went to: the seat is taken, if
    it is still open and the taker may still take it; None when the token is not a
    takeover's."""
    waiting = confirmations.takeover_waiting(token, sender)
    if waiting is None:
        return None
    guard.mark_proven(sender, now)  # it answered the judge's mail
    seat: Seat = waiting.seat
    game = Game.get_by_id(seat.game.id)  # read afresh: the takeover moves its deadline
    seat.game = game
    _check_open(game, seat, sender, str(seat.powers))
    seats.check_takeover(game, seat, sender)
    return _take(game, seat, sender, str(waiting.password_hash), now)


def _check_open(game: Game, seat: Seat, email: str, name: str) -> None:
    """Refuse a takeover of ``seat`` unless it is open: the game under way, the variant
    lets its powers open, and the seat vacant or its player in civil disorder (every power
    of theirs still in the game open for it)."""
    if game.state not in (GameState.ACTIVE, GameState.PAUSED):
        raise NotAllowed(
            f"game {game.name} is {game.state}; TAKEOVER is for games under way (a forming "
            "game takes JOIN)"
        )
    variant = variant_of(game)
    for power in seat.powers:
        refusal = variant.people.refusal(Open(game, power))
        if refusal is not None:
            raise NotAllowed(refusal)
    if seats.is_vacant(seat):
        return
    alive = [p for p in seat.powers if p in _alive(game)]
    rows = [openings.open_row(game, p) for p in alive]
    mine = seat.person is not None and seat.person.email == email.lower()
    if mine or not rows or any(r is None or r.reason != CIVIL_DISORDER for r in rows):
        raise NotAllowed(
            f"{name.upper()} has a player, who has not left nor missed a deadline: only a "
            "vacant power can be taken over, or one whose player sent no orders by a "
            "deadline and through its grace (the openings: OPENINGS by mail, /openings on "
            "the web)"
        )
    on_file = orders_on_file(game)
    if any(line.submitted_by_id == seat.id for p in seat.powers for line in on_file.get(p, [])):
        # The opening closes when the phase is processed; the seat is theirs from now.
        raise NotAllowed(
            f"{name.upper()}'s player is back: orders of theirs for {game.phase} are on file, "
            "so it is no longer open"
        )


def _take(game: Game, seat: Seat, email: str, password_hash: str, now: datetime) -> TakenOver:
    """The seat changes hands: its absent player (if any) is told why; the openings of its
    powers close; the deadline moves by TAKEOVER_EXTENSION unless a takeover moved it this
    phase already; everyone in the game is told, the master with who took it and how to
    undo it."""
    rows = [r for r in (openings.open_row(game, p) for p in seat.powers) if r is not None]
    mails: list[Outgoing] = []
    if not seats.is_vacant(seat):
        mails.append(_to_replaced(seat, rows[0] if rows else None))
    seat = seats.takeover(seat, email, password_hash)
    confirmations.forget_takeovers(seat)  # others waiting for this seat lapse
    for held in seat.powers:
        openings.close_power(game, held, "taken", now)
    row = rows[0] if rows else None
    if row is None:  # a vacant power never announced (from before openings were kept)
        row = Opening.create(
            game=game, power=seat.powers[0], reason="dummy", phase=game.phase or "",
            sequence=game.sequence, closed_at=now, closed_why="taken",
        )  # fmt: skip
    moved = _extend(game, row, now)
    mails += _tell_everyone(game, seat, moved, now, taker=email)
    mails += _still_vacant(game, seat, now)
    mails += variant_of(game).people.on(TookOver(game, seat))  # Diplonomic rule 25
    lines = []
    if moved is not None:
        lines.append(f"the deadline of {game.phase} moved by {format_length(moved)} for you "
                     "to find your feet; everyone in the game is told")  # fmt: skip
    return TakenOver(seat, mails, lines)


def _still_vacant(game: Game, taken: Seat, now: datetime) -> list[Outgoing]:
    """A power another vacant seat holds too (Double: both of its seats left) stays open."""
    mails: list[Outgoing] = []
    for other in players(game):
        if other.id == taken.id or not seats.is_vacant(other):
            continue
        shared = [p for p in other.powers if p in taken.powers]
        reason = str(other.status) if other.status in ("resigned", "ejected") else "dummy"
        mails += announce(game, shared, reason, now)
    return mails


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
    game: Game, taken: Seat, moved: timedelta | None, now: datetime, taker: str
) -> list[Outgoing]:
    """A notice to each person in the game (the master and the newcomer too), with the new
    deadline in their own zone and, when it moved, their calendar's event moved. The
    master's also says who took the power, and how to undo it within the phase."""
    mails = []
    for seat in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
    ):  # fmt: skip
        body = render(
            "openings_taken.txt.j2", game=game, powers=_titles(game, taken.powers),
            mine=seat.id == taken.id, moved=format_length(moved) if moved else "",
            deadline=deadline_lines(game, seat.person) if game.state == GameState.ACTIVE else [],
            taker=taker if seat.role == "master" else "",
            undo=f"UNDO TAKEOVER {taken.name}",
            ready=ready_lines(game, seat) if seat.id == taken.id else [],
        )  # fmt: skip
        mail = mail_to_seat(seat, f"{' '.join(_titles(game, taken.powers))} has a new player", body,
                            "notice")  # fmt: skip
        if moved is not None:
            mail.calendar = invitation_ics(game, seat, Change.MOVED, now=now)
        mails.append(mail)
    return mails


def resigned(game: Game, seat: Seat) -> list[Outgoing]:
    """To the game's master, when a player leaves with RESIGN: whose power is vacant."""
    if seat.role != "player":
        return []
    shown = _titles(game, seat.powers)
    body = render("resigned_master.txt.j2", game=game, seat=seat, powers=shown,
                  power=seat.powers[0])  # fmt: skip
    masters = Seat.select().where(
        (Seat.game == game) & (Seat.role == "master") & Seat.person.is_null(False)
    )
    return [mail_to_seat(m, f"{seat.name} resigned: {' '.join(shown)} is vacant", body, "notice")
            for m in masters]  # fmt: skip


def _to_replaced(seat: Seat, row: Opening | None) -> Outgoing:
    """To the player in civil disorder whose power went to someone else: why, with the
    phase whose deadline they missed (the one processed as the power opened)."""
    shown = _titles(seat.game, seat.powers)
    missed = None
    if row is not None:
        missed = PhaseRecord.get_or_none(
            (PhaseRecord.game == seat.game) & (PhaseRecord.sequence == row.sequence - 1)
        )
    body = render("openings_replaced.txt.j2", game=seat.game, powers=shown,
                  phase=missed.phase if missed is not None else "")  # fmt: skip
    return mail_to_seat(seat, f"you no longer play {' '.join(shown)}", body,
                        "notice")  # fmt: skip


def removed(seat: Seat, why: str) -> list[Outgoing]:
    """To a player the master removed (EJECT) or whose power it made a dummy (DUMMY), read
    before the seat was emptied: why they no longer play. Nobody sat there: no mail."""
    if seat.person is None or seat.role != "player":
        return []
    shown = _titles(seat.game, seat.powers)
    body = render("seat_removed.txt.j2", game=seat.game, powers=shown, why=why)
    return [mail_to_seat(seat, f"you no longer play {' '.join(shown)}", body, "notice")]


def undo_takeover(game: Game, name: str, now: datetime) -> tuple[Seat, list[Outgoing]]:
    """The master's UNDO TAKEOVER: a takeover of this phase is undone. The taker no longer
    plays (and is told), the takeover no longer counts in their record, the power is open
    again for the reason it was, and everyone who was told of the new player is told. The
    deadline, if the takeover moved it, stays where it is (everyone was told it)."""
    taken = [
        s for s in players(game)
        if s.person_id is not None and (name.upper() in s.powers or s.name == name.lower())
    ]  # fmt: skip
    found = [(s, e) for s in taken if (e := records.takeover_this_phase(s)) is not None]
    if not found:
        raise NotAllowed(
            f"no TAKEOVER of {name.upper()} in {game.name} this phase ({game.phase}) to undo; "
            f"a takeover of an earlier phase stands (EJECT {name.lower()} removes its player)"
        )
    seat, entry = found[0]
    entry.delete_instance()  # undone: it counts neither way
    last = (
        Opening.select()
        .where((Opening.game == game) & Opening.power.in_(list(seat.powers))
               & (Opening.closed_why == "taken"))
        .order_by(Opening.closed_at.desc(), Opening.id.desc())
        .first()
    )  # fmt: skip
    reason = str(last.reason) if last is not None else "ejected"
    shown = _titles(game, seat.powers)
    body = render("openings_undone.txt.j2", game=game, powers=shown)
    mails = [mail_to_seat(seat, f"you no longer play {' '.join(shown)}", body, "notice")]
    seats.vacate(seat, "ejected")
    notice = render("openings_reopened.txt.j2", game=game, powers=shown)
    for other in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
    ):  # fmt: skip
        mails.append(mail_to_seat(other, f"{' '.join(shown)} has no player again", notice,
                                  "notice"))  # fmt: skip
    mails += announce(game, [p for p in seat.powers if p in _alive(game)], reason, now)
    return seat, mails


def _titles(game: Game, powers: Iterable[str]) -> list[str]:
    """The powers as people read them ("British Columbia")."""
    return [power_title(game, power) for power in powers]


@dataclass(frozen=True)
class RecruitingGame:
    """A running public game that takes newcomers by JOIN, as the openings show it."""

    game: str
    variant: str
    phase: str
    becomes: str  # what a newcomer becomes ("a citizen, who votes on a country's orders")
    line: str  # the line to send ("JOIN demo password")


def recruiting() -> list[RecruitingGame]:
    """The running public games whose variant takes newcomers by JOIN, not TAKEOVER
    (Democratic), by name: the openings page and the OPENINGS mail list them."""
    kinds = [v.name for v in VARIANTS.values() if v.people.recruits]
    if not kinds:
        return []
    found = []
    for game in Game.select().where(
        Game.variant.in_(kinds) & (Game.state == GameState.ACTIVE)
    ).order_by(Game.name):  # fmt: skip
        how = variant_of(game).people.recruiting(game) if is_public(game) else None
        if how is not None:
            found.append(RecruitingGame(str(game.name), str(game.variant), str(game.phase or ""),
                                        how.becomes, how.line))  # fmt: skip
    return found

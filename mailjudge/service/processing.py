"""Processing a phase: readiness, the claim, the engine, history, ROLLBACK and ROLLFORWARD.

A phase is claimed in one transaction: the game row is locked (FOR UPDATE on PostgreSQL;
SQLite transactions take the write lock at once) and the game's ``sequence`` moves on with a
compare-and-set, so two workers or a restart never process one phase twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mailjudge.engine.interchange import position_to_dict
from mailjudge.engine.phases import PhaseOutcome, process_phase, result_rows
from mailjudge.engine.readings import Readings
from mailjudge.game import delivery
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Processed, Readiness
from mailjudge.game.schedule import schedule_phase, timing_of
from mailjudge.game.state import (
    current_position,
    finish_game,
    game_map,
    has_rule,
    orders_on_file,
    phase_of,
    players,
    waiting_players,
)
from mailjudge.service import keeping, records, seat_phases, stalemate
from mailjudge.service.conditional import resolve_conditional_orders
from mailjudge.service.games import engine_options, passive_now
from mailjudge.service.orders import blank_orders_in, powers_to_order
from mailjudge.service.standin import (
    add_standin_orders,
    away_with_standin,
    by_standin,
    mark_results,
)
from mailjudge.store.db import database_proxy, is_postgres
from mailjudge.store.models import Game, GameState, OrderLine, PhaseRecord, Seat, utcnow
from mailjudge.variants import variant_of
from mailjudge.variants.events import AfterProcess, BeforeProcess


def _exempt(game: Game, seats: list[Seat]) -> set[str]:
    """Powers the judge orders for itself: the map's dummies (always: nobody plays them,
    their units hold), dummies and vacant powers under CD_DUMMIES, and under STANDIN the
    powers of players away who asked for the stand-in."""
    away = away_with_standin(game, seats) | game_map(game).dummies
    if not has_rule(game, "CD_DUMMIES"):
        return away
    return away | {p for s in seats if s.dummy or s.person_id is None for p in s.powers}


def late_powers(
    game: Game, seats: list[Seat] | None = None, read: Readings | None = None
) -> list[str]:
    """The powers that owe orders for the current phase and have not all of them on file;
    ``read``: the order lines read already (a mail's)."""
    seats = players(game) if seats is None else seats
    pos = current_position(game)
    exempt = _exempt(game, seats)
    owing = [p for p in powers_to_order(game, pos) if p not in exempt]
    return variant_of(game).phase.late(game, pos, owing, orders_on_file(game), read)


def readiness(
    game: Game, now: datetime | None = None, need_late: bool = True, read: Readings | None = None
) -> Readiness:
    """Should the judge process now, without the master's word? With ``need_late`` False
    the answer may come without the list of late powers (it skips reading the orders when
    a WAIT or ALWAYS_WAIT settles it). The game's variant has the last word. ``read``: the
    order lines a mail read already."""
    if game.state != GameState.ACTIVE:
        return Readiness(False, f"the game is {game.state}")
    now = now or utcnow()
    held = stalemate.waits(game, now)  # the players may refuse a draw until the deadline
    if held:
        return Readiness(False, held)
    return variant_of(game).phase.ready(game, now, _standard_readiness(game, now, need_late, read))


def _standard_readiness(
    game: Game, now: datetime, need_late: bool, read: Readings | None = None
) -> Readiness:
    deadline = None if has_rule(game, "NO_DEADLINE") else game.deadline
    deadline_passed = deadline is not None and now >= deadline
    grace_over = deadline is not None and now >= deadline + _grace(game)
    waiting = [] if has_rule(game, "REAL_TIME") else waiting_players(game)
    # Retreats and adjustments are few to read; their late powers are always counted, so
    # a variant can see them (Diplonomic rule 15 goes ahead when all are in).
    movement = (game.phase or "").endswith("M")
    if not need_late and not deadline_passed and movement:
        if has_rule(game, "ALWAYS_WAIT"):
            return Readiness(False, "ALWAYS_WAIT: not before the deadline")
        if waiting:
            return Readiness(False, f"{', '.join(waiting)} asked to WAIT for the deadline")
    late = late_powers(game, players(game), read)
    if not late and not deadline_passed and _empty_phase_kept(game):
        return Readiness(
            False,
            "DONT_SKIP_PHASES: an empty phase waits for its deadline or every power's blank orders",
        )
    if has_rule(game, "ALWAYS_WAIT") and not deadline_passed:
        return Readiness(False, "ALWAYS_WAIT: not before the deadline", late)
    if not late and (not waiting or deadline_passed):
        return Readiness(True, "all orders are in")
    if grace_over and has_rule(game, "CIVIL_DISORDER"):
        spared = _spared(game, late, now)
        if spared:
            return Readiness(
                False, f"grace for {', '.join(spared)}: the judge's mail did not arrive", late
            )
        return Readiness(True, "the grace period is over: civil disorder for the late", late)
    if deadline_passed:
        return Readiness(False, "the deadline has passed; waiting for the late powers", late)
    if late:
        return Readiness(False, "orders are missing", late)
    return Readiness(False, f"{', '.join(waiting)} asked to WAIT for the deadline", late)


def _empty_phase_kept(game: Game) -> bool:
    """Seed 001, DONT_SKIP_PHASES: "all phases (including phases where all players need to
    issue blank orders) will be played, and empty phases won't be skipped". A phase in which
    nobody has anything to order waits for its deadline, or for every power in play to send
    its blank orders (an order mail with no orders); it is not processed the moment it
    opens."""
    if not has_rule(game, "DONT_SKIP_PHASES") or has_rule(game, "NO_DEADLINE"):
        return False
    pos = current_position(game)
    if powers_to_order(game, pos):
        return False
    seats = players(game)
    in_play = {u.power for u in pos.units.values()} | set(pos.sc_owners.values())
    owing = in_play - passive_now(game) - _exempt(game, seats)
    return not owing <= blank_orders_in(game)


def _spared(game: Game, late: list[str], now: datetime) -> list[str]:
    """The late powers still in the grace a seat gets when the judge's mail to it did not
    arrive this phase (game.delivery)."""
    until = delivery.excused_until(game)
    if until is None or now >= until:
        return []
    return sorted(delivery.excused(game, late, now))


def _grace(game: Game) -> timedelta:
    return timing_of(game).grace


def _held_last_year(game: Game) -> frozenset[str]:
    """Who was at the victory count after the last Fall (for HOLD_WIN)."""
    record = (
        PhaseRecord.select()
        .where((PhaseRecord.game == game) & (PhaseRecord.sequence < game.sequence))
        .where(PhaseRecord.phase.startswith("F"))
        .order_by(PhaseRecord.sequence.desc())
        .first()
    )
    if record is None:
        return frozenset()
    return frozenset(record.results.get("at_count", []))


def _orders_for_engine(game: Game) -> tuple[dict[str, list[str]], dict[str, list[dict[str, Any]]]]:
    texts: dict[str, list[str]] = {}
    kept: dict[str, list[dict[str, Any]]] = {}
    for power, lines in orders_on_file(game).items():
        texts[power] = [line.text for line in lines]
        kept[power] = [
            {
                "text": line.text,
                "by": line.submitted_by.name if line.submitted_by is not None else None,
                "at": line.submitted_at.isoformat(),
            }
            for line in lines
        ]
    return texts, kept


def _lock(game: Game) -> Game:
    """Re-read the game row inside the transaction, locked against other workers."""
    query = Game.select().where(Game.id == game.id)
    if is_postgres():
        query = query.for_update()
    fresh = query.get()
    return fresh


def process(
    game: Game,
    force: bool = False,
    expected_sequence: int | None = None,
    now: datetime | None = None,
) -> Processed | None:
    """Process the current phase. ``force`` is the master's PROCESS! (defaults for anyone
    late); without it the orders must all be in. The phase processed is the one the caller
    saw (``game.sequence``, or ``expected_sequence``): a worker that finds it already
    processed by another returns None instead of processing the next one."""
    expected = game.sequence if expected_sequence is None else expected_sequence
    with database_proxy.atomic():
        fresh = _lock(game)
        if fresh.sequence != expected:
            return None
        if fresh.state != GameState.ACTIVE:
            raise NotAllowed(
                f"game {fresh.name} is {fresh.state}; only an active game is processed"
            )
        if not force:
            state = readiness(fresh, now)
            if state.waiting_for:
                raise NotAllowed(
                    "orders are missing from "
                    + ", ".join(state.waiting_for)
                    + "; PROCESS! processes anyway with civil-disorder defaults"
                )
        variant = variant_of(fresh)
        wait = variant.phase.hold(fresh, now or utcnow())
        if wait is not None:
            pos = current_position(fresh)
            unchanged = PhaseOutcome([], pos, pos, [], frozenset())
            phase = phase_of(fresh)
            done = Processed(phase, phase, [], [], unchanged, wait.notices, wait.reason)
            game.__data__.update(fresh.__data__)
            return done
        with variant.phase.processing(fresh):
            on_file = keeping.keep(fresh)  # for a ROLLBACK: before the variant changes it
            # Each player's record, from the orders as the players left them (before a
            # variant turns them into the powers' orders: Double's synchronisation).
            moment = now or utcnow()
            noted = records.note_phase(fresh, late_powers(fresh), moment)
            seat_phases.note(fresh, noted, moment)  # the public figures of /stats
            # Read while the phase's deadline is still the game's: _run sets the next one.
            missed = frozenset(
                n.seat.id for n in noted if records.missed_deadline(fresh, n, moment)
            )
            notices = variant.phase.on(BeforeProcess(fresh, moment))
            texts, kept = _orders_for_engine(fresh)
            add_standin_orders(fresh, texts, kept, now)
            done = _run(fresh, texts, kept, keep_future=False, now=now, on_file=on_file)
            done.missed = missed
            done.notices = notices + variant.phase.on(AfterProcess(fresh, done, now or utcnow()))
        done.notices += stalemate.ask(fresh, now or utcnow())  # STALEMATE_DRAW
    game.__data__.update(fresh.__data__)
    return done


def _run(
    game: Game,
    texts: dict[str, list[str]],
    kept: dict[str, list[dict[str, Any]]],
    keep_future: bool,
    now: datetime | None = None,
    on_file: dict[str, Any] | None = None,
) -> Processed:
    """``on_file``: what was on file as the phase was processed (service/keeping.py)."""
    gmap = game_map(game)
    pos = current_position(game)
    outcome = process_phase(gmap, pos, texts, engine_options(game), _held_last_year(game))
    results = result_rows(outcome)
    mark_results(results, kept)  # the stand-in's orders show (stand-in)
    record_data = {
        "results": results,
        "after": position_to_dict(outcome.after),
        "destroyed": [str(u) for u in outcome.destroyed],
        "next_phase": str(outcome.next.phase),
        "winners": sorted(outcome.winners),
        "at_count": sorted(outcome.at_count),
    }
    if outcome.counted:  # the variant's centres that count otherwise than one each
        record_data["counted"] = dict(outcome.counted)
    seq = game.sequence
    if keep_future:
        PhaseRecord.delete().where(
            (PhaseRecord.game == game) & (PhaseRecord.sequence == seq)
        ).execute()
    else:
        # A phase played anew after a ROLLBACK: the old future no longer follows from it.
        PhaseRecord.delete().where(
            (PhaseRecord.game == game) & (PhaseRecord.sequence >= seq)
        ).execute()
    PhaseRecord.create(
        game=game, phase=game.phase, sequence=seq, position=game.position,
        orders=kept, results=record_data, processed_at=now or utcnow(), kept=on_file or {},
    )  # fmt: skip
    OrderLine.delete().where((OrderLine.game == game) & (OrderLine.phase == game.phase)).execute()
    moved = (
        Game.update(
            sequence=seq + 1, phase=str(outcome.next.phase), position=position_to_dict(outcome.next)
        )
        .where((Game.id == game.id) & (Game.sequence == seq))
        .execute()
    )
    if moved != 1:
        raise ServiceError(f"game {game.name}: phase {game.phase} was processed by another worker")
    old_phase = phase_of(game)
    early = game.deadline is not None and (now or utcnow()) < game.deadline
    game.sequence = seq + 1
    game.phase = str(outcome.next.phase)
    game.position = position_to_dict(outcome.next)
    _mark_eliminated(game, outcome)
    resolve_conditional_orders(game)  # njudge's IF ... ENDIF sent ahead for this phase
    ending = variant_of(game).phase.ending(game, outcome)
    if ending:
        finish_game(game, ending)
    else:
        schedule_phase(game, now or utcnow())
    return Processed(
        old_phase, phase_of(game), results, sorted(outcome.winners), outcome, early=early
    )


def _mark_eliminated(game: Game, outcome: PhaseOutcome) -> None:
    nxt = outcome.next
    alive = {u.power for u in nxt.units.values()} | set(nxt.sc_owners.values())
    alive |= {d.unit.power for d in nxt.dislodged.values()}
    for seat in players(game):
        gone = all(p not in alive for p in seat.powers)
        if seat.powers and gone != seat.eliminated:
            seat.eliminated = gone
            seat.save()


def preview(game: Game) -> PhaseOutcome:
    """What processing now would give; nothing is stored (the master's PREVIEW)."""
    texts, kept = _orders_for_engine(game)
    add_standin_orders(game, texts, kept)
    return process_phase(
        game_map(game), current_position(game), texts, engine_options(game), _held_last_year(game)
    )


def history(game: Game) -> list[PhaseRecord]:
    return list(
        PhaseRecord.select()
        .where((PhaseRecord.game == game) & (PhaseRecord.sequence < game.sequence))
        .order_by(PhaseRecord.sequence)
    )


def _record(game: Game, phase: str) -> PhaseRecord:
    record = PhaseRecord.get_or_none(
        (PhaseRecord.game == game) & (PhaseRecord.phase == phase.upper())
    )
    if record is None:
        played = ", ".join(r.phase for r in history(game)) or "none yet"
        raise ServiceError(
            f"game {game.name} has no stored phase {phase.upper()}; phases played: {played}"
        )
    return record


def rollback(game: Game, phase: str | None = None) -> PhaseRecord:
    """Go back to the start of ``phase`` (default: the phase before this one), with what
    was on file when it was processed: its orders (each Double partner's own), the orders
    sent ahead, the variant's keep (service/keeping.py); the votes and proposals of the
    phases after it are forgotten. Later phases stay stored for ROLLFORWARD."""
    with database_proxy.atomic():
        fresh = _lock(game)
        if phase is None:
            record = PhaseRecord.get_or_none(
                (PhaseRecord.game == fresh) & (PhaseRecord.sequence == fresh.sequence - 1)
            )
            if record is None:
                raise ServiceError(f"game {fresh.name} has no earlier phase to roll back to")
        else:
            record = _record(fresh, phase)
        keeping.keep_next(fresh)  # for a ROLLFORWARD back to here
        Game.update(
            sequence=record.sequence, phase=record.phase, position=record.position,
            state=GameState.ACTIVE if fresh.state == GameState.FINISHED else fresh.state,
            outcome="", finished_at=None,
            # The phase's calendar event comes back, moved to the current deadline.
            deadline_sequence=fresh.deadline_sequence + 1,
        ).where(Game.id == fresh.id).execute()  # fmt: skip
        fresh = Game.get_by_id(fresh.id)
        keeping.forget_later(fresh, record)
        if not keeping.put_back(fresh, record.kept or {}):
            OrderLine.delete().where(OrderLine.game == fresh).execute()
            _restore_orders(fresh, record)  # a phase kept before PhaseRecord.kept was
    game.__data__.update(Game.get_by_id(game.id).__data__)
    return record


def _restore_orders(game: Game, record: PhaseRecord) -> None:
    seats = {s.name: s for s in Seat.select().where(Seat.game == game)}
    for power, lines in record.orders.items():
        # The stand-in's orders are not the player's: processing again asks it again.
        own = [entry for entry in lines if not by_standin(entry)]
        for n, entry in enumerate(own):
            OrderLine.create(
                game=game, phase=record.phase, power=power, line=n, text=entry["text"],
                submitted_by=seats.get(entry.get("by") or ""),
                submitted_at=datetime.fromisoformat(entry["at"]),
            )  # fmt: skip


def rollforward(game: Game, to_phase: str | None = None) -> list[Processed]:
    """Re-adjudicate the stored orders of the phases after a ROLLBACK, one by one, up to
    ``to_phase`` (default: as far as history goes)."""
    done: list[Processed] = []
    while True:
        with database_proxy.atomic():
            fresh = _lock(game)
            if to_phase is not None and fresh.phase == to_phase.upper():
                break
            record = PhaseRecord.get_or_none(
                (PhaseRecord.game == fresh) & (PhaseRecord.sequence == fresh.sequence)
            )
            if record is None:
                break
            if fresh.state != GameState.ACTIVE:
                raise NotAllowed(f"game {fresh.name} is {fresh.state}; RESUME it first")
            texts = {p: [e["text"] for e in lines] for p, lines in record.orders.items()}
            done.append(_run(fresh, texts, record.orders, keep_future=True, on_file=record.kept))
            # On file now: what the next stored phase had when it was processed, or, past
            # the last one, what was when the master rolled back.
            after = PhaseRecord.get_or_none(
                (PhaseRecord.game == fresh) & (PhaseRecord.sequence == fresh.sequence)
            )
            keeping.put_back(fresh, (after.kept if after else record.kept.get(keeping.NEXT)) or {})
        game.__data__.update(fresh.__data__)
    if not done and to_phase is None:
        raise ServiceError(f"game {game.name} has no stored later phases to roll forward")
    game.__data__.update(Game.get_by_id(game.id).__data__)
    return done


def process_if_ready(
    game: Game, now: datetime | None = None, read: Readings | None = None
) -> Processed | None:
    """What the scheduler and order submission call: process when the game is ready.
    ``read``: the order lines the mail that filed them read already."""
    state = readiness(game, now, need_late=False, read=read)
    if not state.ready:
        return None
    return process(game, force=True, expected_sequence=game.sequence, now=now)

"""What /stats counts, noted as it happens: one ``SeatPhase`` row for every seat that owed
orders in a processed phase (the seats records.note_phase writes an entry for), and a
``LeverUse`` row each time a lever against missed turns is used (orders filed by a Reply
token or by a ready-to-send block, a reminder mailed to a power).

A seat-phase's orders came from:

- ``person``: at least one order line of its powers on file was sent by a person (the
  seat's player, or in Double the seat's own lines), whether complete or not;
- ``standin``: none from a person, and the game's stand-in ordered for its powers
  (service/standin.plays);
- ``none``: none from a person, and the judge's civil-disorder defaults played them.

``replacement``: the seat's player took the power over (TAKEOVER) in this very phase. The
levers are noted only for a seat-phase whose orders came from a person: ``token`` and
``ready`` when an order mail for its powers in the phase came so (a token is read as the
token only, not as a ready block too), ``reminder`` when a reminder went to its powers in
the phase before its last order line, ``extension`` when a VOTE EXTEND moved the phase's
deadline before its last order line, ``grace`` when its orders were complete only in the
deadline's grace (its record says so).

A ROLLBACK: a phase processed again writes its rows anew; /stats counts the rows of phases
that stand (sequence below the game's), as the records do. Lever rows are kept: a reminder
sent before the rollback was sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mailjudge.game.state import current_position, orders_on_file
from mailjudge.service import standin
from mailjudge.service.records import GRACE, TAKEOVER, Noted
from mailjudge.store.models import DeadlineExtension, Game, OrderLine, RecordEntry, utcnow
from mailjudge.store.stats_models import LeverUse, SeatPhase
from mailjudge.variants import variant_of

TOKEN, READY, REMINDER, EXTENSION = "token", "ready", "reminder", "extension"
# The levers in the order /stats lists them.
LEVER_NAMES = (TOKEN, READY, REMINDER, EXTENSION, GRACE)


def note_lever(game: Game, powers: Sequence[str], lever: str, now: datetime | None = None) -> None:
    """A lever used for ``powers`` in the game's current phase."""
    at = now or utcnow()
    for power in powers:
        LeverUse.create(game=game, sequence=game.sequence, power=power, lever=lever, at=at)


def _person_lines(game: Game, noted: Noted, on_file: dict[str, list[OrderLine]]) -> list[OrderLine]:
    lines = [x for p in noted.powers for x in on_file.get(p, []) if x.submitted_by_id is not None]
    if variant_of(game).people.orders_per_player:  # Double: the seat's own lines
        lines = [x for x in lines if x.submitted_by_id == noted.seat.id]
    return lines


def _levers(game: Game, noted: Noted, last: datetime, used: list[LeverUse]) -> list[str]:
    mine = [u for u in used if u.power in noted.powers]
    found = {u.lever for u in mine if u.lever in (TOKEN, READY)}
    if TOKEN in found:
        found.discard(READY)
    if any(u.lever == REMINDER and u.at < last for u in mine):
        found.add(REMINDER)
    extended = DeadlineExtension.select().where(
        (DeadlineExtension.game == game) & (DeadlineExtension.sequence == game.sequence)
        & (DeadlineExtension.at < last)
    )  # fmt: skip
    if extended.exists():
        found.add(EXTENSION)
    if noted.outcome == GRACE:
        found.add(GRACE)
    return [lever for lever in LEVER_NAMES if lever in found]


def _took_over(game: Game, noted: Noted) -> bool:
    return bool(
        RecordEntry.select().where(
            (RecordEntry.game == game) & (RecordEntry.person == noted.seat.person_id)
            & (RecordEntry.outcome == TAKEOVER) & (RecordEntry.sequence == game.sequence)
        ).exists()
    )  # fmt: skip


def note(game: Game, noted: list[Noted], now: datetime | None = None) -> None:
    """The seat-phases of the game's current phase, about to be processed (called by
    processing.process right after records.note_phase, with what it noted). Rows of this
    phase or later ones left from before a ROLLBACK are replaced."""
    now = now or utcnow()
    SeatPhase.delete().where(
        (SeatPhase.game == game) & (SeatPhase.sequence >= game.sequence)
    ).execute()
    if not noted:
        return
    on_file = orders_on_file(game)
    used = list(LeverUse.select().where(
        (LeverUse.game == game) & (LeverUse.sequence == game.sequence)
    ))  # fmt: skip
    kind = current_position(game).phase.type
    covers = standin.plays(game)
    for entry in noted:
        lines = _person_lines(game, entry, on_file)
        levers: list[str] = []
        if lines:
            by = "person"
            levers = _levers(game, entry, max(x.submitted_at for x in lines), used)
        else:
            by = "standin" if covers else "none"
        SeatPhase.create(
            game=game, person=entry.seat.person_id, phase=game.phase, sequence=game.sequence,
            kind=kind, powers=entry.powers, outcome=entry.outcome, ordered_by=by,
            replacement=bool(lines) and _took_over(game, entry), levers=" ".join(levers), at=now,
        )  # fmt: skip

"""What a phase's history keeps beyond its orders and results, and how ROLLBACK and
ROLLFORWARD put it back (service/processing.py calls these).

As a phase is processed, before the variant's answer to ``BeforeProcess`` changes anything, its
record keeps (PhaseRecord.kept):

- every order line on file: the phase's own, each with who sent it (so Double's two
  partners' own sets, not the synchronised result the GM adjudicates), and the lines sent
  ahead for later phases (PHASE, IF ... ENDIF, Diplonomic's rule 15);
- the variant's own keep (``variant.phase.keep``: Double's OVERRIDEs and joint-win vote,
  Diplonomic's rules text version, proposals and their votes).

A ROLLBACK to the phase puts all that back, and forgets what the phases after it added:
the ballots cast in them (a ballot belongs to the phase it was cast in: Survive's vote-out
of an undone year is held again, not counted from its old ballots), the proposals made in
them (Democratic's order sets and nominations) and the deadline extensions they made.
Nothing else changes: ballots that stand from phase to phase (draw votes, Democratic
diplomat ballots) stand as the voters last left them. ROLLFORWARD, as it comes to each
stored phase again, puts back what that phase kept, and past the last one what was on file
when the master rolled back (kept then, as ``NEXT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mailjudge.engine.state import Phase
from mailjudge.store.models import (
    Ballot,
    DeadlineExtension,
    Game,
    OrderLine,
    PhaseRecord,
    Proposal,
    Seat,
)
from mailjudge.variants import variant_of

ORDERS, VARIANT = "orders", "variant"
NEXT = "next"  # in the newest record: what was on file when the master rolled back


def keep(game: Game) -> dict[str, Any]:
    """What is on file now, for a ROLLBACK to the current phase."""
    lines = OrderLine.select().where(OrderLine.game == game)
    return {
        ORDERS: [
            {"phase": x.phase, "power": x.power, "line": x.line, "text": x.text,
             "by": x.submitted_by_id, "at": x.submitted_at.isoformat()}
            for x in lines.order_by(OrderLine.phase, OrderLine.power, OrderLine.line)
        ],
        VARIANT: variant_of(game).phase.keep(game),
    }  # fmt: skip


def put_back(game: Game, kept: dict[str, Any]) -> bool:
    """Put on file what ``kept`` holds, in place of every order line now on file, and the
    variant's keep; False when ``kept`` holds nothing (a phase kept before this was)."""
    if ORDERS not in kept:
        return False
    OrderLine.delete().where(OrderLine.game == game).execute()
    seats = {s.id for s in Seat.select(Seat.id).where(Seat.game == game)}
    for entry in kept[ORDERS]:
        OrderLine.create(
            game=game, phase=entry["phase"], power=entry["power"], line=entry["line"],
            text=entry["text"], submitted_by=entry["by"] if entry["by"] in seats else None,
            submitted_at=datetime.fromisoformat(entry["at"]),
        )  # fmt: skip
    variant_of(game).phase.restore(game, kept.get(VARIANT) or {})
    return True


def forget_later(game: Game, record: PhaseRecord) -> None:
    """A ROLLBACK to ``record``'s phase: the ballots cast and the proposals made in later
    phases (Democratic order sets and nominations), and the deadline extensions made in
    them, belong to a future that no longer follows."""
    after = Phase.parse(record.phase).order_key()
    for table in (Ballot, Proposal):
        cast = table.select(table.phase).where(table.game == game).distinct()
        later = [phase for phase in cast.scalars() if _later(phase, after)]
        if later:
            table.delete().where((table.game == game) & table.phase.in_(later)).execute()
    DeadlineExtension.delete().where(
        (DeadlineExtension.game == game) & (DeadlineExtension.sequence > record.sequence)
    ).execute()


def _later(phase: str, after: tuple[int, int, int]) -> bool:
    """Whether a ballot's or proposal's phase comes after; False for one that stands from
    phase to phase ("") and for a variant's own key (Diplonomic's turn, S1901)."""
    try:
        return Phase.parse(phase).order_key() > after
    except ValueError:
        return False


def keep_next(game: Game) -> None:
    """Before a ROLLBACK from a phase not yet stored: what is on file now, kept in the
    newest record, so that a ROLLFORWARD all the way comes back to it."""
    newest = PhaseRecord.get_or_none(
        (PhaseRecord.game == game) & (PhaseRecord.sequence == game.sequence - 1)
    )
    stored = PhaseRecord.get_or_none(
        (PhaseRecord.game == game) & (PhaseRecord.sequence == game.sequence)
    )
    if newest is None or stored is not None:
        return
    newest.kept = {**(newest.kept or {}), NEXT: keep(game)}
    newest.save()

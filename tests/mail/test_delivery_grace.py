"""Issue 34, point 5: a seat whose mail this phase did not arrive (bounced, held, still
deferred at the first reminder) or whose SET ADDRESS waits for its CONFIRM is not counted
late: it gets the grace automatically, the master is told why once, and STATUS's lines
say what became of the player's own mail."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

import pytest

from mail.test_deadlines import START, new_game, run_clock
from mailjudge.game import delivery
from mailjudge.game.bounces import Failure, note_bounce
from mailjudge.game.confirmations import new_token
from mailjudge.game.schedule import timing_of
from mailjudge.game.state import get_game
from mailjudge.service.seats import seat_for_power
from mailjudge.store.models import Game, Outbox, PhaseRecord


def mail(game: Game, to: str, at: datetime, **fate: object) -> Outbox:
    """An outbox row as the sender leaves it, queued at ``at``."""
    row: Outbox = Outbox.create(
        to_addrs=to, subject=f"[{game.name}] a mail", raw=b"", game=game,
        message_id=f"<{secrets.token_hex(6)}@judge.test>", created_at=at, **fate,
    )  # fmt: skip
    return row


def first_warn(game: Game) -> datetime:
    assert game.deadline is not None
    return timing_of(game).reminders(game.deadline)[0]


@pytest.mark.usefixtures("sqlite_db")
def test_what_counts_as_mail_that_did_not_arrive() -> None:
    game = new_game("fates", "CIVIL_DISORDER")
    seat = seat_for_power(game, "FRANCE")
    address = seat.person.email
    warn = first_warn(game)
    began = START
    assert delivery.undelivered(game, seat, began, warn, START) is None
    sent = mail(game, address, START, state="sent", attempts=1, sent_at=START)
    assert delivery.undelivered(game, seat, began, warn, warn) is None
    assert delivery.fate_of(sent).startswith("accepted by 127.0.0.1 at ")
    # Deferred since before the first reminder and still not sent: not arrived.
    late = mail(game, address, START, state="queued", attempts=3, last_error="421 try later",
                next_attempt_at=warn + timedelta(hours=1))  # fmt: skip
    why = delivery.undelivered(game, seat, began, warn, warn + timedelta(hours=1))
    assert why is not None and "was still deferred, 3 attempt(s) failed (421 try later)" in why
    # Sent at last, but only after the first reminder: still excused.
    Outbox.update(state="sent", sent_at=warn + timedelta(minutes=5)).where(
        Outbox.id == late.id
    ).execute()
    why = delivery.undelivered(game, seat, began, warn, warn + timedelta(hours=1))
    assert why is not None and "still deferred at the first reminder" in why
    Outbox.delete().where(Outbox.id == late.id).execute()
    assert delivery.undelivered(game, seat, began, warn, warn) is None
    # A bounce, with the far server's words.
    bounced = mail(game, address, START, state="sent", attempts=1, sent_at=START)
    note_bounce(bounced, Failure(address, "5.1.1", "550 5.1.1 User unknown"))
    why = delivery.undelivered(game, seat, began, warn, warn)
    assert why is not None and "bounced at " in why and "550 5.1.1 User unknown" in why
    # Another player's mail never shows in this player's list.
    other = seat_for_power(game, "ENGLAND").person.email
    assert delivery.recent_mail(game, other) == []
    assert [f.outcome[:8] for f in delivery.recent_mail(game, address)] == ["bounced ", "accepted"]


@pytest.mark.usefixtures("sqlite_db")
def test_a_set_address_waiting_for_its_confirm_excuses_the_seat() -> None:
    game = new_game("moving", "CIVIL_DISORDER")
    seat = seat_for_power(game, "ITALY")
    warn = first_warn(game)
    assert delivery.undelivered(game, seat, START, warn, warn) is None
    new_token("address", seat, "new-italy@example.org")
    why = delivery.undelivered(game, seat, START, warn, warn)
    assert why == "their new address new-italy@example.org waits for its CONFIRM"


@pytest.mark.usefixtures("sqlite_db")
def test_a_bounced_seat_gets_the_grace_and_the_master_is_told_once() -> None:
    game = new_game("bounced", "CIVIL_DISORDER")
    seat = seat_for_power(game, "FRANCE")
    address = seat.person.email
    assert game.deadline is not None
    deadline = game.deadline
    start_mail = mail(game, address, START, state="sent", attempts=1, sent_at=START)
    note_bounce(start_mail, Failure(address, "5.2.2", "552 5.2.2 mailbox full"))
    sent = run_clock(deadline + timedelta(hours=12))
    # The game's GRACE is 2 hours; France's mail bounced, so it waits the full day.
    assert get_game("bounced").phase == "S1901M"
    notices = [m for _, m in sent if m.to == ["gm@example.org"] and "grace for" in m.subject]
    assert len(notices) == 1
    assert notices[0].subject == "[bounced] grace for FRANCE: mail did not arrive (S1901M)"
    assert "552 5.2.2 mailbox full" in notices[0].body and "not counted late" in notices[0].body
    late_notices = [m for _, m in sent if "your orders are late" in m.subject]
    assert address not in {m.to[0] for m in late_notices} and len(late_notices) == 6
    later = deadline + timedelta(hours=12, minutes=5)
    sent = run_clock(deadline + timedelta(hours=25), now=later)
    records = list(PhaseRecord.select().where(PhaseRecord.game == game))
    assert len(records) == 1
    assert records[0].processed_at == deadline + delivery.DELIVERY_GRACE
    assert not [m for _, m in sent if "grace for" in m.subject]  # told once a phase


@pytest.mark.usefixtures("sqlite_db")
def test_without_civil_disorder_the_master_hears_of_the_excused_seat_apart() -> None:
    game = new_game("apart", "")
    seat = seat_for_power(game, "FRANCE")
    start_mail = mail(game, seat.person.email, START, state="sent", attempts=1, sent_at=START)
    note_bounce(start_mail, Failure(seat.person.email, "5.1.1", "550 5.1.1 User unknown"))
    assert game.deadline is not None
    sent = run_clock(game.deadline + timedelta(hours=3))
    to_master = [m.subject for _, m in sent if m.to == ["gm@example.org"]]
    assert to_master == [
        "[apart] grace for FRANCE: mail did not arrive (S1901M)",
        "[apart] late: AUSTRIA, ENGLAND, GERMANY, ITALY, RUSSIA, TURKEY (S1901M)",
    ]

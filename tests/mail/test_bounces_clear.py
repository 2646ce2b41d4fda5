"""A player signing on clears their address's bounces and makes the mail held for it due
at once; nobody else's (on PostgreSQL this is one statement)."""

from __future__ import annotations

from datetime import timedelta

from helpers.statements_sent import statements_sent

from mailjudge.game.bounces import clear_bounces
from mailjudge.outbound import outbox
from mailjudge.outbound.message import build_message
from mailjudge.store.db import database_proxy
from mailjudge.store.models import HELD, Bounce, Outbox, utcnow

LATER = timedelta(hours=1)


def _held(to: str) -> Outbox:
    row = outbox.enqueue(build_message(sender="judge@example.org", to=[to], subject="x",
                                       text="x\n"))  # fmt: skip
    Outbox.update(
        last_error=f"{HELD}mail to {to} bounced 3 times", next_attempt_at=utcnow() + LATER
    ).where(Outbox.id == row.id).execute()
    return row


def test_signing_on_clears_the_bounces_and_wakes_the_held_mail(any_db: str) -> None:
    mine, theirs = _held("ann@example.com"), _held("bob@example.com")
    for address in ("ann@example.com", "ann@example.com", "bob@example.com"):
        Bounce.create(address=address, status="5.1.1")
    with database_proxy.atomic():
        clear_bounces("Ann@Example.com")
        # Read in the same transaction: what was held back has gone with this read.
        assert Bounce.select().where(Bounce.address == "ann@example.com").count() == 0
    assert [b.address for b in Bounce.select()] == ["bob@example.com"]
    assert Outbox.get_by_id(mine.id).next_attempt_at <= utcnow()
    assert Outbox.get_by_id(theirs.id).next_attempt_at > utcnow() + LATER / 2


def test_signing_on_with_no_bounces_changes_nothing(any_db: str) -> None:
    held = _held("cat@example.com")
    clear_bounces("dan@example.com", "cat@example.com")  # outside a transaction: at once
    assert Outbox.get_by_id(held.id).next_attempt_at > utcnow() + LATER / 2
    clear_bounces("dan@example.com")
    assert Bounce.select().count() == 0


def test_on_postgresql_clearing_is_one_statement(pg: str) -> None:
    """A SIGNON's clearing is one statement (store.mail.clear_bounces_and_wake), and wakes
    the held mail only where a bounce was found."""
    mine, theirs = _held("eve@example.com"), _held("fay@example.com")
    Bounce.create(address="eve@example.com", status="5.1.1")
    with statements_sent() as sent, database_proxy.atomic():
        clear_bounces("eve@example.com")
        clear_bounces("fay@example.com")
        assert len(sent) == 2, sent
        assert Bounce.select().count() == 0
    assert Outbox.get_by_id(mine.id).next_attempt_at <= utcnow()
    assert Outbox.get_by_id(theirs.id).next_attempt_at > utcnow() + LATER / 2

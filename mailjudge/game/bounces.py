"""Mail that came back: record it against the address, tell the game's master, and hold
the mail to an address that keeps bouncing until its player signs on again (the outbox
reads the Bounce rows and holds the mail; a SIGNON clears them and sends what was held)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from peewee import fn

from mailjudge.addresses import check_matches
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.store import mail as store_mail
from mailjudge.store.db import is_postgres
from mailjudge.store.models import HELD, Bounce, GameState, Outbox, Person, Seat, utcnow

# How an outbox row that came back says so in its last_error: kept when a SIGNON clears
# the Bounce rows, for STATUS and the clock's grace (game.delivery).
BOUNCED = "bounced at "


class Failure(NamedTuple):
    """One failed recipient, as a delivery report gives it."""

    recipient: str
    status: str  # 5.1.1
    diagnostic: str


def take_bounce(target: tuple[int, str], reported: Sequence[Failure]) -> tuple[str, list[Outgoing]]:
    """A bounce to the judge's VERP address ``target`` (outbox id, check) with the failures
    its report gives: what it says, and the notices for the masters of the games of
    whoever's mail bounced."""
    outbox = Outbox.get_or_none(Outbox.id == target[0])
    if outbox is None or not check_matches(target[1], outbox.message_id):
        return "a bounce naming no mail the judge sent (ignored)", []
    sent_to = outbox.to_addrs.lower().split()  # as written; compared lower-cased
    failed = [f for f in reported if f.recipient.lower() in sent_to]
    if not failed and len(sent_to) == 1:  # no report, but VERP says whose mail came back
        failed = [Failure(sent_to[0], "", "the mail came back without a delivery report")]
    notices: list[Outgoing] = []
    for failure in failed:
        Bounce.create(address=failure.recipient.lower(), outbox=outbox, status=failure.status[:16],
                      diagnostic=failure.diagnostic[:1000])  # fmt: skip
        notices += _tell_masters(failure)
    if failed:
        note_bounce(outbox, failed[0])
    names = ", ".join(f.recipient for f in failed) or "nobody the mail went to"
    return f"a bounce of outbox {outbox.id} for {names}", notices


def note_bounce(outbox: Outbox, failure: Failure) -> None:
    """Mark the outbox row as come back, with the far server's words."""
    said = f"{failure.status} {failure.diagnostic}".strip() or "no reason given"
    note = f"{BOUNCED}{utcnow():%Y-%m-%d %H:%M} UTC: {' '.join(said.split())}"
    Outbox.update(last_error=note[:1000]).where(Outbox.id == outbox.id).execute()


def _tell_masters(failure: Failure) -> list[Outgoing]:
    person = Person.get_or_none(Person.email == failure.recipient.lower())
    if person is None:
        return []
    count = Bounce.select().where(Bounce.address == failure.recipient).count()
    notices = []
    seats = Seat.select().where((Seat.person == person) & (Seat.role != "master"))
    for seat in seats:
        game = seat.game
        if game.state == GameState.FINISHED:
            continue
        master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
        if master is None or master.person is None:
            continue
        who = seat.powers or seat.name
        body = render("bounce_notice.txt.j2", game=game, seat=seat, who=who, failure=failure,
                      count=count)  # fmt: skip
        notices.append(mail_to_seat(master, f"mail to {who} bounces", body, "notice"))
    return notices


def clear_bounces(*addresses: str) -> None:
    """A player signed on: mail to their address goes out again, and the mail held for
    it while it bounced is due at once."""
    known = sorted({a.lower() for a in addresses})
    if is_postgres():
        # With every order mail: one statement, the outbox looked at only when a bounce
        # was cleared.
        store_mail.clear_bounces_and_wake(known, Outbox.next_attempt_at.db_value(utcnow()), HELD)
        return
    if store_mail.clear_bounces(known):  # rarely: only an address that bounced can have mail held
        Outbox.update(next_attempt_at=utcnow()).where(
            (Outbox.state == "queued")
            & Outbox.last_error.startswith(HELD)
            & fn.LOWER(Outbox.to_addrs).in_(known)
        ).execute()

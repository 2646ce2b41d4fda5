"""Rate limits against outsiders: wrong passwords counted per guessing address and per
seat (beyond a few, a wrong guess gets no answer; a right password always works), mail
and bytes to each address counted per hour (so a forged From cannot aim the judge at
anyone), and the addresses that proved by a round trip that they want the judge's mail.
The counts live in AddressCounter rows, one per key, each with its window."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from peewee import EXCLUDED, Case, IntegrityError

from mailjudge.compiled_queries import (
    execute_compiled,
    execute_compiled_later,
    select_compiled,
)
from mailjudge.db import database_proxy
from mailjudge.models import AddressCounter, Seat
from mailjudge.settings import SecuritySettings, current_settings


def _counters(*keys: str) -> dict[str, AddressCounter]:
    """The counters of `keys` that exist, in one query built once (many mails ask: whether
    an address is proven, a seat's backoff)."""
    rows = select_compiled(
        AddressCounter, f"counters-{len(keys)}",
        lambda: AddressCounter.select().where(AddressCounter.key.in_(list(keys))), list(keys),
    )  # fmt: skip
    return {str(row.key): row for row in rows}


def count(key: str, now: datetime, window: timedelta) -> int:
    """How often `key` happened in its current window."""
    row = _counters(key).get(key)
    if row is None or row.window_start + window <= now:
        return 0
    return int(row.count)


def bump(key: str, now: datetime, window: timedelta) -> int:
    """Count one more; returns the count in the window."""
    return bump_by(key, 1, now, window)


def _limits() -> SecuritySettings:
    return current_settings().security


def wrong_password(seat: Seat, sender: str, now: datetime) -> tuple[bool, bool]:
    """Count a wrong password from `sender`. Returns (answered, tell): whether the wrong
    mail gets an answer at all, and whether the seat's player should be told (the first
    time in a window: a guesser cannot flood them). A wrong mail is answered only while
    its sender has made at most `signon_slow_after` wrong guesses at the seat and
    `address_lock_after` in all, and the seat has had at most `signon_lock_after` from
    everyone: beyond that a guesser learns nothing from the judge, and its guesses cost
    nobody but itself (nothing is refused before the password is checked)."""
    limits = _limits()
    window = timedelta(minutes=limits.signon_window_minutes)
    pair = bump(f"signon:{seat.id}:{sender}", now, window)
    anywhere = bump(f"signon:*:{sender}", now, window)
    seat_wide = bump(f"signon-seat:{seat.id}", now, window)
    answered = (
        pair <= limits.signon_slow_after
        and anywhere <= limits.address_lock_after
        and seat_wide <= limits.signon_lock_after
    )
    return answered, bump(f"signon-notice:{seat.id}", now, window) == 1


def seat_guarded(seat: Seat, now: datetime) -> bool:
    """Whether the seat has had `signon_slow_after` wrong passwords or more from anyone
    in the window: then the answer to a right password from another address than the
    seat's own goes to the seat's own address, so that a guesser cannot learn which of
    its guesses was right."""
    limits = _limits()
    key = f"signon-seat:{seat.id}"
    row = _counters(key).get(key)
    window = timedelta(minutes=limits.signon_window_minutes)
    return (
        row is not None
        and row.window_start + window > now
        and row.count >= limits.signon_slow_after
    )


def signed_on(seat: Seat, sender: str) -> None:
    """A right password: forget this sender's wrong guesses at the seat and the seat's
    backoff. Nothing reads what the DELETE returns, so on PostgreSQL it goes with the next
    statement (a SIGNON comes with every order mail; deleting no row costs the server an
    index probe, and the judge no round trip). A password proves nothing about the
    address it came from (it may be forged): that takes a round trip (`mark_proven`)."""
    keys = [f"signon:{seat.id}:{sender}", f"signon-seat:{seat.id}"]
    execute_compiled_later(
        "counters-forget-2",
        lambda: AddressCounter.delete().where(AddressCounter.key.in_(keys)),
        keys,
    )


def bump_by(key: str, amount: int, now: datetime, window: timedelta) -> int:
    """Add `amount` to the counter, starting it afresh when its window is over; returns
    the sum in the window. One statement built once (an answer asks this on every mail):
    an insert that, when the counter exists, adds to it instead, and says the sum."""
    cutoff = now - window
    when = AddressCounter.window_start.db_value
    params = [key, amount, when(now), when(now), when(cutoff), when(cutoff)]
    cursor = execute_compiled(
        "counter-bump", functools.partial(_bump_query, key, amount, now, cutoff), params
    )
    return int(cursor.fetchone()[0])


def _bump_query(key: str, amount: int, now: datetime, cutoff: datetime) -> Any:
    counter = AddressCounter
    over = counter.window_start <= cutoff  # the window ended: count from now, afresh
    added = counter.count + EXCLUDED.count
    return (
        counter.insert(key=key, count=amount, window_start=now, last_at=now)
        .on_conflict(
            conflict_target=[counter.key],
            update={
                counter.count: Case(None, [(over, EXCLUDED.count)], added),
                counter.window_start: Case(None, [(over, EXCLUDED.window_start)],
                                           counter.window_start),
                counter.last_at: EXCLUDED.last_at,
            },
        )
        .returning(counter.count)
    )  # fmt: skip


def may_mail(
    address: str,
    size: int,
    now: datetime,
    proven: bool,
    ledger: str = "own",
    limits: SecuritySettings | None = None,
) -> bool:
    """Count one mail of about `size` bytes to `address`; False (the mail is not sent)
    once the hour's cap is reached: `unproven_per_hour` mails and `unproven_bytes_per_hour`
    bytes to an address that never answered the judge, `proven_bytes_per_hour` bytes to
    one that did (or answers to a seat's right password). ``ledger`` keeps apart what an
    address's own mail causes ("own"), the game's mail to a seat's person ("seat"), and
    what others' mail causes ("others", always at the small caps): mail from strangers
    never spends an address's own allowance. ``limits``: the judge's settings when not
    given."""
    limits = limits or _limits()
    hour, address = timedelta(hours=1), address.lower()
    prefix = "" if ledger == "own" else f"{ledger}-"
    proven = proven and ledger != "others"
    if not proven and bump(f"{prefix}unproven:{address}", now, hour) > limits.unproven_per_hour:
        return False
    cap = limits.proven_bytes_per_hour if proven else limits.unproven_bytes_per_hour
    return bump_by(f"{prefix}bytes:{address}", size, now, hour) <= cap


def repeats(sender: str, fingerprint: str, now: datetime) -> int:
    """How often `sender` sent this same text within the hour, this mail included: an
    auto-responder without auto-reply headers sends the same words again and again."""
    return bump(f"same:{sender.lower()}:{fingerprint}", now, timedelta(hours=1))


def is_proven(address: str) -> bool:
    """Whether `address` ever answered a mail the judge sent it (a CONFIRM of its token,
    or a reply naming the Message-ID of a mail the judge sent there): mail to it is
    wanted. A password proves nothing: a forged From can carry one."""
    key = f"proven:{address.lower()}"
    return key in _counters(key)


def mark_proven(address: str, now: datetime) -> None:
    if address and not is_proven(address):
        try:
            with database_proxy.atomic():
                AddressCounter.create(key=f"proven:{address.lower()}", count=1,
                                      window_start=now, last_at=now)  # fmt: skip
        except IntegrityError:
            pass  # another worker marked it meanwhile


def prune_counters(now: datetime) -> int:
    """Forget the counters no window needs any more (every one but the proven
    addresses): one is made for each address and text the judge hears from, so the
    table would grow for ever. Returns how many went."""
    window = timedelta(minutes=_limits().signon_window_minutes)
    older_than = now - max(window, timedelta(days=1))
    stale = (AddressCounter.last_at < older_than) & ~AddressCounter.key.startswith("proven:")
    return int(AddressCounter.delete().where(stale).execute())

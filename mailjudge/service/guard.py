"""Rate limits against outsiders: wrong passwords counted per guessing address (so the
guesser is slowed and then refused, never the seat's own player), and mail to addresses
that never proved they want it counted per hour (so a forged From cannot aim the judge at
anyone). The counts live in AddressCounter rows, one per key, each with its window."""

from __future__ import annotations

from datetime import datetime, timedelta

from peewee import IntegrityError

from mailjudge.db import database_proxy, execute_compiled, select_compiled
from mailjudge.models import AddressCounter, Seat
from mailjudge.service.errors import BadSecret
from mailjudge.settings import SecuritySettings, current_settings


def _row(key: str, now: datetime, window: timedelta) -> AddressCounter:
    """The counter for `key`, started afresh when its window is over."""
    row = AddressCounter.get_or_none(AddressCounter.key == key)
    if row is None:
        try:
            with database_proxy.atomic():
                return AddressCounter.create(key=key, count=0, window_start=now, last_at=now)
        except IntegrityError:  # another worker made it meanwhile
            row = AddressCounter.get(AddressCounter.key == key)
    if row.window_start + window <= now:
        row.count, row.window_start = 0, now
    return row


def _counters(*keys: str) -> dict[str, AddressCounter]:
    """The counters of `keys` that exist, in one query built once (a SIGNON asks on every
    order mail)."""
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
    row = _row(key, now, window)
    row.count += 1
    row.last_at = now
    row.save()
    return int(row.count)


def reset(key: str) -> None:
    execute_compiled(
        "counter-delete", lambda: AddressCounter.delete().where(AddressCounter.key == key), [key]
    )


def _limits() -> SecuritySettings:
    return current_settings().security


def check_guesser(seat: Seat, sender: str, now: datetime) -> dict[str, AddressCounter]:
    """Refuse a SIGNON from `sender` that has guessed too often (for this seat, or for any);
    raises BadSecret with when to try again. The password is not even looked at.
    Returns the sender's counters as found, for `signed_on` (one query for both)."""
    limits = _limits()
    window = timedelta(minutes=limits.signon_window_minutes)
    pair, anywhere = f"signon:{seat.id}:{sender}", f"signon:*:{sender}"
    found = _counters(pair, anywhere, f"proven:{sender.lower()}")
    for key, limit in ((pair, limits.signon_lock_after), (anywhere, limits.address_lock_after)):
        row = found.get(key)
        if row is not None and row.window_start + window > now and row.count >= limit:
            until = row.window_start + window
            raise BadSecret(f"too many wrong passwords from {sender}: sign-ons from this "
                            f"address are refused until {until:%Y-%m-%d %H:%M} UTC")  # fmt: skip
    row = found.get(pair)
    if (
        row is not None
        and row.window_start + window > now
        and row.count >= limits.signon_slow_after
    ):
        ready = row.last_at + timedelta(seconds=limits.signon_slow_seconds)
        if ready > now:
            raise BadSecret(f"after {row.count} wrong passwords, wait until "
                            f"{ready:%H:%M:%S} UTC before the next try")  # fmt: skip
    return found


def wrong_password(seat: Seat, sender: str, now: datetime) -> bool:
    """Count a wrong password from `sender`; True when the seat's player should be told
    (the first time in a window: a guesser cannot flood them with notices)."""
    window = timedelta(minutes=_limits().signon_window_minutes)
    bump(f"signon:{seat.id}:{sender}", now, window)
    bump(f"signon:*:{sender}", now, window)
    return bump(f"signon-notice:{seat.id}", now, window) == 1


def right_password(seat: Seat, sender: str) -> None:
    reset(f"signon:{seat.id}:{sender}")


def signed_on(seat: Seat, sender: str, now: datetime, found: dict[str, AddressCounter]) -> None:
    """A right password after `check_guesser` found `found`: forget this sender's wrong
    guesses at the seat and mark it proven, writing only what changes (a SIGNON comes
    with every order mail)."""
    if f"signon:{seat.id}:{sender}" in found:
        right_password(seat, sender)
    if f"proven:{sender.lower()}" not in found:
        mark_proven(sender, now)


def may_mail_unproven(address: str, now: datetime, cap: int | None = None) -> bool:
    """Count one mail to an address that never signed on; False once the hour's cap is
    reached (the mail is then not sent). ``cap``: the judge's setting when not given."""
    cap = _limits().unproven_per_hour if cap is None else cap
    return bump(f"unproven:{address.lower()}", now, timedelta(hours=1)) <= cap


def is_proven(address: str) -> bool:
    """Whether `address` ever signed on with a right password: mail to it is wanted."""
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

"""Rate limits against outsiders: wrong passwords counted per guessing address and per
seat (beyond a few, a wrong guess gets no answer; a right password always works), mail
and bytes to each address counted per hour (so a forged From cannot aim the judge at
anyone), and the addresses that proved by a round trip that they want the judge's mail.
The counts live in AddressCounter rows, one per key, each with its window."""

from __future__ import annotations

from datetime import datetime, timedelta

from peewee import IntegrityError

from mailjudge.config.settings import SecuritySettings, current_settings
from mailjudge.outbound.mailbox import mailbox
from mailjudge.store import games as store_games
from mailjudge.store.db import database_proxy
from mailjudge.store.models import AddressCounter, Seat


def _counters(*keys: str) -> dict[str, AddressCounter]:
    """The counters of `keys` that exist, in one query (many mails ask: whether an address
    is proven, a seat's backoff)."""
    return {str(row.key): row for row in store_games.counters(keys)}


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
    sender = mailbox(sender)  # guesses from box+1@ and box+2@ are one guesser's
    pair = bump(f"signon:{seat.id}:{sender}", now, window)
    anywhere = bump(f"signon:*:{sender}", now, window)
    seat_wide = bump(f"signon-seat:{seat.id}", now, window)
    answered = (
        pair <= limits.signon_slow_after
        and anywhere <= limits.address_lock_after
        and seat_wide <= limits.signon_lock_after
    )
    # Every wrong password at the seat in the window, from anyone: the owner is told of the
    # first, and a right password does not forget them (the count guessed_at reads).
    return answered, bump(f"signon-notice:{seat.id}", now, window) == 1


def guessed_at(seat: Seat, now: datetime) -> int:
    """How many wrong passwords the seat has had in the window, from anyone (its own
    address too); a right password does not forget them."""
    window = timedelta(minutes=_limits().signon_window_minutes)
    return count(f"signon-notice:{seat.id}", now, window)


def not_checked_until(seat: Seat, sender: str, now: datetime) -> datetime | None:
    """Until when a SIGNON to ``seat`` from ``sender`` (not the seat's own address) is
    refused without its password being checked, or None while it is checked: once the seat
    has had `signon_lock_after` wrong passwords in the window, or the sender (its mailbox)
    `address_lock_after` at any seats. Guessing is bounded so, per seat and per sender,
    however many addresses a guesser forges (issue 52: 14,000 guesses an hour before, and
    a right one after 41 wrong still worked). The seat's own address is always checked."""
    limits = _limits()
    window = timedelta(minutes=limits.signon_window_minutes)
    seat_key, sender_key = f"signon-notice:{seat.id}", f"signon:*:{mailbox(sender)}"
    rows = _counters(seat_key, sender_key)
    ends = []
    bounds = ((seat_key, limits.signon_lock_after), (sender_key, limits.address_lock_after))
    for key, most in bounds:
        row = rows.get(key)
        if row is not None and row.window_start + window > now and row.count >= most:
            ends.append(row.window_start + window)
    return max(ends) if ends else None


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
    backoff. A password proves nothing about the address it came from (it may be forged):
    that takes a round trip (`mark_proven`)."""
    keys = [f"signon:{seat.id}:{mailbox(sender)}", f"signon-seat:{seat.id}"]
    store_games.forget_counters(keys)


def bump_by(key: str, amount: int, now: datetime, window: timedelta) -> int:
    """Add `amount` to the counter, starting it afresh when its window is over; returns
    the sum in the window. One statement (an answer asks this on every mail): an insert
    that, when the counter exists, adds to it instead, and says the sum."""
    return store_games.bump_counter(key, amount, now, now - window)


def may_mail(
    address: str,
    size: int,
    now: datetime,
    proven: bool,
    ledger: str = "own",
    limits: SecuritySettings | None = None,
) -> bool:
    """Count one mail of about `size` bytes to `address` (its mailbox: outbound/mailbox);
    False (the mail is not sent) once the hour's cap is reached: `unproven_per_hour` mails
    and `unproven_bytes_per_hour` bytes to an address that never answered the judge,
    `proven_bytes_per_hour` bytes to one that did (or answers to a seat's right password),
    `game_bytes_per_hour` of a game's mail to a seat's person who did. ``ledger`` keeps
    apart what an address's own mail causes ("own"), the games' mail to the people seated
    in them ("seat": results, notices, press, the clock's), and what others' mail causes
    ("others", always at the small caps): mail from strangers never spends an address's
    own allowance. ``limits``: the judge's settings when not given."""
    limits = limits or _limits()
    hour, address = timedelta(hours=1), mailbox(address)  # box+1@ and box+2@ are one box
    prefix = "" if ledger == "own" else f"{ledger}-"
    proven = proven and ledger != "others"
    if not proven and bump(f"{prefix}unproven:{address}", now, hour) > limits.unproven_per_hour:
        return False
    if not proven:
        cap = limits.unproven_bytes_per_hour
    elif ledger == "seat":
        cap = limits.game_bytes_per_hour
    else:
        cap = limits.proven_bytes_per_hour
    return bump_by(f"{prefix}bytes:{address}", size, now, hour) <= cap


def proven_among(addresses: list[str]) -> set[str]:
    """Which of `addresses` (lower case) are proven, in one query."""
    keys = {f"proven:{a.lower()}": a.lower() for a in addresses}
    found = AddressCounter.select(AddressCounter.key).where(AddressCounter.key.in_(list(keys)))
    return {keys[str(row.key)] for row in found}


def answers_reopen_at(address: str, now: datetime, ledger: str = "own") -> datetime:
    """When the hour's caps of ``address`` (its ``ledger``) start afresh: the end of the
    later window of its counters (an answer held by them may go then)."""
    hour, address = timedelta(hours=1), address.lower()
    prefix = "" if ledger == "own" else f"{ledger}-"
    keys = (f"{prefix}unproven:{address}", f"{prefix}bytes:{address}")
    return max((_window_end(key, now, hour) for key in keys), default=now + hour)


def repeats_end_at(sender: str, fingerprint: str, now: datetime) -> datetime:
    """When the hour in which `sender` sent this same text too often ends."""
    return _window_end(f"same:{sender.lower()}:{fingerprint}", now, timedelta(hours=1))


def first_notice(key: str, now: datetime) -> bool:
    """Whether this is the first notice of ``key`` within the hour (one a window: a notice
    that answers are held is itself never more than one more mail an hour)."""
    return bump(f"notice:{key}", now, timedelta(hours=1)) == 1


def _window_end(key: str, now: datetime, window: timedelta) -> datetime:
    row = _counters(key).get(key)
    if row is None or row.window_start + window <= now:
        return now
    return row.window_start + window  # type: ignore[no-any-return]


def repeats(sender: str, fingerprint: str, now: datetime) -> int:
    """How often `sender` sent this same text within the hour, this mail included: an
    auto-responder without auto-reply headers sends the same words again and again."""
    return bump(f"same:{mailbox(sender)}:{fingerprint}", now, timedelta(hours=1))


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

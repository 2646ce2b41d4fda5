"""Waits that survive a clock stepped back. The outbox stores each mail's next attempt as
a time of the clock: a clock stepped back a day held queued replies for a day. A wait
further ahead than any the outbox sets (the longest retry, the hold of a bouncing
address) is from a clock that has stepped back since: the mail is due now. Each sender
looks when it starts, every LOOK_EVERY seconds of monotonic time, and at once when it
sees its own clock go back."""

from __future__ import annotations

import logging
import time
import weakref
from dataclasses import dataclass
from datetime import datetime, timedelta

from peewee import Field

from mailjudge.outbound.retry import HOLD_RECHECK, RetryPolicy
from mailjudge.store.db import prompt_write
from mailjudge.store.models import Outbox

log = logging.getLogger(__name__)

_id_field: Field[int] = Outbox._meta.fields["id"]


LOOK_EVERY = 60.0
STEP_SLACK = timedelta(minutes=1)
LEASE_SLACK = timedelta(minutes=5)


@dataclass
class _ClockWatch:
    """What one sender last took for now, and when it looks again."""

    last_now: datetime | None = None
    next_look: float = 0.0


_WATCHES: weakref.WeakKeyDictionary[object, _ClockWatch] = weakref.WeakKeyDictionary()


def mind_the_clock(sender: object, now: datetime, retry: RetryPolicy) -> None:
    try:
        watch = _WATCHES.setdefault(sender, _ClockWatch())
    except TypeError:  # a sender that takes no weak reference: it looks every time
        watch = _ClockWatch()
    stepped_back = watch.last_now is not None and now < watch.last_now - STEP_SLACK
    watch.last_now = now
    if stepped_back or time.monotonic() >= watch.next_look:
        watch.next_look = time.monotonic() + LOOK_EVERY
        due_after_a_step_back(now, retry, stepped_back)


def due_after_a_step_back(now: datetime, retry: RetryPolicy, stepped_back: bool = False) -> int:
    """Make due the mail whose wait was set by a clock that has since stepped back (see
    above); how many. ``stepped_back``: the clock was seen going back, so every queued
    wait may be from before it."""
    queued_after = now if stepped_back else now + max(retry.max_delay, HOLD_RECHECK) + STEP_SLACK
    from_the_past = ((Outbox.state == "queued") & (Outbox.next_attempt_at > queued_after)) | (
        (Outbox.state == "sending") & (Outbox.next_attempt_at > now + retry.lease + LEASE_SLACK)
    )
    # Nearly always there is none: a read, and a write only when there is.
    if not Outbox.select(_id_field).where(from_the_past).limit(1).exists():
        return 0
    with prompt_write():
        count = int(Outbox.update(next_attempt_at=now).where(from_the_past).execute())
    log.warning("%s mails waited on a clock that has stepped back since: due now", count)
    return count

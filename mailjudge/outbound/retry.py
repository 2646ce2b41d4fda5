"""How the outbox tries a mail again: the waits between attempts, the lease of a mail being
sent, the bounces after which an address gets no more, and how long a mail held for a
bouncing address waits before it is looked at again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from mailjudge.config.settings import OutboundSettings

# A mail held for a bouncing address is looked at again after this long (outbox.py).
HOLD_RECHECK = timedelta(hours=1)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 30
    first_delay: timedelta = timedelta(seconds=30)
    max_delay: timedelta = timedelta(hours=1)
    # How long a claimed mail is reserved for the sender that claimed it.
    lease: timedelta = timedelta(minutes=10)
    # An address whose mail bounced this often gets none until its player signs on.
    bounce_limit: int = 3

    @classmethod
    def from_settings(cls, settings: OutboundSettings) -> RetryPolicy:
        return cls(
            max_attempts=settings.max_attempts,
            first_delay=timedelta(seconds=settings.retry_first_seconds),
            max_delay=timedelta(seconds=settings.retry_max_seconds),
            lease=timedelta(seconds=settings.lease_seconds),
            bounce_limit=settings.bounce_limit,
        )

    def delay(self, attempts: int) -> timedelta:
        """The wait after the `attempts`-th failed attempt: first, 2 x first, 4 x ..."""
        doublings = min(max(attempts - 1, 0), 40)  # 2**40 x anything exceeds max_delay
        return min(self.first_delay * (1 << doublings), self.max_delay)

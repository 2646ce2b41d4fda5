"""A spool worker in its own process, for the claim race tests: wait for the starting
gun, process queued mail until none is left, print how many it took.

Its handler records each mail as a Person row with a unique address, so a mail handled
twice would fail the second time and end up shunted.
"""

from __future__ import annotations

import sys
import time

from mailjudge.inbound import spool
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, Person


def record(message: InboundMessage) -> None:
    Person.create(email=f"mail-{message.__data__['id']}@spool.test")
    time.sleep(0.002)  # hold the work a moment, so the two workers overlap


def main(url: str, start_at: float) -> None:
    db.connect(url)
    time.sleep(max(0.0, start_at - time.time()))
    print(spool.process_pending(record), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))

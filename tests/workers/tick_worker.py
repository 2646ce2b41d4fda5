"""A judge's clock in its own process, for the race test: at the starting gun, run one
clock tick at the given (fake) time and print how many mails it produced."""

from __future__ import annotations

import sys
import time
from datetime import datetime

from mailjudge.service import deadlines
from mailjudge.store import db


def main(url: str, now: str, start_at: float) -> None:
    db.connect(url)
    time.sleep(max(0.0, start_at - time.time()))
    with db.database_proxy.atomic():
        mails = deadlines.tick(datetime.fromisoformat(now))
    print(len(mails), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))

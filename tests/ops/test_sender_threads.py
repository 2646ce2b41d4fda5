"""Two threads sending through one judge (issue 32, point 4): `Judge.work_once()` called
in a loop from a second thread while the judge's own worker runs never shares the relay
connection between them; every mail is sent once and none is left in "sending"."""

from __future__ import annotations

import threading
from collections import Counter

from helpers.e2e import Harness

from mailjudge.store.models import Outbox


def test_work_once_beside_the_worker_sends_each_mail_once(harness: Harness) -> None:
    stop = threading.Event()
    errors: list[BaseException] = []

    def second_sender() -> None:
        while not stop.is_set():
            try:
                harness.judge.work_once()
            except BaseException as exc:  # kept for the assertion below
                errors.append(exc)

    other = threading.Thread(target=second_sender)
    other.start()
    try:
        asked = []
        for round_ in range(3):
            # Mails from many addresses, so that both threads have replies to send at once.
            asked += [harness.send(f"p{round_}-{n}@players.test", "HELP") for n in range(20)]
            harness.wait_until(
                lambda done=asked: all(harness.replies_to(m) for m in done), 120, "every reply"
            )
    finally:
        stop.set()
        other.join(timeout=60)
    assert not errors, errors
    assert Outbox.select().where(Outbox.state != "sent").count() == 0, [
        (o.id, o.state, o.last_error) for o in Outbox.select().where(Outbox.state != "sent")
    ]
    sent = Counter(str(m.message["Message-ID"]) for m in harness.sink.mails)
    assert sent and max(sent.values()) == 1, [k for k, v in sent.items() if v > 1]
    assert Outbox.select().count() == len(sent)

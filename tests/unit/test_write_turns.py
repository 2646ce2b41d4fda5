"""The sender gets SQLite's write lock from a worker that writes batch after batch: it
asks, the worker lets it go between two batches, and nobody waits on a dead one."""

from __future__ import annotations

import threading
import time

from mailjudge.app.write_turns import WriteTurns
from mailjudge.store.db import WriteTurn, database_proxy, prompt_write


def _busy_worker(
    stop: threading.Event, give_way: object, holding: threading.Event
) -> threading.Thread:
    """A worker holding the write lock nearly all the time: transactions of 3 ms, one
    right after the other, with ``give_way`` (if any) between them. ``holding`` is set
    while it holds the lock."""

    def work() -> None:
        while not stop.is_set():
            with prompt_write():
                database_proxy.execute_sql("INSERT INTO t VALUES (1)")
                holding.set()
                time.sleep(0.003)
                holding.clear()
            if callable(give_way):
                give_way()
        database_proxy.close()

    return threading.Thread(target=work)


def _sender_writes(
    turn: WriteTurn | None, writes: int, within: float, holding: threading.Event
) -> int:
    """How many of ``writes`` claims the sender made within ``within`` seconds, each begun
    while the worker holds the lock (on a loaded machine the worker's thread may otherwise
    be away whenever the sender tries, and the sender never needs to ask)."""
    made, deadline = 0, time.monotonic() + within
    while made < writes and time.monotonic() < deadline:
        holding.wait(max(deadline - time.monotonic(), 0.0))
        try:
            with prompt_write(patience=max(deadline - time.monotonic(), 0.0), pause=0.004,
                              turn=turn):  # fmt: skip
                database_proxy.execute_sql("INSERT INTO t VALUES (2)")
        except Exception:
            break
        made += 1
    return made


def test_a_sender_that_asks_is_let_in_between_two_batches(sqlite_db: str) -> None:
    database_proxy.execute_sql("CREATE TABLE t (x INTEGER)")
    turns = WriteTurns(1)
    worker = turns.worker(0)
    stop, holding = threading.Event(), threading.Event()
    thread = _busy_worker(stop, worker.give_way, holding)
    thread.start()
    try:
        # The bound is a wait for the 20 writes, long enough for any machine: what counts
        # is that they all went in past a worker that holds the lock nearly all the time,
        # and that the worker gave way for them.
        made = _sender_writes(turns.sender(), writes=20, within=60.0, holding=holding)
    finally:
        stop.set()
        thread.join()
        turns.close()
    assert made == 20
    assert worker.given_way >= 1
    (count,) = database_proxy.execute_sql("SELECT COUNT(*) FROM t WHERE x = 2").fetchone()
    assert count == 20


def test_a_worker_goes_on_when_the_sender_that_asked_is_dead() -> None:
    """A sender that asked and never says it is done does not hold the workers up: each
    gives way once, then goes on (the join's timeout only waits for that to happen)."""
    turns = WriteTurns(2)
    first, second = turns.worker(0), turns.worker(1)
    turns.sender().wait_for_turn(0.0)  # asked, then never says it is done

    def both() -> None:
        first.give_way()
        second.give_way()
        first.give_way()  # nobody asked again: it does not give way a second time

    workers = threading.Thread(target=both)
    workers.start()
    workers.join(timeout=30)
    assert not workers.is_alive(), "a worker still waits for a dead sender"
    assert (first.given_way, second.given_way) == (1, 1)
    turns.close()


def test_the_worker_lets_the_sender_go_first_and_goes_on_when_told() -> None:
    """With a wait longer than the test (so only the sender's word can end it), the
    worker lets go, the sender writes, and the worker goes on after the sender is done."""
    turns = WriteTurns(1, most_wait=120.0)
    worker, sender = turns.worker(0), turns.sender()
    sender.wait_for_turn(0.0)
    events: list[str] = []

    def sender_side() -> None:
        assert turns.given.wait(60.0)  # the worker let go
        events.append("sender wrote")
        sender.turn_over()

    helper = threading.Thread(target=sender_side)
    helper.start()
    worker.give_way()
    events.append("worker went on")
    helper.join()
    assert worker.given_way == 1
    assert events == ["sender wrote", "worker went on"]
    turns.close()


def test_the_spool_lets_the_sender_in_between_a_claim_and_its_batch(sqlite_db: str) -> None:
    """Through `spool.process_pending`: the sender's write goes in while the worker holds
    claimed mails and before their transaction, with the mails read meanwhile."""
    from mailjudge.inbound import spool

    for n in range(3):
        raw = f"From: p{n}@example.org\r\nMessage-ID: <m{n}@example.org>\r\n\r\nhi\r\n"
        spool.store(raw.encode(), f"p{n}@example.org", ["judge@example.org"], "smtp")
    database_proxy.execute_sql("CREATE TABLE t (x INTEGER)")
    turns = WriteTurns(1, most_wait=5.0)  # a loaded machine may be slow to wake the sender
    worker, sender = turns.worker(0), turns.sender()
    events: list[str] = []

    def sender_side() -> None:
        with prompt_write(patience=5.0, pause=0.004, turn=sender):
            database_proxy.execute_sql("INSERT INTO t VALUES (2)")
            events.append("sender wrote")
        database_proxy.close()

    def prepare(row: object) -> None:
        events.append("read")

    def handle(row: object, prepared: object = None) -> None:
        if not events or events[-1] != "batch":
            events.append("batch")

    sender.wait_for_turn(0.0)  # the sender has asked: it waits on its bell next
    helper = threading.Thread(target=sender_side)
    with prompt_write():  # the worker holds the lock until it claims
        helper.start()
        time.sleep(0.05)
    assert spool.process_pending(handle, prepare=prepare, turns=worker) == 3
    helper.join()
    turns.close()
    assert worker.given_way >= 1
    assert events.index("sender wrote") < events.index("batch")
    assert events.count("read") == 3

"""A worker's batch on PostgreSQL runs in psycopg's pipeline mode (db.pipelined): the
writes whose result nobody reads are not waited for, yet an error stays with the mail
that caused it, in that mail's savepoint, and the mails after it go on. On SQLite the same
batch runs as it always did."""

from __future__ import annotations

from mailjudge.inbound import spool
from mailjudge.store import db
from mailjudge.store import games as store_games
from mailjudge.store.models import InboundMessage, Person, utcnow


def _store(n: int) -> None:
    raw = f"From: p{n}@example.org\r\nMessage-ID: <m{n}@example.org>\r\n\r\nhi\r\n"
    spool.store(raw.encode(), f"p{n}@example.org", ["judge@example.org"], "smtp")


def test_an_error_of_a_write_not_read_stays_with_its_mail(any_db: str) -> None:
    """The second mail writes orders of a game that does not exist (an INSERT whose result
    is not read: in a pipeline its error comes later); it alone is shunted, with that
    error, and nothing of it stays. The first and third are done, their writes kept."""
    for n in (1, 2, 3):
        _store(n)

    def handler(row: InboundMessage) -> None:
        Person.create(email=f"{row.message_id}@people.example")
        if row.message_id == "<m2@example.org>":
            store_games.insert_orders(999_999, "S1901M", "FRANCE", [("A PAR H", None, utcnow())])

    assert spool.process_pending(handler) == 3
    states = {r.message_id: (r.state, r.error) for r in InboundMessage.select()}
    assert states["<m1@example.org>"] == ("done", "")
    assert states["<m3@example.org>"] == ("done", "")
    state, error = states["<m2@example.org>"]
    assert state == "shunted" and "IntegrityError" in error
    people = sorted(p.email for p in Person.select())
    assert people == ["<m1@example.org>@people.example", "<m3@example.org>@people.example"]


def test_on_postgresql_a_batch_runs_in_a_pipeline(pg: str) -> None:
    _store(1)
    seen: list[bool] = []

    def handler(row: InboundMessage) -> None:
        seen.append(getattr(db.database_proxy.obj._state, "pipeline", None) is not None)

    assert spool.process_pending(handler) == 1
    assert seen == [db.PIPELINE]
    assert getattr(db.database_proxy.obj._state, "pipeline", None) is None

"""Telling the operator (judge.operator) when the judge cannot do its job: one mail when a
problem starts and one when it is over, never one a minute.

The clock asks `notify_operator` once a minute (`clock_job`). What it told is kept in the
database (OperatorAlert, by the problem's key), so a judge restarted in the middle of an
outage does not tell it again, and the judges sharing a PostgreSQL database tell it once.
A problem is over once it has not been seen for CLEAR_AFTER: a relay that comes and goes
makes one mail, not one each time.

When the database itself is away the outbox is too, and `send_direct_alert` hands one
mail straight to the relay instead.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from mailjudge.app.caps import queue_within_caps
from mailjudge.config.settings import Settings
from mailjudge.outbound.connections import connection_from_settings
from mailjudge.outbound.message import judge_headers, plain_text_bytes
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing
from mailjudge.store import db
from mailjudge.store.health import problems
from mailjudge.store.models import OperatorAlert

log = logging.getLogger(__name__)

CLEAR_AFTER = timedelta(minutes=10)
# The words of the last failure of clock_job: a database away for an hour is one log line.
_last_failure: list[str] = [""]


def notify_operator(settings: Settings, now: datetime) -> list[Outgoing]:
    """Note what is wrong now against what the operator was told; the mail that tells
    them what changed (none when nothing did, or when judge.operator is empty). Runs in
    the caller's transaction."""
    found = {problem.key: problem for problem in problems(now, db.sqlite_file())}
    told = {row.key: row for row in OperatorAlert.select()}
    started = [problem for key, problem in found.items() if key not in told]
    for problem in started:
        OperatorAlert.create(key=problem.key, summary=problem.summary, started_at=now, seen_at=now)
        log.warning("the judge cannot do all of its job: %s", problem.summary)
    still = [key for key in found if key in told]
    if still:
        OperatorAlert.update(seen_at=now).where(OperatorAlert.key.in_(still)).execute()
    ended = [
        row for key, row in told.items() if key not in found and now - row.seen_at >= CLEAR_AFTER
    ]
    if ended:
        OperatorAlert.delete().where(OperatorAlert.key.in_([row.key for row in ended])).execute()
        for row in ended:
            log.info("over: %s", row.summary)
    if not settings.judge.operator or not (started or ended):
        return []
    body = render(
        "operator_alert.txt.j2",
        judge=settings.judge.address,
        started=started,
        ended=ended,
        when=_when(now),
        show=_when,
    )
    first = started[0].summary if started else f"over: {ended[0].summary}"
    more = len(started) + len(ended) - 1
    subject = f"[mailjudge] {first}" + (f" (and {more} more)" if more else "")
    return [Outgoing(to=[settings.judge.operator], subject=subject, body=body, kind="notice")]


def clock_job(settings: Settings, clock: Callable[[], datetime]) -> None:
    """The clock's minute (app/runner.py): the operator's mail, queued in one transaction.
    A failure (the database away) is logged once, in one line, until it changes."""
    now = clock()
    try:
        with db.database_proxy.atomic():
            queue_within_caps(notify_operator(settings, now), settings, now)
    except Exception as err:
        words = " ".join(str(err).split())
        if words != _last_failure[0]:
            log.warning("cannot look for the operator's alerts: %s", words)
        _last_failure[0] = words
        return
    _last_failure[0] = ""


def send_direct_alert(settings: Settings, subject: str, body: str) -> bool:
    """One mail to the operator handed straight to the relay, past the outbox (for when
    the database, and the outbox with it, is away). Whether the relay took it; False too
    when judge.operator is unset (the problem is then logged, and nobody mailed). Never
    raises: the caller is already in trouble."""
    if not settings.judge.operator:
        log.warning("%s (judge.operator is unset: nobody is mailed)", subject)
        return False
    headers = judge_headers(
        sender=settings.judge.address,
        sender_name=settings.judge.name,
        to=[settings.judge.operator],
        subject=f"[mailjudge] {subject}",
        auto_submitted="auto-generated",
    )
    raw = plain_text_bytes(headers, body)
    sender = connection_from_settings(settings.outbound, settings.judge.address, settings.dkim)
    try:
        sender.send(raw, [settings.judge.operator])
    except Exception as err:
        log.error("could not mail the operator (%s): %s", subject, " ".join(str(err).split()))
        return False
    finally:
        sender.close()
    log.info("mailed the operator past the outbox: %s", subject)
    return True


def outage_alert(settings: Settings, role: str) -> Callable[[str, float], None]:
    """What an Outages (mailjudge.store.outages) of the judge's ``role`` calls when the database
    has been away for more than a minute: the operator is mailed past the outbox, once an
    outage."""

    def alert(reason: str, seconds: float) -> None:
        body = render(
            "operator_outage.txt.j2", judge=settings.judge.address,
            host=socket.gethostname(), reason=reason, seconds=round(seconds), role=role,
        )  # fmt: skip
        send_direct_alert(settings, "the judge cannot use its database", body)

    return alert


def _when(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"

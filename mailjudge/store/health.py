"""What stops the judge doing its job, read from its database and its machine.

`mailjudge status` prints these first and exits 1 when there is any; the web's /health
answers 503 with their summaries (for a load balancer or a monitor); the clock mails the
operator once when one starts and once when it is over (app/alerts.py). Each is a few
indexed counts, cheap enough for a monitor that asks every few seconds.

- the relay refuses: mail it was offered and did not take still waits after RELAY_GRACE,
  or it refused more mail for good (5xx) than it took in the last hour;
- the outbox is not being sent: mail due for OUTBOX_LATE was never tried (the sender
  stopped, or is far behind);
- a game is held by the clock after a failure (Game.clock_error);
- mail was shunted lately (a worker failed on it: a fault of the judge);
- SQLite: the disk of the database is full or nearly (DISK_SPARE);
- the database cannot be reached (the callers, which cannot ask it: `unreachable`).

A summary names no address and no secret: /health shows it to whoever asks. The detail
(an error's words, which may name an address) goes to the operator only.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from peewee import fn

from mailjudge.store import tools
from mailjudge.store.db import database_proxy, is_postgres
from mailjudge.store.models import HELD, RESTORE_HELD, Game, InboundMessage, Outbox

RELAY_GRACE = timedelta(minutes=5)
OUTBOX_LATE = timedelta(minutes=5)
SHUNTED_WITHIN = timedelta(hours=1)
# The relay refuses everything: this many mails refused for good within the hour, and
# fewer taken.
REFUSED_WITHIN = timedelta(hours=1)
REFUSED_AT_LEAST = 3
# The disk is (nearly) full below the smaller of these: a mail up to smtp.max_message_bytes
# must still fit, and on a small disk a twentieth of it is all a judge can hope for.
DISK_SPARE_BYTES = 64 * 1024 * 1024
DISK_SPARE_SHARE = 0.05
WAITING = ("queued", "sending")


@dataclass(frozen=True)
class Problem:
    """One thing that stops the judge doing its job. ``key`` names it from one look to
    the next (the alerts remember what they told by it)."""

    key: str
    summary: str  # one line, no address, no secret: /health shows it
    advice: str  # what the operator does about it
    detail: str = ""  # the last error's words and the like, for the operator only


def problems(now: datetime, database_file: Path | None = None) -> list[Problem]:
    """What is wrong now, most urgent first. ``database_file``: the SQLite database's
    file, whose disk is looked at (None on PostgreSQL, whose disk is the server's)."""
    return [
        *_disk(database_file), *_standby(), *_relay(now), *_refused(now), *_outbox(now),
        *_held_games(), *_shunted(now),
    ]  # fmt: skip


def _standby() -> list[Problem]:
    """PostgreSQL with a synchronous standby named and none connected: every commit waits
    for it, so no mail is stored, answered or sent, and nothing fails to say so."""
    if not is_postgres():
        return []
    named, connected = tools.synchronous_standbys(database_proxy)
    if not named.strip() or connected:
        return []
    return [
        Problem(
            "standby",
            "the synchronous standby is not connected: every commit waits for it, so no "
            "mail is stored, answered or sent",
            "start the standby again (it catches up by itself), or let the primary commit "
            "alone meanwhile: ALTER SYSTEM SET synchronous_standby_names = ''; SELECT "
            "pg_reload_conf()",
            f"synchronous_standby_names = {named}",
        )
    ]


def unreachable(error: BaseException | str) -> Problem:
    """The database cannot be reached: nothing else can be known."""
    words = " ".join(str(error).split())
    return Problem(
        "database",
        "the database cannot be reached: no mail is stored, answered or sent",
        "check that the database server runs and database.url reaches it",
        words[:300],
    )


def _relay(now: datetime) -> list[Problem]:
    deferred = (
        Outbox.state.in_(WAITING) & (Outbox.attempts > 0) & ~Outbox.last_error.startswith(HELD)
    )
    waiting = Outbox.select().where(deferred)
    count = waiting.count()
    oldest = _moment(waiting.select(fn.MIN(Outbox.created_at)).scalar()) if count else None
    if not count or oldest is None or now - oldest < RELAY_GRACE:
        return []
    last = Outbox.select(Outbox.last_error).where(deferred).order_by(Outbox.id.desc()).first()
    return [
        Problem(
            "relay",
            f"the relay does not take the judge's mail ({_mails(count)} waiting, the "
            f"oldest for {_duration(now - oldest)})",
            "check the relay (outbound.host, outbound.port, its log and its queue) and the "
            "judge's login at it; the mail goes out by itself once the relay takes it",
            f"last error: {last.last_error}" if last is not None else "",
        )
    ]


def _refused(now: datetime) -> list[Problem]:
    """Mail the relay refused for good (5xx), more of it than it took in the last hour:
    a relay that refuses everything leaves nothing waiting, and loses every mail."""
    since = now - REFUSED_WITHIN
    # A mail given up keeps the end of its last claim's lease as its next attempt.
    refused = (
        (Outbox.state == "failed")
        & ~Outbox.last_error.startswith("not sent: ")  # held for bouncing, then given up
        & ~Outbox.last_error.startswith(RESTORE_HELD)
    )
    failed = Outbox.select().where(refused & (Outbox.next_attempt_at >= since)).count()
    if failed < REFUSED_AT_LEAST:
        return []
    sent = Outbox.select().where((Outbox.state == "sent") & (Outbox.sent_at >= since)).count()
    if sent >= failed:
        return []
    newest = Outbox.select(Outbox.last_error).where(refused).order_by(Outbox.id.desc()).first()
    return [
        Problem(
            "refused",
            f"the relay refused {_mails(failed)} for good in the last hour, and took "
            f"{sent}: they are lost",
            "check that the relay relays for the judge (its mynetworks, or the judge's "
            "login at it: outbound.user); mailjudge status lists the refusals",
            f"last refusal: {newest.last_error}" if newest is not None else "",
        )
    ]


def _outbox(now: datetime) -> list[Problem]:
    late = Outbox.select().where(
        Outbox.state.in_(WAITING)
        & (Outbox.attempts == 0)
        & (Outbox.next_attempt_at <= now - OUTBOX_LATE)
        & ~Outbox.last_error.startswith(HELD)
    )
    count = late.count()
    if not count:
        return []
    return [
        Problem(
            "outbox",
            f"the outbox is not being sent ({_mails(count)} due for over "
            f"{_duration(OUTBOX_LATE)}, never tried)",
            "see whether the judge's sender runs (the log's 'sender' lines; restart the "
            "judge: nothing queued is lost)",
        )
    ]


def _held_games() -> list[Problem]:
    held = Game.select(Game.name, Game.clock_error).where(Game.clock_error != "")
    return [
        Problem(
            f"clock:{game.name}",
            f"game {game.name} is held by the clock after a failure",
            f"see the log for its traceback; once the cause is fixed, mailjudge requeue "
            f"{game.name}",
            game.clock_error[:300],
        )
        for game in held.order_by(Game.name)
    ]


def _shunted(now: datetime) -> list[Problem]:
    recent = (
        (InboundMessage.state == "shunted")
        & (InboundMessage.processed_at >= now - SHUNTED_WITHIN)
        & ~InboundMessage.error.startswith(RESTORE_HELD)
    )
    count = InboundMessage.select().where(recent).count()
    if not count:
        return []
    return [
        Problem(
            "shunted",
            f"{_mails(count)} could not be answered in the last hour (shunted after a fault)",
            "mailjudge status lists them under Last errors, the log has each traceback; "
            "their senders got no answer",
        )
    ]


def _disk(database_file: Path | None) -> list[Problem]:
    if database_file is None:
        return []
    try:
        usage = shutil.disk_usage(database_file.parent)
    except OSError:
        return []
    spare = min(DISK_SPARE_BYTES, int(usage.total * DISK_SPARE_SHARE))
    if usage.free >= spare:
        return []
    return [
        Problem(
            "disk",
            f"the disk of the database is full: {_size(usage.free)} free of "
            f"{_size(usage.total)}; mail is refused or not answered",
            f"free space on the disk of {database_file.parent} (mailjudge prune shrinks the "
            "judge's own database); the judge goes on by itself",
        )
    ]


def _moment(value: object) -> datetime | None:
    """An aggregate's datetime, as the database gives it (SQLite: its text)."""
    if value is None or isinstance(value, datetime):
        return value
    found = Outbox.created_at.python_value(value)
    return found if isinstance(found, datetime) else None


def _mails(count: int) -> str:
    return "1 mail" if count == 1 else f"{count} mails"


def _duration(span: timedelta) -> str:
    minutes = int(span.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} minutes"
    hours = minutes // 60
    return f"{hours} hours" if hours < 48 else f"{hours // 24} days"


def _size(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size // 1024} KB"

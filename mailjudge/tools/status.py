"""`mailjudge status`: what an operator checks first. What stops the judge doing its job
(mailjudge.store.health: then the command exits 1), the games, the mail waiting in and out, the
last errors, and how big the database is and where its size goes."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

from peewee import fn

from mailjudge import __version__
from mailjudge.inbound.landing import Landing, landing_path
from mailjudge.store import tools
from mailjudge.store.db import database_proxy, is_postgres, sqlite_file
from mailjudge.store.health import Problem, problems
from mailjudge.store.models import HELD, RESTORE_HELD, Game, InboundMessage, Outbox, utcnow
from mailjudge.tools.migrations import LATEST, current_version
from mailjudge.tools.restored_mail import held_counts


def status_report(database_url: str, errors: int = 5) -> str:
    return status(database_url, errors)[0]


def status(
    database_url: str, errors: int = 5, now: datetime | None = None
) -> tuple[str, list[Problem]]:
    """The report, and the problems it starts with (none: the judge does its job)."""
    found = problems(now or utcnow(), sqlite_file())
    lines = [*problem_lines(found), "", "Games:"]
    states = Counter(str(state) for state in Game.select(Game.state).scalars())
    lines += [f"    {state:<10} {count}" for state, count in sorted(states.items())] or ["    none"]
    waiting_in = InboundMessage.select().where(InboundMessage.state.in_(("queued", "processing")))
    held = [f"    held by the clock: {g.name} ({g.clock_error}); mailjudge requeue {g.name}"
            for g in Game.select().where(Game.clock_error != "")]  # fmt: skip
    waiting_out = Outbox.select().where(Outbox.state.in_(("queued", "sending")))
    bouncing = waiting_out.where(Outbox.last_error.startswith(HELD)).count()
    lines += [*held, "", "Mail waiting:", f"    to answer  {waiting_in.count() + _landed()}",
              f"    to send    {waiting_out.count() - bouncing}",
              f"    held       {bouncing} (their addresses bounce; sent at SIGNON)"]  # fmt: skip
    held_out, held_in = held_counts()
    if held_out or held_in:
        lines.append(f"    held at a restore: {held_out} to send, {held_in} to answer (they may "
                     "have gone already; mailjudge release-held lets them go)")  # fmt: skip
    lines += ["", "Last errors:"] + (_last_errors(errors) or ["    none"])
    version = current_version(database_proxy.obj)
    lines += ["", f"Database: {_human(_database_bytes(database_url))}, schema version "
              f"{version if version is not None else 'not kept (run mailjudge init)'} "
              f"(this judge: {LATEST}, mailjudge {__version__})", "Largest tables:"]  # fmt: skip
    lines += [f"    {name:<16} {_human(size)}" for name, size in _largest_tables()]
    return "\n".join(lines) + "\n", found


def problem_lines(found: list[Problem]) -> list[str]:
    """The problems in plain words, each with what to do."""
    if not found:
        return ["Problems: none (the judge does its job)"]
    lines = ["Problems:"]
    for problem in found:
        lines.append(f"    {problem.summary}")
        if problem.detail:
            lines.append(f"        {problem.detail[:300]}")
        lines.append(f"        what to do: {problem.advice}")
    return lines


def _landed() -> int:
    """Mails the listener has kept in its landing and not yet moved to the spool."""
    database_file = sqlite_file()
    path = landing_path(database_file) if database_file is not None else None
    if path is None or not path.exists():
        return 0
    landing = Landing(path)
    try:
        return landing.count()
    finally:
        landing.close()


def _last_errors(limit: int) -> list[str]:
    columns = (InboundMessage.message_id, InboundMessage.error)
    shunted = InboundMessage.select(*columns).where(
        (InboundMessage.state == "shunted") & ~InboundMessage.error.startswith(RESTORE_HELD)
    )
    newest_in = shunted.order_by(InboundMessage.id.desc()).limit(limit)
    failed = Outbox.select(Outbox.to_addrs, Outbox.last_error).where(
        (Outbox.state == "failed") & ~Outbox.last_error.startswith(RESTORE_HELD)
    )
    newest_out = failed.order_by(Outbox.id.desc()).limit(limit)
    found = [
        f"    mail in {row.message_id}: {row.error.splitlines()[-1] if row.error else '?'}"
        for row in newest_in
    ]
    found += [f"    mail out to {row.to_addrs}: {row.last_error}" for row in newest_out]
    deferred = Outbox.select(Outbox.to_addrs, Outbox.attempts, Outbox.last_error).where(
        Outbox.state.in_(("queued", "sending"))
        & (Outbox.attempts > 0)
        & ~Outbox.last_error.startswith(HELD)
    )
    found += [
        f"    mail out to {row.to_addrs} deferred ({row.attempts} attempts): {row.last_error}"
        for row in deferred.order_by(Outbox.id.desc()).limit(limit)
    ]
    return [line[:200] for line in found]


def _database_bytes(url: str) -> int:
    if is_postgres():
        return tools.postgres_database_bytes(database_proxy)
    path = url.partition("://")[2]
    path = path[1:] if path.startswith("/") else path
    files = [Path(path), Path(path + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists())


def _largest_tables(limit: int = 5) -> list[tuple[str, int]]:
    if is_postgres():
        return tools.largest_tables(database_proxy, True, limit)
    try:
        return tools.largest_tables(database_proxy, False, limit)
    except Exception:  # an SQLite built without dbstat: the raw mail is what grows
        size = Outbox.select(fn.SUM(fn.LENGTH(Outbox.raw))).scalar() or 0
        return [("outbox (mail)", int(size))]


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"

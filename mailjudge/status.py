"""`mailjudge status`: what an operator checks first. The games, the mail waiting in
and out, the last errors, and how big the database is and where its size goes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from peewee import fn

from mailjudge import __version__
from mailjudge.db import database_proxy, is_postgres, sqlite_file
from mailjudge.inbound.landing import Landing, landing_path
from mailjudge.migrations import LATEST, current_version
from mailjudge.models import Game, InboundMessage, Outbox


def status_report(database_url: str, errors: int = 5) -> str:
    lines = ["Games:"]
    states = Counter(str(state) for state in Game.select(Game.state).scalars())
    lines += [f"    {state:<10} {count}" for state, count in sorted(states.items())] or ["    none"]
    waiting_in = InboundMessage.select().where(InboundMessage.state.in_(("queued", "processing")))
    held = [f"    held by the clock: {g.name} ({g.clock_error}); mailjudge requeue {g.name}"
            for g in Game.select().where(Game.clock_error != "")]  # fmt: skip
    waiting_out = Outbox.select().where(Outbox.state.in_(("queued", "sending")))
    bouncing = waiting_out.where(Outbox.last_error.startswith("held: ")).count()
    lines += [*held, "", "Mail waiting:", f"    to answer  {waiting_in.count() + _landed()}",
              f"    to send    {waiting_out.count() - bouncing}",
              f"    held       {bouncing} (their addresses bounce; sent at SIGNON)"]  # fmt: skip
    lines += ["", "Last errors:"] + (_last_errors(errors) or ["    none"])
    version = current_version(database_proxy.obj)
    lines += ["", f"Database: {_human(_database_bytes(database_url))}, schema version "
              f"{version if version is not None else 'not kept (run mailjudge init)'} "
              f"(this judge: {LATEST}, mailjudge {__version__})", "Largest tables:"]  # fmt: skip
    lines += [f"    {name:<16} {_human(size)}" for name, size in _largest_tables()]
    return "\n".join(lines) + "\n"


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
    shunted = InboundMessage.select(*columns).where(InboundMessage.state == "shunted")
    newest_in = shunted.order_by(InboundMessage.id.desc()).limit(limit)
    failed = Outbox.select(Outbox.to_addrs, Outbox.last_error).where(Outbox.state == "failed")
    newest_out = failed.order_by(Outbox.id.desc()).limit(limit)
    found = [
        f"    mail in {row.message_id}: {row.error.splitlines()[-1] if row.error else '?'}"
        for row in newest_in
    ]
    found += [f"    mail out to {row.to_addrs}: {row.last_error}" for row in newest_out]
    return [line[:200] for line in found]


def _database_bytes(url: str) -> int:
    if is_postgres():
        return int(database_proxy.execute_sql("SELECT pg_database_size(current_database())")
                   .fetchone()[0])  # fmt: skip
    path = url.partition("://")[2]
    path = path[1:] if path.startswith("/") else path
    files = [Path(path), Path(path + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists())


def _largest_tables(limit: int = 5) -> list[tuple[str, int]]:
    if is_postgres():
        sql = (
            "SELECT relname, pg_total_relation_size(relid) "
            "FROM pg_catalog.pg_statio_user_tables ORDER BY 2 DESC LIMIT %s"
        )
        return [(str(n), int(s)) for n, s in database_proxy.execute_sql(sql, (limit,)).fetchall()]
    try:
        sql = (  # a table's size with its indexes
            "SELECT s.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_schema s "
            "ON d.name = s.name WHERE s.tbl_name NOT LIKE 'sqlite_%' "
            "GROUP BY s.tbl_name ORDER BY 2 DESC LIMIT ?"
        )
        return [(str(n), int(s)) for n, s in database_proxy.execute_sql(sql, (limit,)).fetchall()]
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

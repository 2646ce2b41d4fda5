"""`mailjudge backup` and `mailjudge restore`: the judge's database to one file and back.

SQLite: SQLite's online backup API copies a consistent snapshot while the judge goes on
writing (WAL readers do not block the writer), into one self-contained file (journal mode
DELETE, so no -wal file belongs to it), checked with PRAGMA integrity_check before it takes
the backup's name. Restoring copies it back the same way, so a -wal file left beside the
database cannot mix old pages into the restored one.

PostgreSQL: pg_dump's custom format, taken in one snapshot while the judges run, and
pg_restore in one transaction. The password in the URL goes to them through PGPASSWORD,
never on a command line anyone can read in `ps`.

Restoring over a database that already holds the judge's tables needs `force`: it replaces
every game in it. A judge that still serves the database would go on with what it holds
and lose the mail it takes meanwhile: restore refuses while one runs, `force` or not.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg2
from peewee import SqliteDatabase

from mailjudge.db import open_database, private_file
from mailjudge.masking import mask_mail
from mailjudge.outbound.sent_record import record_path
from mailjudge.running import JudgeRunning, no_judge_running

JUDGE_TABLE = "game"  # present in every judge database


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why and what to do."""


def backup(url: str, dest: Path) -> str:
    """Write the database at `url` to `dest`; returns what was done, for the operator."""
    database = open_database(url)
    if isinstance(database, SqliteDatabase):
        return _sqlite_backup(_sqlite_file(database), dest)
    private_file(dest)
    _pg_tool("pg_dump", url, ["--format=custom", "--no-owner", f"--file={dest}"])
    return f"PostgreSQL database backed up with pg_dump to {dest}"


def restore(url: str, source: Path, force: bool = False) -> str:
    """Put the backup `source` into the database at `url`; refused while a judge serves
    it (mailjudge.running), even with `force`."""
    if not source.is_file():
        raise BackupError(f"no backup file at {source}")
    try:
        with no_judge_running(url):
            return _restore(url, source, force)
    except JudgeRunning as err:
        raise BackupError(str(err)) from err


def _restore(url: str, source: Path, force: bool) -> str:
    database = open_database(url)
    if isinstance(database, SqliteDatabase):
        return _sqlite_restore(source, Path(database.database), force)
    if _pg_has_judge(url) and not force:
        raise BackupError(
            "the database already holds a judge's tables; stop the judge and add --force "
            "to replace everything in it with the backup"
        )
    _pg_tool(
        "pg_restore",
        url,
        ["--clean", "--if-exists", "--no-owner", "--single-transaction", str(source)],
    )
    return f"PostgreSQL database restored with pg_restore from {source}"


# -- SQLite ----------------------------------------------------------------------------


def _sqlite_file(database: SqliteDatabase) -> Path:
    path = Path(database.database)
    if database.database == ":memory:" or not path.is_file():
        raise BackupError(f"no SQLite database at {database.database}")
    return path


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy of `source` into `target`, made one self-contained file."""
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
        (verdict,) = copy.execute("PRAGMA integrity_check").fetchone()
        if verdict != "ok":
            raise BackupError(f"the copy in {target} failed SQLite's integrity check: {verdict}")
    finally:
        copy.close()


def _without_passwords(target: Path) -> None:
    """Every stored mail in the copy masked, then the copy rebuilt (VACUUM) so that no
    free page keeps what was overwritten: a backup holds no password in clear. (The
    database keeps a mail's words until it is handled; a mail still queued when the backup
    was taken and restored later is answered as having a wrong password.)"""
    copy = sqlite3.connect(target)
    try:
        copy.execute("PRAGMA secure_delete = ON")
        ids = [row[0] for row in copy.execute("SELECT id FROM inbound_message")]
        for number in ids:
            (raw,) = copy.execute(
                "SELECT raw FROM inbound_message WHERE id = ?", (number,)
            ).fetchone()
            masked = mask_mail(bytes(raw))
            if masked != bytes(raw):
                copy.execute("UPDATE inbound_message SET raw = ? WHERE id = ?", (masked, number))
        copy.commit()
        copy.execute("VACUUM")
        (verdict,) = copy.execute("PRAGMA integrity_check").fetchone()
        if verdict != "ok":
            raise BackupError(f"the copy in {target} failed SQLite's integrity check: {verdict}")
    finally:
        copy.close()


def _sqlite_backup(path: Path, dest: Path) -> str:
    part = dest.with_name(dest.name + ".part")
    part.unlink(missing_ok=True)
    private_file(part)  # a backup holds every mail, as the database does
    source = sqlite3.connect(path, timeout=30)
    try:
        _copy(source, part)
    finally:
        source.close()
    _without_passwords(part)
    os.replace(part, dest)  # a backup file is whole or absent
    return f"SQLite database {path} backed up to {dest}"


def _has_judge_tables(path: Path) -> bool:
    if not path.is_file():
        return False
    con = sqlite3.connect(path)
    try:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return con.execute(query, (JUDGE_TABLE,)).fetchone() is not None
    finally:
        con.close()


def _sqlite_restore(source: Path, target: Path, force: bool) -> str:
    try:
        if not _has_judge_tables(source):
            raise BackupError(f"{source} is not a backup of a mailjudge database")
    except sqlite3.DatabaseError as err:
        raise BackupError(f"{source} is not a SQLite backup ({err})") from err
    if _has_judge_tables(target) and not force:
        raise BackupError(
            f"{target} already holds a judge's games; stop the judge and add --force to "
            "replace them with the backup"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    backup_copy = sqlite3.connect(source)
    live = sqlite3.connect(target, timeout=30)
    try:
        backup_copy.backup(live)  # through SQLite, so its -wal and -shm files stay in step
        live.execute("PRAGMA journal_mode=WAL")
    finally:
        live.close()
        backup_copy.close()
    # Outcomes a killed sender noted (outbound.sent_record) name mails of the database
    # just replaced; carried into the restored one they would mark other mails sent.
    # Mails still in the listener's landing stay: they move into the restored database.
    for stale in (record_path(target), Path(f"{record_path(target)}-wal"),
                  Path(f"{record_path(target)}-shm")):  # fmt: skip
        stale.unlink(missing_ok=True)
    return f"SQLite database {target} restored from {source}"


# -- PostgreSQL ------------------------------------------------------------------------


def _pg_tool(tool: str, url: str, args: list[str]) -> None:
    program = shutil.which(tool)
    if program is None:
        raise BackupError(f"{tool} is not installed; install the PostgreSQL client tools")
    parts = urlsplit(url)
    env = dict(os.environ)
    netloc = parts.netloc
    if parts.password is not None:
        env["PGPASSWORD"] = parts.password
        netloc = netloc.replace(f":{parts.password}@", "@", 1)
    target = urlunsplit(parts._replace(netloc=netloc))
    command = [program, *args, f"--dbname={target}"]
    run = subprocess.run(command, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise BackupError(f"{tool} failed: {run.stderr.strip()}")


def _pg_has_judge(url: str) -> bool:
    try:
        connection = psycopg2.connect(url, connect_timeout=10)
    except psycopg2.Error as err:
        raise BackupError(f"cannot reach the database: {' '.join(str(err).split())}") from err
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT 1 FROM information_schema.tables WHERE table_name = %s "
                "AND table_schema = ANY(current_schemas(false))",
                (JUDGE_TABLE,),
            )
            return cursor.fetchone() is not None
    finally:
        connection.close()

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

The mail the backup still had to send or answer is sent again only where nothing shows it
went already (mailjudge.tools.restored_mail): the restore says how much, to how many addresses.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from peewee import SqliteDatabase

from mailjudge.outbound.sent_record import record_path
from mailjudge.secrecy.masking import mask_mail, mask_tokens
from mailjudge.store import tools
from mailjudge.store.db import open_database, private_file
from mailjudge.tools import restored_mail
from mailjudge.tools.running import JudgeRunning, no_judge_running

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
    it (mailjudge.tools.running), even with `force`."""
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
    had_judge = _pg_has_judge(url)
    if had_judge and not force:
        raise BackupError(
            "the database already holds a judge's tables; stop the judge and add --force "
            "to replace everything in it with the backup"
        )
    if had_judge:
        restored_mail.pg_keep_known(url)
    try:
        _pg_tool(
            "pg_restore",
            url,
            ["--clean", "--if-exists", "--no-owner", "--single-transaction", str(source)],
        )
    except BaseException:
        if had_judge:
            restored_mail.pg_drop_known(url)
        raise
    settled = restored_mail.pg_settle(url, known=had_judge)
    connection = psycopg.connect(url, connect_timeout=10)
    try:
        with connection:
            tools.void_reply_tokens(connection)  # the tokens the backup sent are void now
    finally:
        connection.close()
    return "\n".join([f"PostgreSQL database restored with pg_restore from {source}",
                      *settled.lines()])  # fmt: skip


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
        tools.journal_mode(copy, "DELETE")
        verdict = tools.integrity(copy)
        if verdict != "ok":
            raise BackupError(f"the copy in {target} failed SQLite's integrity check: {verdict}")
    finally:
        copy.close()


def _without_passwords(target: Path) -> None:
    """Every stored mail in the copy masked, then the copy rebuilt (VACUUM) so that no
    free page keeps what was overwritten: a backup holds no password in clear, and no
    Reply token (a sent mail's ready-to-send block keeps its token; in the copy its draft
    is masked and its rendered bytes cut to the header, which the draft makes again).
    (The database keeps a mail's words until it is handled; a mail still queued when the
    backup was taken and restored later is answered as having a wrong password.)"""
    copy = sqlite3.connect(target)
    try:
        tools.overwrite_deleted(copy)
        for number in tools.stored_mail_ids(copy):
            raw = tools.stored_mail(copy, number)
            masked = mask_mail(raw)
            if masked != raw:
                tools.set_stored_mail(copy, number, masked)
        _without_tokens(copy)
        copy.commit()
        tools.vacuum(copy)
        verdict = tools.integrity(copy)
        if verdict != "ok":
            raise BackupError(f"the copy in {target} failed SQLite's integrity check: {verdict}")
    finally:
        copy.close()


def _without_tokens(copy: sqlite3.Connection) -> None:
    """The outbox's mails in the copy without their Reply tokens (issue 52)."""
    for number, draft, raw in tools.outbox_with_tokens(copy):
        end = raw.find(b"\r\n\r\n")
        head = raw if end < 0 else raw[: end + 4]
        tools.set_outbox_mail(copy, number, mask_tokens(draft), head)


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
        return tools.sqlite_has_table(con, JUDGE_TABLE)
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
    # What the database being replaced says became of the backup's waiting mail: read
    # before it is gone.
    known = restored_mail.sqlite_known(source, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    backup_copy = sqlite3.connect(source)
    live = sqlite3.connect(target, timeout=30)
    try:
        backup_copy.backup(live)  # through SQLite, so its -wal and -shm files stay in step
        tools.journal_mode(live, "WAL")
        with live:
            tools.void_reply_tokens(live)
    finally:
        live.close()
        backup_copy.close()
    # Outcomes a killed sender noted (outbound.sent_record) name mails of the database
    # just replaced; carried into the restored one they would mark other mails sent.
    # Mails still in the listener's landing stay: they move into the restored database.
    for stale in (record_path(target), Path(f"{record_path(target)}-wal"),
                  Path(f"{record_path(target)}-shm")):  # fmt: skip
        stale.unlink(missing_ok=True)
    settled = restored_mail.sqlite_settle(target, known)
    return "\n".join([f"SQLite database {target} restored from {source}", *settled.lines()])


def shrink(url: str) -> str:
    """After a prune: give the space it freed back to the disk, where that can be done
    now; says what was done. SQLite: VACUUM, only while no judge serves the file (it
    holds the write lock throughout, and the judge's writes would time out) and when the
    disk has room for the copy it makes. PostgreSQL reuses freed space by itself."""
    database = open_database(url)
    if not isinstance(database, SqliteDatabase):
        return ("PostgreSQL reuses the space freed (autovacuum); to give it back to the disk, "
                "run VACUUM FULL outbox while the judge is stopped")  # fmt: skip
    path = _sqlite_file(database)
    before = _file_bytes(path)
    free = shutil.disk_usage(path.parent).free
    if free < before:
        return (
            f"not shrunk: VACUUM needs {before // 2**20} MB free beside the database and the "
            f"disk has {free // 2**20} MB; the space freed is reused meanwhile"
        )
    try:
        with no_judge_running(url, "prune"):
            connection = sqlite3.connect(path, timeout=30)
            try:
                tools.vacuum(connection)
                tools.checkpoint(connection)
            finally:
                connection.close()
    except JudgeRunning:
        return (
            "not shrunk while the judge runs (VACUUM would hold its writes up); the space "
            "freed is reused, and `mailjudge prune` with the judge stopped shrinks the file"
        )
    return f"{path} shrunk from {_megabytes(before)} to {_megabytes(_file_bytes(path))}"


def _file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


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
        connection = psycopg.connect(url, connect_timeout=10)
    except psycopg.Error as err:
        raise BackupError(f"cannot reach the database: {' '.join(str(err).split())}") from err
    try:
        with connection.cursor() as cursor:
            return tools.postgres_has_table(cursor, JUDGE_TABLE)
    finally:
        connection.close()

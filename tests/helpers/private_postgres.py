"""A PostgreSQL server of a test's own, on loopback, that the test may stop, restart, kill
and promote: the shared server on 5432 serves every other test and must never go away.

`PrivatePostgres(folder).start()` runs initdb in ``folder`` and starts the server on a
free port; `standby_of(primary)` makes a streaming standby with pg_basebackup -R. The
server binaries are found under /usr/lib/postgresql/*/bin or on PATH; where they are
missing the test is skipped with the reason (failed when MAILJUDGE_REQUIRE_POSTGRES=1).
As root (CI) the server runs as the `postgres` user, since it refuses to run as root.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from helpers.mailstack import free_port


def server_binaries() -> Path | None:
    """The folder of initdb, pg_ctl and pg_basebackup, newest version first."""
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "pg_basebackup").exists():
            return folder
    found = shutil.which("initdb")
    return Path(found).resolve().parent if found else None


def require_server_binaries() -> Path:
    folder = server_binaries()
    if folder is None:
        reason = "the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) are missing"
        if os.environ.get("MAILJUDGE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{reason}, and MAILJUDGE_REQUIRE_POSTGRES=1 requires them")
        pytest.skip(f"{reason}; install postgresql to run this test")
    return folder


class PrivatePostgres:
    """One PostgreSQL server: its own data folder, port and log."""

    def __init__(self, folder: Path, name: str = "primary", port: int | None = None) -> None:
        self.bin = require_server_binaries()
        self.folder = folder
        self.data = folder / name
        self.log = folder / f"{name}.log"
        self.socket_dir = folder / f"{name}-sock"
        self.port = port or free_port()
        self.name = name

    # -- running commands as the server's user ------------------------------------------

    def _as_owner(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / command[0]), *command[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if check and done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): "
                               f"{done.stdout[-1000:]} {done.stderr[-1000:]}")  # fmt: skip
        return done

    def _own_folder(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            for path in (self.folder, self.socket_dir):
                os.chown(path, owner.pw_uid, owner.pw_gid)

    # -- the server ----------------------------------------------------------------------

    def init(self, synchronous_standby: str = "") -> None:
        self._own_folder()
        self._as_owner("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                       "--no-sync")  # fmt: skip
        extra = [
            f"port = {self.port}",
            "listen_addresses = '127.0.0.1'",
            f"unix_socket_directories = '{self.socket_dir}'",
            "fsync = off",  # a test server: speed over durability of the machine's crash
            "wal_level = replica",
            "max_wal_senders = 5",
            "wal_keep_size = '64MB'",
            "hot_standby = on",
            "max_connections = 60",
            "shared_buffers = '32MB'",
        ]
        if synchronous_standby:
            extra.append(f"synchronous_standby_names = '{synchronous_standby}'")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n" + "\n".join(extra) + "\n")
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")

    def start(self, timeout: float = 30.0) -> None:
        if not self.data.exists():
            self.init()
        self._as_owner("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w",
                       "-t", str(int(timeout)), "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """pg_ctl stop: ``fast`` ends every session (a restart as an operator does it),
        ``immediate`` is a crash (no shutdown checkpoint)."""
        self._as_owner("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def kill(self) -> None:
        """SIGKILL to the postmaster and every backend, as a dead machine: by their
        process ids (the postmaster's children, read before it goes). Its lock files are
        removed once they are dead: a dead postmaster not yet reaped by the process that
        adopted it still looks alive to the next start."""
        pid = self.pid()
        if pid is None:
            return
        victims = [pid, *_descendants(pid)]
        for victim in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
        for victim in victims:
            _wait_dead(victim)
        for lock in (self.data / "postmaster.pid",
                     self.socket_dir / f".s.PGSQL.{self.port}.lock"):  # fmt: skip
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()

    def restart(self, down_seconds: float = 0.0, mode: str = "fast") -> None:
        self.stop(mode)
        time.sleep(down_seconds)
        self.start()

    def promote(self) -> None:
        self._as_owner("pg_ctl", "-D", str(self.data), "-w", "promote")

    def pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def is_up(self) -> bool:
        try:
            psycopg.connect(self.admin_url, connect_timeout=2).close()
        except psycopg.OperationalError:
            return False
        return True

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str = "judge") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str = "judge") -> str:
        connection = psycopg.connect(self.admin_url, connect_timeout=10)
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{name}"')
        finally:
            connection.close()
        return self.url(name)

    def standby(
        self, name: str = "standby", port: int | None = None, synchronous_standby: str = ""
    ) -> PrivatePostgres:
        """A streaming standby of this server (pg_basebackup -R), started, its
        application_name its ``name`` (for this server's synchronous_standby_names). Once
        promoted it waits for ``synchronous_standby`` as its own synchronous standby; with
        none it writes alone (the primary's setting, copied by pg_basebackup, would name
        the standby itself, and every commit would wait for ever). ``port``: where it
        listens (a machine put back as the standby of the new primary keeps its own)."""
        standby = PrivatePostgres(self.folder, name, port)
        standby._own_folder()
        self._as_owner("pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port), "-U",
                       "postgres", "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast",
                       "--no-sync")  # fmt: skip
        with (standby.data / "postgresql.auto.conf").open("a") as conf:
            conf.write(
                f"\nport = {standby.port}\n"
                f"unix_socket_directories = '{standby.socket_dir}'\n"
                f"primary_conninfo = 'host=127.0.0.1 port={self.port} user=postgres "
                f"application_name={name}'\n"
                f"synchronous_standby_names = '{synchronous_standby}'\n"
            )
        standby.start()
        return standby

    def replication(self) -> list[tuple[str, str, str]]:
        """This primary's standbys as pg_stat_replication shows them: (application_name,
        state, sync_state), e.g. ("standby", "streaming", "sync")."""
        connection = psycopg.connect(self.admin_url, connect_timeout=5, autocommit=True)
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT application_name, state, sync_state FROM pg_stat_replication"
                )
                return [tuple(row) for row in cursor.fetchall()]
        finally:
            connection.close()

    def set(self, setting: str, value: str) -> None:
        """ALTER SYSTEM SET, then reload: as an operator changes synchronous_standby_names."""
        connection = psycopg.connect(self.admin_url, connect_timeout=5, autocommit=True)
        try:
            with connection.cursor() as cursor:
                # ALTER SYSTEM takes no parameter: the value goes in as a quoted literal.
                statement = sql.SQL("ALTER SYSTEM SET {} = {}")
                cursor.execute(statement.format(sql.Identifier(setting), sql.Literal(value)))
                cursor.execute("SELECT pg_reload_conf()")
        finally:
            connection.close()


def _descendants(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    kids = [int(p) for p in found]
    return kids + [g for k in kids for g in _descendants(k)]


def _wait_dead(pid: int, timeout: float = 10.0) -> None:
    """Until process ``pid`` has ended (a zombie has: it holds nothing any more)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not _zombie(pid):
        time.sleep(0.01)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat.rpartition(b")")[2].split()[:1] == [b"Z"]


@contextlib.contextmanager
def server_folder() -> Iterator[Path]:
    """A folder for servers' data outside pytest's own tmp folders: pytest keeps those
    readable by their owner alone (and makes them so again when another session starts),
    and the server's user must get through. Removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-pg-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def private_postgres(folder: Path | None = None) -> Iterator[PrivatePostgres]:
    """A started server with a database `judge`, stopped (killed if need be) at the end.
    Its files go in a folder of its own (``folder`` is no longer used, kept for callers)."""
    with server_folder() as own:
        server = PrivatePostgres(own)
        try:
            server.start()
            server.create_database()
            yield server
        finally:
            server.stop("immediate")
            server.kill()

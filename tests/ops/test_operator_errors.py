"""An operator's mistakes get one clear line and a non-zero exit, never a traceback: a DKIM
key that is missing or does not parse fails check-config (and serve) the way the other
settings do; a web port in use stops serve like an SMTP port in use; status, prune and web
on a database that does not exist or has no judge tables say so (and create nothing).
Each runs the installed `mailjudge` command in a subprocess."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import mailjudge
from mailjudge.demo.sink import free_port

MAILJUDGE = str(Path(sys.executable).parent / "mailjudge")


def env_for(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env.update({
        "MAILJUDGE_DATABASE_URL": f"sqlite:///{tmp}/judge.db",
        "MAILJUDGE_JUDGE_ADDRESS": "judge@example.test",
        "MAILJUDGE_SMTP_PORT": str(free_port()),
        "MAILJUDGE_OUTBOUND_HOST": "127.0.0.1",
        "MAILJUDGE_OUTBOUND_PORT": str(free_port()),
        "MAILJUDGE_WEB_PORT": "0",
        **extra,
    })  # fmt: skip
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MAILJUDGE, *args], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The command failed with exactly one line on stderr, and no traceback."""
    assert done.returncode != 0, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def dkim_env(tmp: Path, key: Path) -> dict[str, str]:
    return env_for(tmp, MAILJUDGE_DKIM_SELECTOR="mail", MAILJUDGE_DKIM_KEY_FILE=str(key))


@pytest.mark.parametrize("command", ["check-config", "serve"])
def test_a_dkim_key_that_is_missing_or_does_not_parse(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "absent.pem"
    line = one_line(run([command], dkim_env(tmp_path, missing)))
    assert f"dkim.key_file {missing}: No such file or directory" in line
    garbled = tmp_path / "garbled.pem"
    garbled.write_text("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
    line = one_line(run([command], dkim_env(tmp_path, garbled)))
    assert f"dkim.key_file {garbled} does not parse as a private key" in line


def test_a_good_dkim_key_passes_check_config(tmp_path: Path) -> None:
    key = tmp_path / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True,
                   capture_output=True)  # fmt: skip
    done = run(["check-config"], dkim_env(tmp_path, key))
    assert done.returncode == 0, done.stderr


def test_serve_on_a_web_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = one_line(run(["serve"], env_for(tmp_path, MAILJUDGE_WEB_PORT=str(port))))
    assert line.startswith(f"mailjudge serve: cannot serve the web pages on 127.0.0.1:{port}")
    assert "set web.port (MAILJUDGE_WEB_PORT) to a free port" in line


@pytest.mark.parametrize("command", ["status", "prune", "web"])
def test_a_database_that_does_not_exist_or_has_no_tables(command: str, tmp_path: Path) -> None:
    web = {"MAILJUDGE_WEB_PORT": str(free_port())}
    absent = tmp_path / "nowhere" / "judge.db"
    env = env_for(tmp_path, MAILJUDGE_DATABASE_URL=f"sqlite:///{absent}", **web)
    line = one_line(run([command], env))
    assert line == (f"mailjudge {command}: there is no database at {absent}: set database.url "
                    "to the judge's database, or create it with mailjudge init")  # fmt: skip
    assert not absent.parent.exists()  # nothing was created
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    env = env_for(tmp_path, MAILJUDGE_DATABASE_URL=f"sqlite:///{empty}", **web)
    line = one_line(run([command], env))
    assert line.startswith(f"mailjudge {command}: {empty} holds no judge tables")
    # Once init has made the tables, the same command works (web is left to other tests:
    # it serves until stopped).
    assert run(["init"], env).returncode == 0
    if command != "web":
        done = run([command], env)
        assert done.returncode == 0, done.stderr
        if command == "status":  # it names the judge's version
            assert f"mailjudge {mailjudge.__version__})" in done.stdout


RELEASES = Path(__file__).parents[1] / "data" / "releases"


@pytest.mark.parametrize("command", [["status"], ["prune"], ["requeue", "classic"],
                                     ["export", "classic"]])  # fmt: skip
def test_a_database_not_yet_upgraded_says_run_init(command: list[str], tmp_path: Path) -> None:
    """Issue 51.7: status on a database of an earlier release printed a 47-line traceback;
    each command that reads the tables says in one line what to do, and init says what it
    did."""
    from mailjudge.tools.migrations import LATEST, MIGRATIONS

    path = tmp_path / "judge.db"
    with sqlite3.connect(path) as conn:  # release 8c26d25: schema version 3
        conn.executescript((RELEASES / "8c26d25.sql").read_text())
    conn.close()
    env = env_for(tmp_path)
    line = one_line(run(command, env))
    assert line == (f"mailjudge {command[0]}: the database is at schema version 3, this judge "
                    f"needs {LATEST}: run `mailjudge init` to upgrade it (or start "
                    "`mailjudge serve`, which does)")  # fmt: skip
    done = run(["init"], env)
    assert done.returncode == 0, done.stderr
    said = [m for m in MIGRATIONS if m.number > 3]
    assert [f"migration {m.number} applied: {m.what}" for m in said] == [
        line for line in done.stdout.splitlines() if line.startswith("migration ")
    ]
    done = run(command, env)
    assert "Traceback" not in done.stderr and "schema version" not in done.stderr
    assert "already" in run(["init"], env).stdout
    # A database newer than the judge: refused the same way, and init does not touch it.
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version (version, what, applied_at) VALUES (?, 'newer', '2027-01-01')",
                     (LATEST + 1,))  # fmt: skip
    conn.close()
    line = one_line(run(command, env))
    assert line == (f"mailjudge {command[0]}: the database is at schema version {LATEST + 1}, "
                    f"newer than this judge's {LATEST}: install the judge that made it (a "
                    "judge never downgrades)")  # fmt: skip
    assert one_line(run(["init"], env)).startswith("mailjudge init: the database is at schema")

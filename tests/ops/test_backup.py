"""`mailjudge backup` / `restore`: a live database to a file and back, SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import smtplib
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from mailjudge.demo.sink import free_port, wait_for_port
from mailjudge.outbound.sent_record import record_path
from mailjudge.service import games, seats
from mailjudge.store import db
from mailjudge.store.models import Game
from mailjudge.tools import migrations
from mailjudge.tools.cli import main
from mailjudge.tools.running import JudgeRunning, no_judge_running, serving

MAILJUDGE = str(Path(sys.executable).parent / "mailjudge")


def fill(count: int, prefix: str = "g") -> list[str]:
    names = []
    for n in range(count):
        with db.database_proxy.atomic():  # a game and its player in one transaction
            game = games.create_game(f"{prefix}{n}", "gm@example.org", "gm-pw")
            seats.join(game, f"p{n}@example.org", "pw")
        names.append(game.name)
    return names


def game_names(url: str) -> set[str]:
    db.connect(url)
    try:
        return {g.name for g in Game.select(Game.name)}
    finally:
        db.close()


def use(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("MAILJUDGE_DATABASE_URL", url)


def test_sqlite_backup_while_the_judge_writes(
    sqlite_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = set(fill(5))
    stop = threading.Event()
    written: list[str] = []

    def keep_writing() -> None:  # another connection, as the judge's worker would be
        n = 0
        while not stop.is_set():
            written.extend(fill(1, prefix=f"w{n}-"))
            n += 1

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        use(monkeypatch, sqlite_db)
        while len(written) < 3:
            stop.wait(0.01)
        assert main(["backup", str(tmp_path / "judge.backup")]) == 0
    finally:
        stop.set()
        writer.join()
    db.close()
    assert "backed up to" in capsys.readouterr().out
    backup = tmp_path / "judge.backup"
    assert not (tmp_path / "judge.backup-wal").exists()  # one self-contained file
    con = sqlite3.connect(backup)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()

    fresh = f"sqlite:///{tmp_path / 'restored' / 'judge.db'}"
    use(monkeypatch, fresh)
    assert main(["restore", str(backup)]) == 0
    restored = game_names(fresh)
    assert before <= restored and restored <= before | set(written)
    assert len(restored) >= len(before) + 3  # the writes before the backup began are in it
    # A snapshot of committed transactions: each game came back with its master and player.
    db.connect(fresh)
    try:
        for game in Game.select():
            assert len(list(game.seats)) == 2, game.name
    finally:
        db.close()


def test_restore_asks_before_replacing_games(
    sqlite_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fill(2)
    use(monkeypatch, sqlite_db)
    assert main(["backup", str(tmp_path / "b.db")]) == 0
    fill(1, prefix="later")
    db.close()
    assert main(["restore", str(tmp_path / "b.db")]) == 1
    assert "add --force" in capsys.readouterr().err
    assert game_names(sqlite_db) == {"g0", "g1", "later0"}
    # Outcomes a killed sender noted name mails of the database being replaced.
    record = record_path(Path(sqlite_db.removeprefix("sqlite:///")))
    record.write_bytes(b"")
    assert main(["restore", "--force", str(tmp_path / "b.db")]) == 0
    assert game_names(sqlite_db) == {"g0", "g1"}
    assert not record.exists()
    (tmp_path / "junk").write_text("not a database")
    assert main(["restore", "--force", str(tmp_path / "junk")]) == 1
    assert "is not a SQLite backup" in capsys.readouterr().err
    assert main(["restore", str(tmp_path / "absent")]) == 1
    assert "no backup file at" in capsys.readouterr().err


@pytest.fixture
def scratch_databases(postgres_server: str) -> Iterator[tuple[str, str]]:
    """Two new, empty PostgreSQL databases (the live one and where it is restored),
    dropped afterwards."""
    names = [f"mailjudge_backup_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    admin = psycopg.connect(postgres_server)
    admin.autocommit = True
    parts = urlsplit(postgres_server)
    try:
        with admin.cursor() as cursor:
            for name in names:
                cursor.execute(f'CREATE DATABASE "{name}"')
        live, fresh = (urlunsplit(parts._replace(path=f"/{name}")) for name in names)
        yield live, fresh
    finally:
        db.close()
        with admin.cursor() as cursor:
            for name in names:
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def test_postgresql_backup_and_restore(
    scratch_databases: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cheap_scrypt: None,
) -> None:
    live, fresh = scratch_databases
    db.connect(live)
    migrations.upgrade()
    names = set(fill(4))
    use(monkeypatch, live)
    assert main(["backup", str(tmp_path / "judge.dump")]) == 0  # the judge still connected
    fill(1, prefix="after")
    db.close()
    use(monkeypatch, fresh)
    assert main(["restore", str(tmp_path / "judge.dump")]) == 0
    assert game_names(fresh) == names
    # Over a database with games only when told to.
    use(monkeypatch, live)
    assert main(["restore", str(tmp_path / "judge.dump")]) == 1
    assert main(["restore", "--force", str(tmp_path / "judge.dump")]) == 0
    assert game_names(live) == names
    # Not while a judge serves it: its advisory lock is held by another session.
    fill_later = tmp_path / "judge.dump"
    with serving(live):
        assert main(["restore", "--force", str(fill_later)]) == 1
    assert main(["restore", "--force", str(fill_later)]) == 0


def test_restore_refuses_while_a_judge_serves_the_database(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cheap_scrypt: None,
) -> None:
    """`restore --force` over a running judge lost the mails it took meanwhile: it is
    refused while `mailjudge serve` runs, and works once the judge has stopped."""
    url = f"sqlite:///{tmp_path}/judge.db"
    db.connect(url)
    migrations.upgrade()
    fill(2)
    db.close()
    use(monkeypatch, url)
    assert main(["backup", str(tmp_path / "b.db")]) == 0
    capsys.readouterr()
    smtp_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env.update({
        "MAILJUDGE_DATABASE_URL": url,
        "MAILJUDGE_JUDGE_ADDRESS": "judge@example.test",
        "MAILJUDGE_SMTP_PORT": str(smtp_port),
        "MAILJUDGE_OUTBOUND_HOST": "127.0.0.1",
        "MAILJUDGE_OUTBOUND_PORT": str(free_port()),
        "MAILJUDGE_WEB_PORT": "0",
    })  # fmt: skip
    judge = subprocess.Popen([MAILJUDGE, "serve"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for_port(smtp_port)
        with smtplib.SMTP("127.0.0.1", smtp_port) as client:  # it holds a mail
            client.sendmail("p@players.test", ["judge@example.test"], b"Subject: x\r\n\r\nHELP")
        assert main(["restore", "--force", str(tmp_path / "b.db")]) == 1
        assert "a judge is running on" in capsys.readouterr().err
        # Issue 51.6: a second judge on the same SQLite file is refused, with the reason
        # (it started without a word); the commands that only read work beside the first.
        second = dict(env, MAILJUDGE_SMTP_PORT=str(free_port()))
        refused = subprocess.run([MAILJUDGE, "serve"], env=second, capture_output=True,
                                 text=True, timeout=120)  # fmt: skip
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert refused.stderr.strip() == (
            f"mailjudge serve: another judge is serving {tmp_path}/judge.db (process "
            f"{judge.pid}): one judge at a time on a SQLite database (each keeps files of "
            "its own beside it); stop that one first, or move to PostgreSQL to run several"
        )
        with pytest.raises(JudgeRunning, match="another judge is serving"), serving(url):
            pass
        status = subprocess.run([MAILJUDGE, "status"], env=env, capture_output=True,
                                text=True, timeout=120)  # fmt: skip
        assert "Games:" in status.stdout and "Traceback" not in status.stderr
    finally:
        judge.send_signal(signal.SIGTERM)
        assert judge.wait(timeout=60) == 0
    assert main(["restore", "--force", str(tmp_path / "b.db")]) == 0
    assert game_names(url) == {"g0", "g1"}
    # And a judge is refused while a restore holds the database.
    with no_judge_running(url):
        assert subprocess.run([MAILJUDGE, "serve"], env=env, capture_output=True,
                              text=True, timeout=120).stderr.strip().endswith(
            "a restore is under way on " + f"{tmp_path}/judge.db; start the judge when it is done"
        )  # fmt: skip

"""Operators are told (issue 51, points 6 and 8): when the judge cannot do its job,
`mailjudge status` says so first and exits 1, the web's /health answers 503, and the
operator (judge.operator) gets one mail when it starts and one when it is over, not one a
minute. With real parts: a relay on loopback (aiosmtpd) that answers 451 or 550, real
HTTP requests to the judge's web port, a real full disk (a small tmpfs)."""

from __future__ import annotations

import logging
import os
import smtplib
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import JUDGE
from helpers.refusing_relay import Relay

from mailjudge.app import alerts
from mailjudge.app.alerts import CLEAR_AFTER, notify_operator, send_direct_alert
from mailjudge.demo.mailroom import judge_settings, running_judge
from mailjudge.demo.sink import MailSink, Received
from mailjudge.service import games
from mailjudge.store.models import Game, OperatorAlert, Outbox, utcnow

MAILJUDGE = str(Path(sys.executable).parent / "mailjudge")
OPERATOR = "operator@example.test"


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def health_becomes(port: int, code: int) -> str:
    """/health's body once it answers ``code`` (it keeps an answer for two seconds)."""
    url = f"http://127.0.0.1:{port}/health"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got, body = get(url)
        if got == code:
            return body
        time.sleep(0.05)
    raise TimeoutError(f"/health did not answer {code}: {got} {body!r}")


def status(h: Any) -> subprocess.CompletedProcess[str]:
    """`mailjudge status` run as an operator runs it, on the judge's database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env["MAILJUDGE_DATABASE_URL"] = h.judge.settings.database.url
    return subprocess.run([MAILJUDGE, "status"], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def to_operator(sink: MailSink) -> list[Received]:
    return [m for m in sink.mails if m.rcpt_tos == [OPERATOR]]


QUICK_RETRIES = {"outbound_retry_first_seconds": "1", "outbound_retry_max_seconds": "1"}


def test_a_relay_that_refuses_for_a_while(tmp_path: Path, relay: Relay, cheap_scrypt: None) -> None:
    """Status said "Last errors: none" and exited 0 while the relay was down. Now: 503,
    status 1 with the relay's words and what to do, one mail to the operator when it
    starts (sent once the relay takes mail again) and one when it is over."""
    relay.answer = "451 4.3.0 Try again later"
    with running_judge(tmp_path / "judge.db", relay, JUDGE, web_port="8080",
                       judge_operator=OPERATOR, **QUICK_RETRIES) as h:  # fmt: skip
        assert health_becomes(h.judge.web_port, 200) == "ok\n"
        h.send("someone@players.test", "HELP")
        h.wait_until(lambda: Outbox.select().where(Outbox.attempts > 0).exists())
        # It has waited ten minutes, as the judge's clock sees it.
        Outbox.update(created_at=utcnow() - timedelta(minutes=10)).execute()
        body = health_becomes(h.judge.web_port, 503)
        assert body.startswith(
            "the relay does not take the judge's mail (1 mail waiting, the oldest"
        )
        assert "@" not in body  # no address on a public page
        shown = status(h)
        assert shown.returncode == 1, shown.stderr
        lines = shown.stdout.splitlines()
        assert lines[0] == "Problems:"
        assert lines[1].startswith("    the relay does not take the judge's mail (1 mail waiting")
        assert "SMTPRecipientsRefused" in lines[2] and "451" in lines[2]
        assert lines[3].startswith("        what to do: check the relay")
        assert "deferred (" in shown.stdout  # and under Last errors
        # The clock's minute, twice: the operator is told once.
        alerts.clock_job(h.judge.settings, utcnow)
        alerts.clock_job(h.judge.settings, lambda: utcnow() + timedelta(minutes=1))
        assert [r.key for r in OperatorAlert.select()] == ["relay"]
        relay.answer = None  # the relay is back: everything goes, the operator's mail too
        h.wait_until(lambda: len(to_operator(relay)) == 1, what="the operator's mail")
        h.wait_until(lambda: not Outbox.select().where(Outbox.state != "sent").exists())
        told = to_operator(relay)[0]
        assert told.subject == "[mailjudge] " + body.splitlines()[0]
        assert "What to do: check the relay" in told.message.get_content()
        assert health_becomes(h.judge.web_port, 200) == "ok\n"
        assert status(h).returncode == 0
        # Over once it has not been seen for CLEAR_AFTER: one more mail, and no more.
        later = utcnow() + timedelta(minutes=1) + CLEAR_AFTER
        alerts.clock_job(h.judge.settings, lambda: later)
        h.wait_until(lambda: len(to_operator(relay)) == 2, what="the mail that it is over")
        h.wait_until(lambda: not Outbox.select().where(Outbox.state != "sent").exists())
        alerts.clock_job(h.judge.settings, lambda: later + timedelta(minutes=1))
        over = to_operator(relay)[1]
        assert over.subject.startswith("[mailjudge] over: the relay does not take")
        assert OperatorAlert.select().count() == 0
    assert len(to_operator(relay)) == 2


def test_a_relay_that_refuses_everything_for_good(
    tmp_path: Path, relay: Relay, cheap_scrypt: None
) -> None:
    """550 to every mail: nothing waits, every mail is lost; that is a problem too."""
    relay.answer = "550 5.7.1 Relaying denied"
    with running_judge(tmp_path / "judge.db", relay, JUDGE, web_port="8080") as h:
        for n in range(3):
            h.send(f"someone{n}@players.test", "HELP")
        h.wait_until(lambda: Outbox.select().where(Outbox.state == "failed").count() == 3)
        body = health_becomes(h.judge.web_port, 503)
        assert (
            body
            == "the relay refused 3 mails for good in the last hour, and took 0: they are lost\n"
        )
        shown = status(h)
        assert shown.returncode == 1 and "Relaying denied" in shown.stdout


def test_direct_alert_past_the_database(tmp_path: Path, relay: Relay) -> None:
    """For the database's absence: one mail straight to the relay, no database needed (the
    settings name one that does not exist), and never an exception."""
    settings = judge_settings(tmp_path / "nowhere" / "judge.db", relay.port, JUDGE,
                              judge_operator=OPERATOR)  # fmt: skip
    assert send_direct_alert(settings, "the database is away", "Since 12:00 UTC.") is True
    (mail,) = relay.wait_for(1)
    assert mail.rcpt_tos == [OPERATOR] and mail.subject == "[mailjudge] the database is away"
    assert "Since 12:00 UTC." in mail.message.get_content()
    relay.answer = "550 5.7.1 Relaying denied"
    assert send_direct_alert(settings, "the database is away", "again") is False
    relay.stop()
    assert send_direct_alert(settings, "the database is away", "again") is False
    nobody = judge_settings(tmp_path / "judge.db", relay.port, JUDGE)
    assert send_direct_alert(nobody, "the database is away", "again") is False
    assert len(relay.mails) == 1


def test_one_mail_when_it_starts_and_one_when_it_is_over(any_db: str, tmp_path: Path) -> None:
    """What the operator was told is kept in the database: a game held by the clock is told
    once however often the clock looks, and its end once it has been over CLEAR_AFTER; a
    judge with no operator mails nobody and still keeps count."""
    settings = judge_settings(tmp_path / "judge.db", 25, JUDGE, judge_operator=OPERATOR)
    game = games.create_game("held", "gm@example.org", "gm-pw")
    start = utcnow()
    assert notify_operator(settings, start) == []
    Game.update(clock_error="KeyError: 'F1901M'").where(Game.id == game.id).execute()
    (told,) = notify_operator(settings, start)
    assert told.to == [OPERATOR]
    assert told.subject == "[mailjudge] game held is held by the clock after a failure"
    assert "mailjudge requeue held" in told.body and "KeyError" in told.body
    for minute in range(1, 5):
        assert notify_operator(settings, start + timedelta(minutes=minute)) == []
    Game.update(clock_error="").where(Game.id == game.id).execute()
    assert notify_operator(settings, start + timedelta(minutes=5)) == []  # not over yet
    (over,) = notify_operator(settings, start + timedelta(minutes=4) + CLEAR_AFTER)
    assert over.subject == "[mailjudge] over: game held is held by the clock after a failure"
    assert notify_operator(settings, start + timedelta(minutes=30)) == []
    nobody = judge_settings(tmp_path / "judge.db", 25, JUDGE)
    Game.update(clock_error="again").where(Game.id == game.id).execute()
    assert notify_operator(nobody, start + timedelta(minutes=31)) == []
    assert [row.key for row in OperatorAlert.select()] == ["clock:held"]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs of the test's own: the database's disk, to fill."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Write a file until the disk has no room left."""
    ballast = folder / "ballast"
    with ballast.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return ballast


def test_a_full_disk_is_told(
    small_disk: Path, relay: Relay, cheap_scrypt: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A full disk gave a 25-line traceback a refused mail while status said "Last errors:
    none". Now the refusal is one line, status says the disk is full, and so does /health,
    until there is room again."""
    with running_judge(small_disk / "judge.db", relay, JUDGE, web_port="8080") as h:
        assert "HELP" in h.command("someone@players.test", "HELP")
        assert status(h).returncode == 0
        ballast = fill(small_disk)
        caplog.clear()
        with pytest.raises(smtplib.SMTPDataError) as refused:
            h.send("someone@players.test", "HELP")
        assert refused.value.smtp_code == 451
        faults = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(faults) == 1 and faults[0].exc_info is None, faults
        # mailjudge.store.outages: the listener found the database unusable, and says so once
        assert "database or disk is full" in faults[0].getMessage(), faults[0].getMessage()
        shown = status(h)
        assert shown.returncode == 1, shown.stdout
        assert shown.stdout.splitlines()[1].startswith(
            "    the disk of the database is full: 0 KB free of 16.0 MB"
        )
        assert health_becomes(h.judge.web_port, 503).startswith("the disk of the database is full")
        ballast.unlink()
        assert health_becomes(h.judge.web_port, 200) == "ok\n"
        assert status(h).returncode == 0
        assert "HELP" in h.command("someone@players.test", "HELP")


def test_the_database_away(postgres_server: str, tmp_path: Path) -> None:
    """The database goes (here: dropped under the judge's web pages): /health answers 503
    saying so, and status says so in one line and exits 1, never a traceback."""
    import threading
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    from mailjudge.config.settings import WebSettings
    from mailjudge.store import db
    from mailjudge.tools import migrations
    from mailjudge.web import server

    name = f"mailjudge_away_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(postgres_server)
    admin.autocommit = True
    url = urlunsplit(urlsplit(postgres_server)._replace(path=f"/{name}"))
    stop = threading.Event()
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        db.connect(url)
        migrations.upgrade()
        sock = server.bind(WebSettings(port=8080), free_port=True)
        port = sock.getsockname()[1]
        web = threading.Thread(target=server.serve, args=(sock, stop), daemon=True)
        web.start()

        assert health_becomes(port, 200) == "ok\n"
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        assert health_becomes(port, 503) == (
            "the database cannot be reached: no mail is stored, answered or sent\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
        env["MAILJUDGE_DATABASE_URL"] = url
        shown = subprocess.run([MAILJUDGE, "status"], env=env, capture_output=True, text=True,
                               timeout=120)  # fmt: skip
        assert shown.returncode == 1 and "Traceback" not in shown.stderr
        assert shown.stderr.startswith(
            "mailjudge status: cannot open the PostgreSQL database of database.url:"
        )
        assert shown.stdout.splitlines()[:2] == [
            "Problems:", "    the database cannot be reached: no mail is stored, answered or sent"
        ]  # fmt: skip
    finally:
        stop.set()
        db.close()
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

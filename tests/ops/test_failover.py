"""Failover with PostgreSQL's own tools (issue 51, point 2), as an operator would run it: a
primary and its synchronous streaming standby (started here on loopback: initdb,
pg_basebackup -R, their own ports and folders; skipped with the reason where the server
binaries are missing, failed under MAILJUDGE_REQUIRE_POSTGRES=1), two judges on one libpq
URL naming both (target_session_attrs=read-write), and `mailjudge web` on a URL that
prefers the standby. The primary is killed outright and the standby promoted with
`pg_ctl promote`: the judges carry on on the new primary by themselves, every mail that
got a 250 is answered once, no phase is processed twice or skipped, and the pages answer
throughout without ever writing. The time from the kill to the next answer is printed
(-s); docs/availability.md has the figures."""

from __future__ import annotations

import os
import re
import smtplib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from helpers.ha import (
    Pair,
    judges_on,
    phase_problems,
    running_pair,
    set_up_games,
    streams_to,
    timed_sink,
    wait_next_answer,
)
from helpers.mailstack import free_port
from helpers.reliability import JUDGE, REPO, count, order_mail, wait_for_answers
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from mailjudge.store import db
from mailjudge.store.models import Game
from mailjudge.web.app import make_app


def test_judges_and_pages_carry_on_when_the_primary_dies_and_the_standby_is_promoted(
    tmp_path: Path,
) -> None:
    with running_pair() as pair, timed_sink() as sink:
        # The standby really is synchronous: a commit is acknowledged once it has it.
        assert pair.primary.replication() == [("b", "streaming", "sync")]
        assert pair.standby is not None
        standby = pair.standby
        url = pair.url()
        mails = set_up_games(url)
        with (
            judges_on(tmp_path, url, sink, 2) as judges,
            streams_to(judges, mails, 20.0, sink) as streams,
            web_pages(tmp_path, pair.url("prefer-standby")) as site,
        ):
            while phase_problems(sink, url)[0] < 1:  # a game with a history to show
                time.sleep(0.5)
            _caught_up(pair)
            before = _crawl(site)
            pages_on_standby = _sessions(standby.admin_url)
            refused = _a_write_on(standby.url())
            killed_at = time.monotonic()
            pair.fail_over()  # SIGKILL to the primary, then pg_ctl promote
            waited = wait_next_answer(sink, streams, killed_at, timeout=90)
            # Each judge takes mail and answers it on the new primary.
            direct = [_send_until_taken(j.smtp_port, mails[0], n) for n, j in enumerate(judges)]
            after = _crawl(site)
            for stream in streams:
                stream.stop()
            accepted = [m for stream in streams for m in stream.message_ids] + direct
            wait_for_answers(sink, accepted, timeout=120)
            figures = count(sink, accepted, url)
            phases, problems = phase_problems(sink, url)
        taken_after = sum(at > killed_at for stream in streams for _, at in stream.accepted)
        in_recovery = _in_recovery(pair.primary.admin_url)
    print(f"\nfailover: primary killed and standby promoted; the next answer came {waited:.2f} s "
          f"after the kill; {taken_after} mails taken after it; {len(before)} pages read "
          "from the standby; " + ", ".join(figures.lines()))  # fmt: skip
    assert pair.primary is standby and not in_recovery  # the standby, promoted
    assert taken_after > 0, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()
    assert phases > 0 and not problems, (phases, problems)
    # The pages read from the standby (its sessions), every one of them, before and after
    # the failover (the index, both games, their phases, boards, feeds, calendars, the
    # records, the openings), and a write there is answered 503, not 500.
    assert pages_on_standby >= 1
    assert "/games/phases" in before and any("/phases/" in page for page in before), before
    assert set(before.values()) == {200} and set(after.values()) == {200}, (before, after)
    assert refused == [503, 200]
    assert "Traceback" not in (tmp_path / "web.log").read_text()


def _send_until_taken(port: int, mail: tuple[str, str], n: int, patience: float = 90.0) -> str:
    """One order mail to the judge on ``port``, tried again until it is taken (250)."""
    sender, body = mail
    message_id, raw = order_mail(sender, body, 90_000_000 + n)
    deadline = time.monotonic() + patience
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.sendmail(sender, [JUDGE], raw)
            return message_id
        except (smtplib.SMTPException, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _in_recovery(url: str) -> bool:
    connection = psycopg.connect(url, connect_timeout=5)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_is_in_recovery()")
            return bool(cursor.fetchone()[0])
    finally:
        connection.close()


@contextmanager
def web_pages(folder: Path, url: str) -> Iterator[str]:
    """`mailjudge web` alone on ``url``, as on a machine of its own; its base address."""
    port = free_port()
    config = folder / "web.toml"
    config.write_text(f'[judge]\naddress = "{JUDGE}"\n\n[database]\nurl = "{url}"\n\n'
                      f'[web]\nhost = "127.0.0.1"\nport = {port}\n')  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]))
    with (folder / "web.log").open("wb") as log:
        web = subprocess.Popen([sys.executable, "-m", "mailjudge.tools.cli", "web", "--config",
                                str(config)], stdout=log, stderr=log, env=env)  # fmt: skip
    try:
        _wait_listening(port, web)
        yield f"http://127.0.0.1:{port}"
    finally:
        web.terminate()
        web.wait(20)


def _a_write_on(url: str) -> list[int]:
    """A page that writes, added to the site in this process, read from ``url`` on
    read-only connections; then the index: their statuses."""
    db.connect(url, read_only=True)
    try:
        app = make_app(cache_seconds=0)
        app.add_route("/games/{name}/touch", _writes)
        with TestClient(app) as client:
            return [client.get("/games/phases/touch").status_code, client.get("/").status_code]
    finally:
        db.close()


async def _writes(request: Request) -> Response:
    Game.update(phase=Game.phase).where(Game.name == request.path_params["name"]).execute()
    return Response("written")


def _caught_up(pair: Pair, timeout: float = 30.0) -> None:
    """Until the standby has replayed all the primary has written."""
    assert pair.standby is not None
    primary = psycopg.connect(pair.primary.admin_url)
    standby = psycopg.connect(pair.standby.admin_url)
    try:
        with primary.cursor() as p, standby.cursor() as s:
            p.execute("SELECT pg_current_wal_lsn()")
            target = p.fetchone()[0]
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                s.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (target,))
                if s.fetchone()[0]:
                    return
                standby.rollback()
                time.sleep(0.05)
    finally:
        primary.close()
        standby.close()
    raise AssertionError("the standby did not catch up")


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "mailjudge web exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("mailjudge web did not listen")


def _crawl(base: str) -> dict[str, int]:
    """Every page reachable by links from the index: its status."""
    seen: dict[str, int] = {}
    todo = ["/"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        try:
            with urllib.request.urlopen(base + path, timeout=30) as answer:
                seen[path] = answer.status
                body = answer.read().decode("utf-8", "replace")
                if answer.headers.get("content-type", "").startswith("text/html"):
                    todo += [link.replace("&amp;", "&")
                             for link in re.findall(r'href="(/[^"]*)"', body)]  # fmt: skip
        except urllib.error.HTTPError as err:
            seen[path] = err.code
    return seen


def _sessions(admin_url: str) -> int:
    """The judge's sessions (application_name mailjudge) on a server."""
    connection = psycopg.connect(admin_url, connect_timeout=5)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                           "'mailjudge' AND backend_type = 'client backend'")  # fmt: skip
            return int(cursor.fetchone()[0])
    finally:
        connection.close()

"""The database does not grow without end (issue 17, point 7): the board picture is stored
once per phase, not in each recipient's copy; sent mail past outbound.keep_sent_days keeps
only its headers and outcome; `mailjudge status` shows what an operator checks first."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from helpers.e2e import Harness, seated, set_up_game

from mailjudge.outbound.outbox import prune_sent
from mailjudge.store.models import BoardPicture, Outbox, utcnow
from mailjudge.tools.status import status_report


def test_pictures_once_and_pruning_keeps_headers_and_outcome(harness: Harness) -> None:
    h = harness
    set_up_game(h, "lean")
    table = seated(h, "lean")
    phase = table.play_phase({p: [] for p in table.players})
    h.wait_until(lambda: len(h.results_for("lean", phase)) == 8)
    results = list(Outbox.select().where(Outbox.subject == f"[lean] results {phase}"))
    h.wait_until(lambda: all(Outbox.get_by_id(r.id).state == "sent" for r in results))
    assert BoardPicture.select().count() == 1  # drawn and stored once for all eight
    for row in Outbox.select().where(Outbox.subject == f"[lean] results {phase}"):
        assert row.raw.endswith(b"\r\n\r\n") and b"image/png" not in row.raw  # headers only
        assert row.raw.startswith(b"From:") or b"\r\nFrom:" in row.raw
    replies = list(Outbox.select().where(Outbox.subject.startswith("Re:")))
    assert replies and all(b"\r\n\r\n" in r.raw and not r.raw.endswith(b"\r\n\r\n")
                           for r in replies)  # fmt: skip
    old, recent = replies[0], replies[-1]
    Outbox.update(sent_at=utcnow() - timedelta(days=31)).where(Outbox.id == old.id).execute()
    assert prune_sent(utcnow() - timedelta(days=30)) == 1
    pruned, kept = Outbox.get_by_id(old.id), Outbox.get_by_id(recent.id)
    assert pruned.raw.endswith(b"\r\n\r\n") and b"Message-ID:" in pruned.raw
    assert pruned.draft is None and pruned.state == "sent" and pruned.attempts == old.attempts
    assert pruned.sent_at is not None and pruned.message_id == old.message_id
    assert kept.raw == recent.raw
    assert prune_sent(utcnow() - timedelta(days=30)) == 0  # done once


def test_status_shows_games_mail_errors_and_size(harness: Harness, tmp_path: Path) -> None:
    h = harness
    set_up_game(h, "watched")
    Outbox.create(to_addrs="gone@nowhere.test", subject="x", raw=b"x", state="failed",
                  last_error="SMTPRecipientsRefused: 550 no such user",
                  message_id="<failed@judge.test>")  # fmt: skip
    report = status_report(h.judge.settings.database.url)
    assert "    active     1" in report
    assert "to answer  0" in report and "to send" in report
    assert "mail out to gone@nowhere.test: SMTPRecipientsRefused: 550 no such user" in report
    assert "Database: " in report and "Largest tables:" in report and "outbox" in report
    program = Path(sys.executable).parent / "mailjudge"
    env = {"MAILJUDGE_DATABASE_URL": h.judge.settings.database.url, "PATH": "/usr/bin:/bin"}
    shown = subprocess.run([str(program), "status"], env=env, capture_output=True, text=True,
                           timeout=60, check=True)  # fmt: skip
    assert "Games:" in shown.stdout and "gone@nowhere.test" in shown.stdout

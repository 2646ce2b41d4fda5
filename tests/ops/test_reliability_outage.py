"""SMTP outage: the relay goes down while mail streams in and comes back on the same port.
Every answer is queued meanwhile and handed over once after it returns. Long form:
tests/soak/soak_outage.py."""

from __future__ import annotations

from pathlib import Path

from helpers.reliability import run_outage


def test_mail_waits_out_a_relay_outage_and_goes_once(tmp_path: Path) -> None:
    figures = run_outage(tmp_path, mails=60, outages=2, down=3.0)
    assert figures.accepted >= 60, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0 and figures.resent == 0, figures.lines()
    assert figures.extra["mails_retried"] and not figures.extra["failed"], figures.lines()

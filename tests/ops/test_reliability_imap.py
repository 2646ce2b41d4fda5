"""IMAP: Dovecot is stopped and started again while mail arrives in the judge's mailbox
and the judge (a `mailjudge serve` process) polls it. Every mail is stored once and
answered once; nothing is lost or read twice. Long form: tests/soak/soak_imap.py."""

from __future__ import annotations

from pathlib import Path

from helpers.mailstack import Dovecot
from helpers.reliability import run_imap


def test_a_dovecot_restart_mid_stream_loses_and_doubles_nothing(
    tmp_path: Path, dovecot: Dovecot
) -> None:
    figures = run_imap(tmp_path, dovecot, mails=120, restarts=2)
    assert figures.accepted == 120 and figures.extra["stored"] == 120, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0 and figures.resent == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()

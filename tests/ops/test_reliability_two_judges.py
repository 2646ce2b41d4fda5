"""Two `mailjudge serve` processes share one PostgreSQL database and poll one Dovecot
mailbox: both read every mail, and the spool's dedup and row-locked claims see to it
that each is processed once and answered once. Long form:
`python tests/soak/soak_imap.py --judges 2 --postgres postgresql://postgres@127.0.0.1:5432/test`."""

from __future__ import annotations

from pathlib import Path

from helpers.mailstack import Dovecot
from helpers.reliability import run_imap


def test_two_judges_on_one_database_and_mailbox_answer_each_mail_once(
    tmp_path: Path, dovecot: Dovecot, postgres_url: str
) -> None:
    figures = run_imap(
        tmp_path, dovecot, mails=120, restarts=0, database_url=postgres_url, judges=2
    )
    assert figures.accepted == 120 and figures.extra["stored"] == 120, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0 and figures.resent == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()

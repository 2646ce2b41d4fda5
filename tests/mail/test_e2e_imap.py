"""The same game by mail, read by the IMAP poller from a real Dovecot on loopback."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.e2e import MASTER, Harness, judge_settings, play_years, player, set_up_game
from helpers.mailstack import Dovecot, SmtpSink

from mailjudge.app.runner import Judge


@pytest.fixture
def imap_harness(
    tmp_path: Path, smtp_sink: SmtpSink, dovecot: Dovecot, cheap_scrypt: None
) -> Iterator[Harness]:
    folder = f"judge-{uuid.uuid4().hex[:8]}"
    client = dovecot.connect()
    client.create_folder(folder)
    client.logout()
    settings = judge_settings(
        tmp_path / "judge.db",
        smtp_sink.port,
        smtp_port="0",
        imap_host="127.0.0.1",
        imap_port=str(dovecot.imap_port),
        imap_user="judge@example.test",
        imap_password="judge-pass",
        imap_ssl="false",
        imap_mailbox=folder,
        imap_idle_seconds="5",
    )
    judge = Judge(settings, free_ports=True)
    judge.start()
    try:
        yield Harness(judge, smtp_sink, lambda sender, raw: dovecot.append(folder, raw))
    finally:
        judge.stop()


def test_a_game_year_through_imap(imap_harness: Harness) -> None:
    h = imap_harness
    set_up_game(h, "imapgame")
    played = play_years(h, "imapgame", years=1, seed=11)
    assert played[:2] == ["S1901M", "F1901M"]
    assert len(h.results_for("imapgame", "F1901M")) == 8
    assert any(m.rcpt_tos == [MASTER] for m in h.results_for("imapgame", "S1901M"))
    assert any(m.rcpt_tos == [player("FRANCE")] for m in h.results_for("imapgame", "S1901M"))

"""`mailjudge bench mail --postgres URL --judges N`: whole judges on one database answer
every mail of many games, and the bench says what it measured."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mailjudge.benchmarks import mail_e2e
from mailjudge.config import settings


@pytest.fixture
def settings_kept() -> Iterator[None]:
    before = settings._CURRENT
    yield
    settings.use_settings(before)  # type: ignore[arg-type]


def test_two_judges_answer_every_mail_of_many_games(
    settings_kept: None, postgres_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--postgres", postgres_server, "--judges", "2", "--games", "6", "--mails", "60"]
    assert mail_e2e.main(argv) == 0
    printed = capsys.readouterr().out
    assert "6 games" in printed and "answered: 60" in printed, printed
    assert "claimed_more_than_once: 0" in printed and "shunted: 0" in printed, printed
    assert "cpu_ms_per_mail_database:" in printed and "lock_samples:" in printed, printed


def test_judges_need_postgres(settings_kept: None) -> None:
    with pytest.raises(SystemExit, match="needs --postgres"):
        mail_e2e.main(["--judges", "2"])

"""`mailjudge bench mail --worker-only` answers every stored order mail: the figure it
prints is the cost of mails really answered, not of mails dropped or shunted."""

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


def test_the_worker_bench_answers_every_mail(
    settings_kept: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mail_e2e.main(["--worker-only", "--mails", "21"]) == 0
    printed = capsys.readouterr().out
    assert "answered: 21" in printed and "ms_per_mail:" in printed


def test_the_worker_bench_reaches_postgresql_at_a_distance(
    settings_kept: None, postgres_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--db-delay-us puts a relay between the worker and the server; every mail is still
    answered, and each exchange takes at least the delay both ways. (--warm: each player's
    first mail, which checks the password and notes the mail's signals for the master, is
    answered before the count.)"""
    assert mail_e2e.main(
        ["--worker-only", "--mails", "14", "--warm", "--postgres", postgres_server,
         "--db-delay-us", "2000"]
    ) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "answered: 14" in printed
    per_mail = float(printed.split("ms_per_mail: ")[1].split()[0])
    trips = float(printed.split("round_trips_per_mail: ")[1].split()[0])
    assert 2 <= trips < 10  # an order mail's statements, a batch's shared among its mails
    assert per_mail > trips * 2 * 2.0  # each round trip at least the delay both ways

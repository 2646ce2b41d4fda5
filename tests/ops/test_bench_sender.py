"""`python -m mailjudge.benchmarks.sender` sends every reply it queued: its figures are
those of replies really handed to the sink."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mailjudge.benchmarks import sender
from mailjudge.config import settings


@pytest.fixture
def settings_kept() -> Iterator[None]:
    before = settings._CURRENT
    yield
    settings.use_settings(before)  # type: ignore[arg-type]


def test_the_sender_bench_sends_every_reply(
    settings_kept: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sender.main(["--mails", "14", "--round", "4"]) == 0
    printed = capsys.readouterr().out
    assert "sent 14.000" in printed and "cpu_ms_per_reply_sender" in printed

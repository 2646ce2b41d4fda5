"""A relay on loopback that refuses every recipient with a set answer, for the tests of
what the judge does when its relay will not take mail."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mailjudge.demo.sink import MailSink


class Relay(MailSink):
    """The sink as a relay that refuses every recipient with ``answer`` while it is set."""

    answer: str | None = None

    def refusal(self, address: str) -> str | None:
        return self.answer


@pytest.fixture
def relay() -> Iterator[Relay]:
    with Relay() as sink:
        yield sink

"""A synchronous standby that is gone stops every commit on the primary without an error
(issue 51: "a dead synchronous standby is invisible to the judge"). `mailjudge status` and
the web's /health say so, with what to do, and stop saying it once the standby is back."""

from __future__ import annotations

from datetime import UTC, datetime

from helpers.ha import running_pair

from mailjudge.store import db
from mailjudge.store.health import problems
from mailjudge.tools import migrations


def _keys(url: str) -> list[str]:
    db.connect(url)
    try:
        return [problem.key for problem in problems(datetime.now(UTC))]
    finally:
        db.close()


def test_a_synchronous_standby_that_is_gone_is_told() -> None:
    with running_pair() as pair:
        url = pair.url()
        db.connect(url)
        try:
            migrations.upgrade()
        finally:
            db.close()
        assert "standby" not in _keys(url)
        assert pair.standby is not None
        pair.standby.kill()
        assert "standby" in _keys(url)  # a read: it does not wait for the standby
        pair.standby.start()
        pair.wait_synchronous()
        assert "standby" not in _keys(url)

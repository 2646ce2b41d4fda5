"""The mail people read, at the service level on a real SQLite database: a deadline as a
person reads it (the game's zone and theirs, or UTC), in the reminders the clock sends."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mailjudge.engine.timing import show_both, show_lines
from mailjudge.game import schedule
from mailjudge.game.state import get_game
from mailjudge.render.deadline import deadline_lines, deadline_text
from mailjudge.service import deadlines
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store.models import Person

MOMENT = datetime(2026, 12, 5, 11, 0, tzinfo=UTC)  # 12:00 in Paris, 20:00 in Tokyo


def test_a_time_in_the_games_zone_and_the_readers() -> None:
    """Their own zone when they set one; UTC when they set none; one zone when it says all."""
    assert show_lines(MOMENT, "Europe/Paris", "Asia/Tokyo") == [
        "Deadline: Sat 2026-12-05 12:00 CET (Europe/Paris)",
        "In your zone: Sat 2026-12-05 20:00 JST (Asia/Tokyo)",
    ]
    assert show_lines(MOMENT, "Europe/Paris", None, "First deadline") == [
        "First deadline: Sat 2026-12-05 12:00 CET (Europe/Paris)",
        "In UTC: Sat 2026-12-05 11:00 UTC",
    ]
    assert show_lines(MOMENT, "Europe/Paris", "Europe/Paris") == [
        "Deadline: Sat 2026-12-05 12:00 CET (Europe/Paris)"
    ]
    assert show_lines(MOMENT, "UTC", None) == ["Deadline: Sat 2026-12-05 11:00 UTC"]
    assert show_both(MOMENT, "Europe/Paris", None) == (
        "Sat 2026-12-05 12:00 CET (Europe/Paris) (Sat 2026-12-05 11:00 UTC)"
    )
    assert show_both(MOMENT, "UTC", "Asia/Tokyo") == (
        "Sat 2026-12-05 11:00 UTC (Sat 2026-12-05 20:00 JST (Asia/Tokyo) in your zone)"
    )


@pytest.mark.usefixtures("sqlite_db")
def test_the_clocks_zone_is_the_games_timing() -> None:
    """A game's deadlines are shown in its TIMING's zone, else the zone it was made in."""
    game = create_game("paris", "gm@example.org", "pw", timezone="Europe/Paris")
    game.deadline = MOMENT
    assert deadline_text(game, None).startswith("Sat 2026-12-05 12:00 CET (Europe/Paris)")
    game.timing = "MOVE 2D AT 12:00 America/New_York"
    assert deadline_lines(game, None)[0] == "Deadline: Sat 2026-12-05 06:00 EST (America/New_York)"
    assert deadline_lines(game, None)[1] == "In UTC: Sat 2026-12-05 11:00 UTC"


@pytest.mark.usefixtures("sqlite_db")
def test_reminders_show_the_games_zone_and_the_readers() -> None:
    """A reminder (and the end of grace in it) in the game's zone, and in the zone of a
    player who set one, or else UTC."""
    game = create_game(
        "remind", "gm@example.org", "pw", rules="START_MASTER", timezone="Europe/Paris"
    )
    game.timing = "MOVE 2D AT 18:00 WARN 6H GRACE 2H"
    game.save()
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", rng=random.Random(i))
    tokyo = Person.get(Person.email == "p1@example.org")
    tokyo.timezone = "Asia/Tokyo"
    tokyo.save()
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    start_game(get_game("remind"), random.Random(1), now=start)
    game = get_game("remind")
    remind_at = next(e.at for e in schedule.events(game) if e.kind == "remind")
    mails = [m for m in deadlines.tick(remind_at + timedelta(minutes=1)) if "reminder" in m.subject]
    by_address = {m.to[0]: m.body for m in mails}
    assert len(by_address) == 7
    plain, zoned = by_address["p0@example.org"], by_address["p1@example.org"]
    assert "Deadline: Thu 2026-12-03 18:00 CET (Europe/Paris)" in plain
    assert "In UTC: Thu 2026-12-03 17:00 UTC" in plain and "your zone" not in plain
    assert "until the grace period ends: Thu 2026-12-03 20:00 CET (Europe/Paris)" in plain
    assert "In your zone: Fri 2026-12-04 02:00 JST (Asia/Tokyo)" in zoned
    assert "In UTC" not in zoned


def test_the_mailsize_bench_reads_what_each_address_received(tmp_path: Path) -> None:
    """`mailjudge bench mailsize` counts every saved mail to each of its recipients, and
    the results mails apart."""
    from mailjudge.benchmarks.mail_size import sizes

    def save(name: str, to: str, subject: str, body: str) -> int:
        raw = f"To: {to}\r\nSubject: {subject}\r\n\r\n{body}\r\n".encode()
        (tmp_path / name).write_bytes(raw)
        return len(raw)

    a = save("1.eml", "a@players.test", "[g] results S1901M", "x" * 500)
    b = save("2.eml", "a@players.test, b@players.test", "[g] press", "hello")
    results, received = sizes(tmp_path)
    assert results == [a]
    assert received == {"a@players.test": a + b, "b@players.test": b}

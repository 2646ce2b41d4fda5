"""A week of game time on a fake clock: deadlines at the same wall-clock time across a
daylight-saving change, reminders when TIMING says, grace, civil disorder, absences, the
master told of the late, and two judge processes handling the clock on one database."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mailjudge.commands.base import Outgoing
from mailjudge.game import schedule
from mailjudge.game.state import current_position, get_game
from mailjudge.service import deadlines, processing
from mailjudge.service.games import create_game, start_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Game, PhaseRecord

LONDON = ZoneInfo("Europe/London")
TIMING = "MOVE 20H RETREAT 12H ADJUST 12H AT 18:00 Europe/London WARN 6H,1H GRACE 2H"
START = datetime(2026, 10, 21, 9, 0, tzinfo=LONDON)  # the clocks go back on Sunday the 25th
STEP = timedelta(minutes=5)


def new_game(name: str, rules: str, players: int = 7) -> Game:
    game = create_game(name, "gm@example.org", "pw", rules=f"START_MASTER {rules}")
    game.timing = TIMING
    game.save()
    for i in range(players):
        join(game, f"p{i}@example.org", f"pw{i}", rng=random.Random(i))
    start_game(get_game(name), random.Random(1), now=START)
    return get_game(name)


def run_clock(until: datetime, now: datetime = START) -> list[tuple[datetime, Outgoing]]:
    sent: list[tuple[datetime, Outgoing]] = []
    while now <= until:
        sent += [(now, mail) for mail in deadlines.tick(now)]
        now += STEP
    return sent


@pytest.mark.usefixtures("sqlite_db")
def test_a_week_of_deadlines_with_civil_disorder() -> None:
    game = new_game("week", "CIVIL_DISORDER")
    first = game.deadline
    assert first is not None and first.astimezone(LONDON) == datetime(
        2026, 10, 22, 18, 0, tzinfo=LONDON
    )
    # Nobody orders: every phase ends at the end of its grace period, in civil disorder.
    sent = run_clock(START + timedelta(days=7))
    records = list(
        PhaseRecord.select().where(PhaseRecord.game == game).order_by(PhaseRecord.sequence)
    )
    assert len(records) == 6  # one phase a day, 22 to 27 October
    processed_at = [r.processed_at.astimezone(LONDON) for r in records]
    # Each phase ends when the grace period after its deadline ends: 20:00 London time,
    # before and after the clocks go back on the 25th.
    assert all((t.hour, t.minute) == (20, 0) for t in processed_at), processed_at
    assert {t.utcoffset() for t in processed_at} == {timedelta(hours=1), timedelta(0)}
    results = [r for r in records if r.results["results"]]
    assert all(any(x["default"] for x in r.results["results"]) for r in results)
    # Reminders at 6 and 1 hours before each deadline (wall clock), then late notices at it.
    reminders = [(t, m) for t, m in sent if "reminder" in m.subject]
    late = [(t, m) for t, m in sent if "late" in m.subject and "[week] late:" not in m.subject]
    first_day = [t.astimezone(LONDON) for t, m in reminders if t < first + timedelta(hours=1)]
    assert sorted({(t.hour, t.minute) for t in first_day}) == [(12, 0), (17, 0)]
    assert all(t.astimezone(LONDON).hour == 18 for t, _ in late)
    assert {m.to[0] for _, m in reminders} == {f"p{i}@example.org" for i in range(7)}
    assert all("Deadline: " in m.body and "Europe/London" in m.body for _, m in reminders)
    # Results went to everyone after each phase.
    assert sum(1 for _, m in sent if m.kind == "results") == 8 * len(records)


@pytest.mark.usefixtures("sqlite_db")
def test_without_civil_disorder_the_master_is_told_and_the_game_waits() -> None:
    new_game("waits", "")
    sent = run_clock(START + timedelta(days=2))
    assert get_game("waits").phase == "S1901M"  # nothing processed without orders
    master = [m for _, m in sent if m.to == ["gm@example.org"]]
    assert len(master) == 1 and "late: AUSTRIA" in master[0].subject
    assert "PROCESS!" in master[0].body


@pytest.mark.usefixtures("sqlite_db")
def test_all_orders_in_processes_before_the_deadline() -> None:
    game = new_game("early", "")
    for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"):
        pos = current_position(game)
        submit_orders(
            game, seat_for_power(game, power), power, [f"{u} H" for u in pos.units_of(power)]
        )
    run_clock(START + timedelta(minutes=10))
    assert get_game("early").phase == "F1901M"


@pytest.mark.usefixtures("sqlite_db")
def test_a_game_the_clock_ends_tells_everyone_it_is_over() -> None:
    """The clock sends what PROCESS sends after a phase (service.results.phase_mails): a
    game it ends gets its results and the notice that it is over, in every seat."""
    game = new_game("won", "CIVIL_DISORDER")
    game.victory_count = 5
    game.save()
    france = seat_for_power(game, "FRANCE")
    submit_orders(game, france, "FRANCE", ["A MAR - SPA", "F BRE - MAO"])
    assert processing.process(game, force=True) is not None
    game = get_game("won")
    submit_orders(game, france, "FRANCE", ["F MAO - POR"])
    assert game.deadline is not None
    sent = deadlines.tick(game.deadline + timedelta(days=1))
    assert get_game("won").outcome == "WIN FRANCE"
    results = [m for m in sent if m.subject == "[won] results F1901M"]
    over = [m for m in sent if m.subject == "[won] the game is over: win france"]
    assert len(results) == len(over) == 8  # the seven players and the master


@pytest.mark.usefixtures("sqlite_db")
def test_an_absence_moves_the_deadline() -> None:
    game = new_game("away", "CIVIL_DISORDER")
    assert game.deadline is not None
    france = seat_for_power(game, "FRANCE")
    schedule.set_absence(france, "2026-10-22", "2026-10-24", now=START)
    moved = get_game("away").deadline
    assert moved is not None and moved.astimezone(LONDON) == datetime(
        2026, 10, 24, 18, 0, tzinfo=LONDON
    )
    with pytest.raises(Exception, match="at most 14 days"):
        schedule.set_absence(france, "2026-11-01", "2026-11-30", now=START)


@pytest.mark.usefixtures("sqlite_db")
def test_no_deadline_means_the_master_decides() -> None:
    game = new_game("nodl", "NO_DEADLINE CIVIL_DISORDER")
    assert game.deadline is None
    run_clock(START + timedelta(days=3))
    assert get_game("nodl").phase == "S1901M"
    assert processing.process(get_game("nodl"), force=True) is not None


WORKER = Path(__file__).parents[1] / "workers" / "tick_worker.py"


def test_two_processes_run_the_clock_once(postgres_url: str, cheap_scrypt: None) -> None:
    from mailjudge.store import db
    from mailjudge.tools import migrations

    db.connect(postgres_url)
    migrations.upgrade()
    game = new_game("twice", "CIVIL_DISORDER")
    assert game.deadline is not None
    after_grace = game.deadline + timedelta(hours=2, minutes=1)
    db.close()
    start_at = time.time() + 1.5
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), postgres_url, after_grace.isoformat(), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outs.append(int(out.strip()))
    db.connect(postgres_url)
    assert PhaseRecord.select().count() == 1
    assert get_game("twice").phase == "F1901M"
    assert sorted(outs)[0] == 0 and sorted(outs)[1] > 0  # one sent the results, one nothing
    db.close()


def test_a_game_whose_clock_handling_raises_is_held_and_the_others_go_on(
    any_db: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Three games past their grace; processing one of them raises (a bug, simulated for
    that game alone, after it has written): the two others are processed, the failing
    one is rolled back to where it was, logged once and its master mailed once over many
    ticks, and `mailjudge requeue` hands it back to the clock, which then processes it."""
    import os

    from mailjudge.store.db import database_proxy

    games = [new_game(name, "CIVIL_DISORDER", players=3) for name in ("left", "bad", "right")]
    deadline = games[0].deadline
    assert deadline is not None and all(g.deadline == deadline for g in games)
    real_process = processing.process

    def broken(game: Game, *args: object, **kwargs: object) -> object:
        done = real_process(game, *args, **kwargs)  # type: ignore[arg-type]
        if game.name == "bad":
            raise RuntimeError("a bug in processing bad")
        return done

    monkeypatch.setattr(processing, "process", broken)
    after_grace = deadline + timedelta(hours=2, minutes=1)
    sent: list[Outgoing] = []
    for n in range(5):
        with database_proxy.atomic():  # as the judge's clock runs it
            sent += deadlines.tick(after_grace + n * STEP)
    assert get_game("left").phase == "F1901M" and get_game("right").phase == "F1901M"
    assert get_game("bad").phase == "S1901M"  # what processing wrote was rolled back
    assert PhaseRecord.select().where(PhaseRecord.game == get_game("bad")).count() == 0
    held = get_game("bad").clock_error
    assert "RuntimeError: a bug in processing bad" in held
    failures = [r for r in caplog.records if "clock's handling failed" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert "mailjudge requeue bad" in failures[0].getMessage()
    told = [m for m in sent if m.to == ["gm@example.org"] and "could not process" in m.subject]
    assert [m.subject for m in told] == ["[bad] the judge could not process S1901M"]
    assert "mailjudge requeue bad" in told[0].body
    assert not any(m.game == "bad" and m.kind == "results" for m in sent)

    # The operator fixes the bug and hands the game back: the next tick processes it.
    monkeypatch.setattr(processing, "process", real_process)
    env = {**os.environ, "MAILJUDGE_DATABASE_URL": any_db}
    mailjudge = str(Path(sys.executable).parent / "mailjudge")
    shown = subprocess.run([mailjudge, "status"], env=env, capture_output=True, text=True,
                           timeout=60, check=False)  # fmt: skip
    status = shown.stdout
    assert "held by the clock: bad (" in status and "mailjudge requeue bad" in status
    # A game held is a problem (issue 51.8): said first, and status exits 1.
    assert shown.returncode == 1
    assert status.splitlines()[1] == "    game bad is held by the clock after a failure"
    done = subprocess.run([mailjudge, "requeue", "bad"], env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "handed back to the clock" in done.stdout and "a bug in processing bad" in done.stdout
    assert get_game("bad").clock_error == ""
    with database_proxy.atomic():
        again = deadlines.tick(after_grace + 6 * STEP)
    assert get_game("bad").phase == "F1901M"
    assert any(m.game == "bad" and m.kind == "results" for m in again)
    twice = subprocess.run([mailjudge, "requeue", "bad"], env=env, capture_output=True,
                           text=True, timeout=60, check=False)  # fmt: skip
    assert twice.returncode == 0 and "not held" in twice.stdout
    unknown = subprocess.run([mailjudge, "requeue", "nosuch"], env=env, capture_output=True,
                             text=True, timeout=60, check=False)  # fmt: skip
    assert unknown.returncode == 1 and "no game is called nosuch" in unknown.stderr


def test_a_deadline_moved_into_the_warn_window_reminds_the_late_at_once(harness: Any) -> None:
    """The master's SET DEADLINE, by mail, to a time so near that the reminder (WARN 2H)
    is past already: at the clock's next tick each player without orders gets the
    reminder for the new deadline, once; players with orders on file get none."""
    from helpers.e2e import MASTER, POWERS, player, seated

    from mailjudge.store.models import utcnow

    table = seated(harness, "soon")
    table.sign_on()
    master = "SIGNON Msoon masterpw\n"
    table.say(table.master, master + "SET TIMING MOVE 2D RETREAT 1D ADJUST 1D WARN 2H", "2H")
    table.send_orders("FRANCE", ["A PAR H", "A MAR H", "F BRE H"])
    when = utcnow().replace(second=0, microsecond=0) + timedelta(minutes=61)
    table.say(table.master, master + f"SET DEADLINE {when:%Y-%m-%d %H:%M} UTC", "player(s) told")

    def reminders() -> list[str]:
        return sorted(
            m.rcpt_tos[0]
            for m in harness.sink.mails
            if str(m.message["Subject"]).startswith("[soon] reminder: orders due")
        )

    harness.judge.clock_tick()
    late = sorted(player(p) for p in POWERS if p != "FRANCE")
    harness.wait_until(lambda: reminders() == late, what="the reminders")
    assert MASTER not in reminders()
    body = [m for m in harness.sink.mails if m.rcpt_tos == [player("ITALY")]][-1]
    assert f"{when:%H:%M}" in str(body.message.get_content())
    for _ in range(3):  # no second reminder at the next ticks
        harness.judge.clock_tick()
    time.sleep(1.0)
    assert reminders() == late

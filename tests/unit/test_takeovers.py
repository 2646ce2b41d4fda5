"""Issue 52 in the service, on SQLite and PostgreSQL: whether a seat really missed a
deadline (service.records.missed_deadline) decides which powers open; a takeover waiting
for its CONFIRM is held to the game's MIN_RECORD again when it is confirmed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from mailjudge.game.errors import NotAllowed
from mailjudge.game.openings import open_powers
from mailjudge.game.options import set_option
from mailjudge.game.state import get_game
from mailjudge.service import openings, processing
from mailjudge.service.seats import resign, seat_for_power
from mailjudge.store.models import utcnow
from unit.test_records import address, hold, new_game, play_first_phase

pytestmark = pytest.mark.usefixtures("any_db")  # SQLite and PostgreSQL alike


@pytest.mark.parametrize(
    ("after_deadline", "opened"),
    [
        (timedelta(hours=-30), []),  # the master's PROCESS! 30 hours early: excused
        (timedelta(hours=1), []),  # after the deadline, within its 2 hours' grace
        (timedelta(hours=3), ["ITALY"]),  # through the grace: Italy really missed it
    ],
)
def test_only_a_seat_that_really_missed_the_deadline_opens(
    after_deadline: timedelta, opened: list[str]
) -> None:
    """Italy sends nothing; England sends nothing either, but is away (SET ABSENCE) when
    the phase is processed: excused, never open."""
    game = new_game("missed")
    deadline = game.deadline
    assert deadline is not None
    for power in ("AUSTRIA", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"):
        hold(game, power, deadline - timedelta(hours=31))
    england = seat_for_power(game, "ENGLAND")
    back = deadline + timedelta(days=1)
    england.absence = f"{(deadline - timedelta(days=3)).isoformat()}/{back.isoformat()}"
    england.save()
    done = processing.process(game, force=True, now=deadline + after_deadline)
    assert done is not None
    italy = seat_for_power(game, "ITALY")
    assert done.missed == (frozenset({italy.id}) if opened else frozenset())
    openings.after_phase(get_game("missed"), done)
    assert open_powers(get_game("missed")) == opened


def test_a_takeover_waiting_for_confirm_meets_the_min_record_when_confirmed() -> None:
    """Italy's player missed S1901M of one game (their record: 0 of 1 on time), and left
    another. Their TAKEOVER of the power they left there waits for CONFIRM; the master
    asks for a record meanwhile (MIN_RECORD), and the CONFIRM is refused by it."""
    play_first_phase(new_game("first"))
    game = new_game("second")
    resign(seat_for_power(game, "ITALY"))
    waiting = openings.take_over(game, "ITALY", address("ITALY"), "pw", utcnow(), proven=False)
    assert waiting.seat is None and not waiting.mails
    token = re.search(r"CONFIRM (\w+)", "\n".join(waiting.lines))
    assert token is not None
    set_option(get_game("second"), "MIN_RECORD", "0.9 OVER 1")
    with pytest.raises(NotAllowed, match="MIN_RECORD"):
        openings.confirm_takeover(token.group(1), address("ITALY"), utcnow())
    assert seat_for_power(get_game("second"), "ITALY").person is None
    set_option(get_game("second"), "MIN_RECORD", "OFF")
    taken = openings.confirm_takeover(token.group(1), address("ITALY"), utcnow())
    assert taken is not None and taken.seat is not None
    assert str(taken.seat.powers) == "ITALY"

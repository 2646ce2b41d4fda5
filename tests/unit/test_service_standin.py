"""The STANDIN rule through the service layer (service/standin.py): who the stand-in orders
for, how its orders are kept and marked, ROLLBACK and ROLLFORWARD, the absent player it
stands in for, and SET STANDIN's own checks."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mailjudge.engine.standin import CARETAKER, PLAYS, standin_texts
from mailjudge.engine.state import initial_position
from mailjudge.game import schedule
from mailjudge.game.errors import ServiceError
from mailjudge.game.openings import open_powers
from mailjudge.game.state import current_position, get_game
from mailjudge.service import openings, processing
from mailjudge.service.orders import submit_orders
from mailjudge.service.seats import seat_for_power
from mailjudge.service.standin import away_with_standin, mode_of, orders_now, set_standin
from mailjudge.store.models import Game, PhaseRecord, Seat, utcnow
from mailjudge.web.pages import phase_results
from unit.test_service_game import MAP, new_game

FRENCH_HOLDS = ["A PAR H", "A MAR H", "F BRE H"]


def _record(game: Game, phase: str) -> PhaseRecord:
    return PhaseRecord.get((PhaseRecord.game == game) & (PhaseRecord.phase == phase))


def test_the_stand_in_orders_every_silent_power_and_its_orders_are_marked(
    sqlite_db: str,
) -> None:
    game = new_game("sa", rules="STANDIN")
    submit_orders(game, seat_for_power(game, "FRANCE"), "FRANCE", FRENCH_HOLDS)
    preview = processing.preview(game)
    assert not any(r.default for r in preview.results)  # the stand-in left nobody to defaults
    done = processing.process(game, force=True)
    assert done is not None
    expected = standin_texts(MAP, initial_position(MAP), MAP.power_names, "sa")
    record = _record(game, "S1901M")
    for power in MAP.power_names:
        kept = record.orders[power]
        if power == "FRANCE":
            assert [e["text"] for e in kept] == FRENCH_HOLDS
            assert not any(e.get("standin") for e in kept)
        else:
            assert [e["text"] for e in kept] == expected[power]
            assert all(e["standin"] and e["by"] == "stand-in" for e in kept)
    for row in done.results:
        assert bool(row.get("standin")) == (row["power"] != "FRANCE"), row
        assert not row["default"]
    assert record.results["results"] == done.results
    # The web's phase page reads the stored results: the marks show there too.
    shown = "\n".join(phase_results(game, processing.history(game), 0))
    assert shown.count("(stand-in)") == sum(len(expected[p]) for p in expected if p != "FRANCE")
    assert "A PAR H (stand-in)" not in shown and "A PAR H" in shown

    # ROLLBACK puts back only the players' own orders; ROLLFORWARD replays the stand-in's
    # and marks them again.
    stored = record.results
    processing.rollback(game, "S1901M")
    assert set(processing.orders_on_file(game)) == {"FRANCE"}
    processing.rollforward(game)
    assert _record(game, "S1901M").results == stored


def test_without_the_rule_the_silent_powers_get_the_defaults(sqlite_db: str) -> None:
    game = new_game("sb")
    submit_orders(game, seat_for_power(game, "FRANCE"), "FRANCE", FRENCH_HOLDS)
    done = processing.process(game, force=True)
    assert done is not None
    assert not any(row.get("standin") for row in done.results)
    assert all(row["default"] for row in done.results if row["power"] != "FRANCE")


def test_a_player_away_with_the_stand_in_is_not_waited_for(sqlite_db: str) -> None:
    game = new_game("sc", rules="STANDIN")
    seat = seat_for_power(game, "FRANCE")
    now = utcnow()
    today = now.date()
    deadline = get_game("sc").deadline
    assert "FRANCE" in set_standin(seat, True)
    schedule.set_absence(seat, str(today - timedelta(days=1)), str(today + timedelta(days=2)), now)
    game = get_game("sc")
    assert game.deadline == deadline  # the absence moved no deadline
    seats = list(Seat.select().where(Seat.game == game))
    assert away_with_standin(game, seats, now) == {"FRANCE"}
    assert away_with_standin(game, seats, now + timedelta(days=3)) == set()
    assert "FRANCE" not in processing.late_powers(game)
    for power in MAP.power_names:
        if power != "FRANCE":
            units = current_position(game).units_of(power)
            submit_orders(game, seat_for_power(game, power), power, [f"{u} H" for u in units])
    assert processing.readiness(game).ready  # nobody else is late: it goes ahead
    done = processing.process(game)
    assert done is not None
    french = [r for r in done.results if r["power"] == "FRANCE"]
    assert len(french) == 3 and all(r.get("standin") for r in french)

    # Taken back, the absence counts as before: France is waited for again.
    set_standin(Seat.get_by_id(seat.id), False)
    assert "FRANCE" in processing.late_powers(get_game("sc"))


def test_without_the_rule_an_absence_moves_the_deadline_whatever_the_seat_says(
    sqlite_db: str,
) -> None:
    game = new_game("sd")
    seat = seat_for_power(game, "FRANCE")
    seat.standin = True  # left from a time the game had STANDIN
    seat.save()
    deadline = game.deadline
    assert deadline is not None
    start, end = deadline - timedelta(hours=1), deadline + timedelta(days=2)
    schedule.set_absence(seat, start.date().isoformat(), end.date().isoformat())
    assert get_game("sd").deadline != deadline
    assert away_with_standin(get_game("sd"), [Seat.get_by_id(seat.id)]) == set()


def test_only_a_seat_with_a_power_has_a_stand_in(sqlite_db: str) -> None:
    game = new_game("se", rules="STANDIN")
    master = Seat.get((Seat.game == game) & (Seat.role == "master"))
    with pytest.raises(ServiceError, match="no power"):
        set_standin(master, True)


def test_a_silent_power_the_stand_in_plays_is_open_and_one_away_is_not(sqlite_db: str) -> None:
    """Openings (issue 35 point 1) beside the stand-in: its orders are not the player's, so
    a silent power it played under CIVIL_DISORDER is open for a takeover; a player away
    who asked for the stand-in keeps their power closed."""
    game = new_game("sd", rules="STANDIN CIVIL_DISORDER")
    now = utcnow()
    away = seat_for_power(game, "FRANCE")
    set_standin(away, True)
    schedule.set_absence(
        away, str(now.date() - timedelta(days=1)), str(now.date() + timedelta(days=2)), now
    )
    for power in ("ENGLAND", "GERMANY", "ITALY", "RUSSIA", "TURKEY"):
        units = current_position(game).units_of(power)
        submit_orders(game, seat_for_power(game, power), power, [f"{u} H" for u in units])
    # After the deadline and its grace: Austria really missed it (issue 52).
    deadline = get_game("sd").deadline
    assert deadline is not None
    after_grace = deadline + schedule.timing_of(game).grace + timedelta(minutes=1)
    done = processing.process(get_game("sd"), force=True, now=after_grace)
    assert done is not None
    assert all(r.get("standin") for r in done.results if r["power"] in ("FRANCE", "AUSTRIA"))
    openings.after_phase(get_game("sd"), done)
    assert open_powers(get_game("sd")) == ["AUSTRIA"]


def test_the_mode_follows_the_rules_flags_and_standin_orders_shows_it(sqlite_db: str) -> None:
    """Issue 55: STANDIN plays, STANDIN_CARETAKER takes care; STANDIN ORDERS (the service's
    orders_now) prints what the game's mode would order, and processing gives just that."""
    start = initial_position(MAP)
    for name, rules, mode in (("pl", "STANDIN", PLAYS), ("ct", "STANDIN_CARETAKER", CARETAKER)):
        game = new_game(name, rules=rules)
        assert mode_of(game) == mode
        expected = standin_texts(MAP, start, ["ITALY"], name, mode=mode)["ITALY"]
        shown = orders_now(game, "italy")
        assert shown[0] == f"the stand-in ({mode}) under its STANDIN rule, {name} S1901M:"
        assert shown[1:-1] == ["  ITALY:", *(f"    {line}" for line in expected)]
        done = processing.process(game, force=True)
        assert done is not None
        kept = _record(game, "S1901M").orders["ITALY"]
        assert [e["text"] for e in kept] == expected
    # The two modes differ on the first move: the player attacks, the caretaker does not.
    assert standin_texts(MAP, start, MAP.power_names, "pl", mode=PLAYS) != standin_texts(
        MAP, start, MAP.power_names, "pl", mode=CARETAKER
    )
    plain = new_game("np")
    assert (
        orders_now(plain, None)[0]
        == "the stand-in (plays) (this game has no STANDIN rule), np S1901M:"
    )
    with pytest.raises(ServiceError, match="np has no power KLINGON"):
        orders_now(plain, "klingon")

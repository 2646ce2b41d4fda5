"""Each of the twenty rules flags shows its effect through the service layer, and each
forbidden combination is refused with a reason."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from mailjudge.engine.rules import known_rules
from mailjudge.engine.state import Phase
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import current_position, get_game, seat_named, set_rules
from mailjudge.service import draws, processing
from mailjudge.service.games import create_game, start_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.press import resolve_recipients, send_press
from mailjudge.service.seats import join, observe, seat_for_power, set_wait
from mailjudge.store.models import Game, utcnow

pytestmark = pytest.mark.usefixtures("sqlite_db")
EMAILS = [f"p{i}@example.org" for i in range(7)]


def game_with(rules: str = "", name: str = "g", players: int = 7) -> Game:
    game = create_game(name, "gm@example.org", "gm-pw", rules=rules)
    for i in range(players):
        join(game, EMAILS[i], f"pw{i}", rng=random.Random(i))
    return get_game(name)


def hold_all(game: Game, powers: list[str] | None = None) -> None:
    pos = current_position(game)
    for power in powers or sorted({u.power for u in pos.units.values()}):
        submit_orders(
            game, seat_for_power(game, power), power, [f"{u} H" for u in pos.units_of(power)]
        )


def test_the_catalogue_has_the_twenty_rules() -> None:
    twenty = {
        "POWER_CHOICE", "MULTIPLE_POWERS_PER_PLAYER", "NO_OBSERVATIONS", "SOLITAIRE", "START_MASTER",
        "NO_PRESS", "PUBLIC_PRESS", "DONT_SKIP_PHASES", "IGNORE_ERRORS", "BUILD_ANY",
        "CIVIL_DISORDER", "CD_DUMMIES", "NO_DEADLINE", "REAL_TIME", "ALWAYS_WAIT", "PROPOSE_DIAS",
        "NO_DIAS", "HOLD_WIN", "SHARED_VICTORY", "NO_CHECK",
    }  # fmt: skip
    assert twenty <= set(known_rules())


# --- joining and starting -----------------------------------------------------------------


def test_power_choice() -> None:
    chosen = create_game("choice", "gm@example.org", "pw", rules="+POWER_CHOICE")
    seat = join(chosen, EMAILS[0], "pw", power="france")
    assert seat.powers == ("FRANCE",) and seat.name == "france"
    with pytest.raises(NotAllowed, match="FRANCE is taken"):
        join(chosen, EMAILS[1], "pw", power="FRANCE")
    dealt = create_game("dealt", "gm@example.org", "pw")
    with pytest.raises(NotAllowed, match="dealt at random"):
        join(dealt, EMAILS[0], "pw", power="FRANCE")


def test_multiple_powers_per_player() -> None:
    many = create_game("many", "gm@example.org", "pw", rules="MULTIPLE_POWERS_PER_PLAYER")
    join(many, EMAILS[0], "pw")
    join(many, EMAILS[0], "pw2")
    one = create_game("one", "gm@example.org", "pw")
    join(one, EMAILS[0], "pw")
    with pytest.raises(NotAllowed, match="one power per player"):
        join(one, EMAILS[0], "pw2")


def test_no_observations() -> None:
    closed = create_game("closed", "gm@example.org", "pw", rules="NO_OBSERVATIONS")
    with pytest.raises(NotAllowed, match="no observers"):
        observe(closed, "watcher@example.org", "pw")
    open_game = create_game("open", "gm@example.org", "pw")
    assert observe(open_game, "watcher@example.org", "pw").role == "observer"


def test_solitaire() -> None:
    game = create_game("puzzle", "gm@example.org", "pw", rules="SOLITAIRE")
    assert game.state == "active" and game.private
    assert {"NO_DEADLINE", "CD_DUMMIES", "ALWAYS_WAIT"} <= set(game.rules)
    seats = [s for s in game.seats if s.role == "player"]
    assert len(seats) == 7 and all(s.dummy and s.person is None for s in seats)
    # Nothing processes by itself; the master orders for any power and processes.
    assert not processing.readiness(game).ready
    master = seat_named(game, "master")
    submit_orders(game, master, "FRANCE", ["A PAR - BUR"])
    processing.process(game, force=True)
    assert current_position(game).units["bur"].power == "FRANCE"


def test_start_master() -> None:
    waiting = game_with("START_MASTER", "waiting")
    assert waiting.state == "forming"
    start_game(waiting, random.Random(1))
    assert get_game("waiting").state == "active"
    assert game_with("", "auto").state == "active"


def test_start_with_few_players_makes_dummies() -> None:
    game = game_with("START_MASTER", "few", players=3)
    start_game(game, random.Random(2))
    seats = [s for s in get_game("few").seats if s.role == "player"]
    assert sum(1 for s in seats if s.dummy) == 4 and sum(1 for s in seats if s.person) == 3


# --- press ----------------------------------------------------------------------------------


def test_no_press() -> None:
    game = game_with("NO_PRESS", "quiet")
    france, england = seat_for_power(game, "FRANCE"), seat_for_power(game, "ENGLAND")
    with pytest.raises(NotAllowed, match="NO_PRESS"):
        send_press(game, france, resolve_recipients(game, ["E"]), "hello")
    send_press(game, france, resolve_recipients(game, ["M"]), "to the master")
    send_press(game, seat_named(game, "master"), resolve_recipients(game, ["ALL"]), "news")
    assert england  # the master may write to anyone


def test_public_press() -> None:
    game = game_with("PUBLIC_PRESS", "loud")
    france = seat_for_power(game, "FRANCE")
    with pytest.raises(NotAllowed, match="PUBLIC_PRESS"):
        send_press(game, france, resolve_recipients(game, ["ENGLAND"]), "psst")
    note = send_press(game, france, resolve_recipients(game, ["ALL"]), "hear ye")
    assert note.press.broadcast
    normal = game_with("", "chatty")
    send_press(
        normal, seat_for_power(normal, "FRANCE"), resolve_recipients(normal, ["E", "G"]), "x"
    )


def test_press_recipients() -> None:
    game = game_with("", "mail")
    assert resolve_recipients(game, ["ALL", "BUT", "F", "turkey"])[:-1] == [
        "AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA",
    ]  # fmt: skip
    with pytest.raises(ServiceError, match="not a power"):
        resolve_recipients(game, ["NARNIA"])


# --- phases and orders ----------------------------------------------------------------------


def test_dont_skip_phases() -> None:
    for rules, expected in (("DONT_SKIP_PHASES", "S1901R"), ("", "F1901M")):
        game = game_with(rules, f"skip{len(rules)}")
        hold_all(game)
        processing.process(game)
        assert game.phase == expected


def test_ignore_errors() -> None:
    for rules, errors in (("IGNORE_ERRORS", 0), ("", 1)):
        game = game_with(rules, f"ign{len(rules)}")
        report = submit_orders(
            game, seat_for_power(game, "FRANCE"), "FRANCE", ["A PAR - MOS", "A MAR H"]
        )
        assert len(report.errors) == errors and report.accepted == ["A MAR H"]


def test_no_check() -> None:
    game = game_with("NO_CHECK", "ftf")
    report = submit_orders(
        game, seat_for_power(game, "FRANCE"), "FRANCE", ["A PAR - MOS", "A PAR - URK"]
    )
    assert report.accepted == ["A PAR - MOS"]  # only the Urk check at submission
    assert "unreadable" in report.errors[0][1]
    done = processing.process(game, force=True)
    assert done is not None
    (par,) = [r for r in done.results if r["order"] == "A PAR - MOS"]
    assert par["outcome"] == "invalid"
    assert current_position(game).units["par"].power == "FRANCE"  # it held


def _play(game: Game, *phases: dict[str, list[str]]) -> None:
    for orders in phases:
        for power, lines in orders.items():
            submit_orders(game, seat_for_power(game, power), power, lines)
        processing.process(game, force=True)


def test_build_any() -> None:
    """Spain, taken in 1901 and left empty in 1902, is a French centre but not a home one."""
    for rules, allowed in (("BUILD_ANY", True), ("", False)):
        game = game_with(rules, f"b{len(rules)}")
        _play(
            game,
            {"FRANCE": ["A MAR - SPA"]}, {"FRANCE": ["A SPA H"]}, {},
            {"FRANCE": ["A SPA - POR"]}, {"FRANCE": ["A POR H"]},
        )  # fmt: skip
        assert game.phase == "W1902A"
        report = submit_orders(game, seat_for_power(game, "FRANCE"), "FRANCE", ["A SPA B"])
        if allowed:
            assert report.accepted == ["A SPA B"]
        else:
            assert "home centre" in report.errors[0][1]


# --- when to process ------------------------------------------------------------------------


def test_civil_disorder_at_the_deadline() -> None:
    for rules, ready in (("CIVIL_DISORDER", True), ("", False)):
        game = game_with(rules, f"cd{len(rules)}")
        hold_all(game, ["FRANCE"])
        game.deadline = utcnow() - timedelta(minutes=1)
        game.save()
        state = processing.readiness(game)
        assert state.ready is ready
        assert "ENGLAND" in state.waiting_for


def test_cd_dummies() -> None:
    for rules, ready in (("CD_DUMMIES", True), ("", False)):
        game = game_with(rules + " START_MASTER", f"dummy{len(rules)}", players=2)
        start_game(game, random.Random(5))
        game = get_game(game.name)
        humans = [p for s in game.seats if s.role == "player" and s.person for p in s.powers]
        hold_all(game, humans)
        assert processing.readiness(game).ready is ready


def test_no_deadline() -> None:
    for rules, ready in (("NO_DEADLINE CIVIL_DISORDER", False), ("CIVIL_DISORDER", True)):
        game = game_with(rules, f"nd{len(rules)}")
        game.deadline = utcnow() - timedelta(hours=1)
        game.save()
        assert processing.readiness(game).ready is ready


def test_real_time_and_always_wait() -> None:
    fast = game_with("REAL_TIME", "fast")
    with pytest.raises(NotAllowed, match="REAL_TIME"):
        set_wait(seat_for_power(fast, "FRANCE"), True)
    hold_all(fast)
    assert processing.readiness(fast).ready
    slow = game_with("ALWAYS_WAIT", "slow")
    hold_all(slow)
    assert not processing.readiness(slow).ready
    slow.deadline = utcnow() - timedelta(seconds=1)
    slow.save()
    assert processing.readiness(slow).ready
    normal = game_with("", "normal")
    set_wait(seat_for_power(normal, "FRANCE"), True)
    hold_all(normal)
    state = processing.readiness(normal)
    assert not state.ready and "WAIT" in state.reason


# --- endings --------------------------------------------------------------------------------


def test_secret_draw_vote() -> None:
    game = game_with("", "vote")
    powers = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
    seats = [seat_for_power(game, p) for p in powers]
    for seat in seats[:-1]:
        assert draws.vote(game, seat, "DRAW") is None
    assert draws.vote(game, seats[-1], "CONCEDE TURKEY") is None  # Turkey conceding to itself
    assert draws.vote(game, seats[-1], "DRAW").startswith("DRAW AUSTRIA ENGLAND")
    assert get_game("vote").state == "finished"


def test_concession_vote() -> None:
    game = game_with("", "concede")
    outcome = None
    for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"):
        outcome = draws.vote(game, seat_for_power(game, power), "CONCEDE FRANCE")
    assert outcome == "CONCESSION FRANCE"


def test_propose_dias() -> None:
    game = game_with("PROPOSE_DIAS", "dias")
    powers = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
    with pytest.raises(NotAllowed):
        draws.vote(game, seat_for_power(game, "FRANCE"), "DRAW")
    draws.propose(game, seat_for_power(game, "FRANCE"), "DRAW")
    draws.answer(game, seat_for_power(game, "ENGLAND"), yes=True)
    draws.answer(game, seat_for_power(game, "GERMANY"), yes=False)  # one NO vetoes it
    with pytest.raises(NotAllowed, match="no open proposal"):
        draws.answer(game, seat_for_power(game, "ITALY"), yes=True)
    draws.propose(game, seat_for_power(game, "TURKEY"), "CONCEDE TURKEY")
    outcome = None
    for power in powers:
        if power != "TURKEY":
            outcome = draws.answer(game, seat_for_power(game, power), yes=True)
    assert outcome == "CONCESSION TURKEY"


def test_no_dias() -> None:
    game = game_with("NO_DIAS", "nodias")
    # The powers not voting LOSS share the ending: here four who want a draw of up to 4.
    votes = {"AUSTRIA": "3", "ENGLAND": "LOSS", "FRANCE": "7", "GERMANY": "7", "ITALY": "LOSS",
             "RUSSIA": "LOSS", "TURKEY": "7"}  # fmt: skip
    outcome = None
    for power, vote in votes.items():
        outcome = draws.vote_no_dias(game, seat_for_power(game, power), vote)
    assert outcome is None  # Austria accepts no draw of more than three
    outcome = draws.vote_no_dias(game, seat_for_power(game, "AUSTRIA"), "4")
    assert outcome == "DRAW AUSTRIA FRANCE GERMANY TURKEY"
    solo = game_with("NO_DIAS", "solo")
    for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "TURKEY"):
        draws.vote_no_dias(solo, seat_for_power(solo, power), "SOLO")
    assert draws.vote_no_dias(solo, seat_for_power(solo, "RUSSIA"), "1") is None
    for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY"):
        draws.vote_no_dias(solo, seat_for_power(solo, power), "LOSS")
    assert draws.vote_no_dias(solo, seat_for_power(solo, "TURKEY"), "LOSS") == "WIN RUSSIA"
    with pytest.raises(ServiceError, match="VOTE n"):
        draws.vote_no_dias(
            game_with("NO_DIAS", "nd2"), seat_for_power(get_game("nd2"), "FRANCE"), "8"
        )


def _fall_1901_france_takes_iberia(rules: str, name: str, count: int) -> Game:
    game = game_with(rules, name)
    game.victory_count = count
    game.save()
    _play(game, {"FRANCE": ["A MAR - SPA", "F BRE - MAO"]}, {"FRANCE": ["F MAO - POR"]})
    return get_game(name)


def test_victory_and_hold_win() -> None:
    plain = _fall_1901_france_takes_iberia("", "plain", 5)
    assert plain.state == "finished" and plain.outcome == "WIN FRANCE"
    held = _fall_1901_france_takes_iberia("HOLD_WIN", "held", 5)
    assert held.state == "active"  # at the count once is not enough
    for orders in ({"FRANCE": ["A PAR B", "F BRE B"]}, {}, {}):
        for power, lines in orders.items():
            submit_orders(held, seat_for_power(held, power), power, lines)
        processing.process(held, force=True)
    assert Phase.parse(held.phase).year == 1903 or held.state == "finished"
    assert get_game("held").outcome == "WIN FRANCE"


def test_shared_victory() -> None:
    for rules, outcome in (("SHARED_VICTORY", "WIN FRANCE RUSSIA"), ("", "")):
        game = game_with(rules, f"sv{len(rules)}")
        game.victory_count = 5
        game.save()
        _play(
            game,
            {"FRANCE": ["A MAR - SPA", "F BRE - MAO"], "RUSSIA": ["F SEV - BLA", "A WAR - GAL"]},
            {"FRANCE": ["F MAO - POR"], "RUSSIA": ["F BLA - RUM"]},
        )
        assert get_game(game.name).outcome == outcome


# --- forbidden combinations -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [("REAL_TIME", "ALWAYS_WAIT"), ("PROPOSE_DIAS", "NO_DIAS"), ("SOLITAIRE", "REAL_TIME")],
)
def test_forbidden_combinations_are_refused(first: str, second: str) -> None:
    with pytest.raises(ServiceError) as err:
        create_game("bad", "gm@example.org", "pw", rules=f"{first} {second}")
    assert first in str(err.value) and second in str(err.value)
    game = create_game(f"ok{len(first)}", "gm@example.org", "pw", rules=first)
    with pytest.raises(ServiceError) as err:
        set_rules(game, f"+{second}")
    assert second in str(err.value)
    assert second not in game.rules


def test_exclusive_press_rules_replace_each_other() -> None:
    game = create_game("press", "gm@example.org", "pw", rules="NO_PRESS")
    set_rules(game, "+PUBLIC_PRESS")
    assert "PUBLIC_PRESS" in game.rules and "NO_PRESS" not in game.rules

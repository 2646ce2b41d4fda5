"""Issue 59: the README's table of the new features in each variant (ready block, Reply
tokens, stand-in, VOTE EXTEND, RECORD, calendar; the openings row is issue 52's), one test
per variant, on SQLite and PostgreSQL. Each feature asks the variant who may take part and
what a silent power does; each test's docstring quotes the seed its variant plays."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

import pytest

from mailjudge.commands.run import execute
from mailjudge.config import settings, settings_files
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.errors import NotAllowed
from mailjudge.game.state import current_position, get_game, orders_on_file
from mailjudge.service import extend, processing
from mailjudge.service.games import create_game, start_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.seats import join
from mailjudge.service.standin import set_standin
from mailjudge.store.models import Game, RecordEntry, Seat, utcnow
from mailjudge.variants import double
from mailjudge.variants.democratic import join_citizen
from mailjudge.variants.survive.tables import Outcast

POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
MTA = "mx.judge.test"
JUDGE = "judge@example.org"


@pytest.fixture
def tokens_on() -> Iterator[None]:
    """Reply tokens on: the operator trusts its MTA's Authentication-Results."""
    before = settings._CURRENT
    environ = {"MAILJUDGE_SECURITY_TRUSTED_AUTHSERV_ID": MTA,
               "MAILJUDGE_SECURITY_TOKEN_KEY": "a-long-random-key-for-tests-only"}  # fmt: skip
    settings.use_settings(settings_files.load_settings(None, environ))
    yield
    settings.use_settings(before)  # type: ignore[arg-type]


def _by_power(name: str, variant: str, rules: str = "") -> Game:
    """A game of ``variant`` whose seven players joined with their powers (and started)."""
    game = create_game(name, "gm@example.org", "gmpw", variant=variant,
                       rules=f"POWER_CHOICE {rules}".strip())  # fmt: skip
    for power in POWERS:
        join(get_game(name), f"{power.lower()}@example.org", "pw", power=power)
    game = get_game(name)
    assert game.state == "active"
    return game


def _seat(game: Game, power: str) -> Seat:
    return Seat.get((Seat.game == game) & (Seat.role == "player") & (Seat.name == power.lower()))


def _process_late(game: Game) -> processing.Processed:
    """The deadline now, after the orders sent, and the phase processed a day later: what
    is missing then was missed (the civil-disorder defaults, or the stand-in, play it)."""
    deadline = utcnow()
    Game.update(deadline=deadline).where(Game.id == game.id).execute()
    done = processing.process(get_game(game.name), force=True, now=deadline + timedelta(days=1))
    assert done is not None
    return done


def _holds(game: Game, power: str) -> list[str]:
    return [f"{u} H" for u in current_position(game).units_of(power)]


def _signon(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("SIGNON "))


def _entries(game: Game) -> dict[str, str]:
    return {str(e.powers): e.outcome for e in RecordEntry.select().where(RecordEntry.game == game)}


@pytest.mark.usefixtures("any_db", "tokens_on")
def test_democratic_row() -> None:
    """Seed 000: "Citizens live in countries, and are using a voting system to choose the
    next set of orders." Citizens order by PROPOSAL and VOTE, never by an ORDERS block:
    no ready block and no Reply token; a country whose citizens chose no set is played by
    the stand-in under STANDIN (the seed leaves such a country to the judge); VOTE
    EXTEND is the players' and a citizen holds no power (refused, saying why); no RECORD
    entry (citizens vote rather than order); every citizen's calendar gets the deadline."""
    game = create_game("demf", "gm@example.org", "gmpw", variant="democratic", rules="STANDIN")
    for n in range(8):
        join_citizen(get_game("demf"), f"c{n}@example.org", "pw", f"c{n}")
    start_game(get_game("demf"), random.Random(2))
    game = get_game("demf")
    citizen = Seat.get((Seat.game == game) & (Seat.name == "c0"))
    assert ready_lines(game, citizen) == []
    with pytest.raises(NotAllowed, match="only the players of powers still in the game"):
        extend.vote(game, citizen, timedelta(hours=24), utcnow())
    assert invitation_ics(game, citizen, Change.NEW) is not None
    done = _process_late(game)
    assert {r["power"] for r in done.results if r.get("standin")} == set(POWERS)
    assert _entries(game) == {}


@pytest.mark.usefixtures("any_db", "tokens_on")
def test_double_row() -> None:
    """Seed 004: "there are always two sets of orders for each power submitted ... The GM
    will only execute those orders which 'synchronize'." Each player's ready block holds
    their own orders (never the partner's) and leaves a unit they did not order open; the
    Reply token stands for the seat, and a mail signed with it files that player's own
    orders only; the stand-in plays a power neither partner ordered, never one with a
    partner's orders; VOTE EXTEND counts a power once, whichever partner asks; RECORD
    judges each partner by their own orders; both players of a power get the deadline."""
    create_game("dblf", "gm@example.org", "gmpw", variant="double", rules="STANDIN")
    for n in range(7):
        join(get_game("dblf"), f"p{n}@example.org", "pw", name=f"p{n}", rng=random.Random(3))
    game = get_game("dblf")
    seats = {s.name: s for s in double.ring_seats(game)}
    a, b = seats["england-turkey"], seats["austria-england"]
    submit_orders(game, b, "ENGLAND", ["F LON - NTH"])
    mine = ready_lines(game, a)
    assert "F LON - NTH" not in mine and "F LON H" not in mine
    assert "TOKEN:" in _signon(mine) and _signon(mine).startswith("SIGNON england-turkey@dblf")
    token = _signon(mine).split()[2]
    ctx = execute(f"SIGNON england-turkey@dblf {token}\nORDERS ENGLAND\nF EDI - NWG\nEND",
                  a.person.email, JUDGE, utcnow(), sender_proven=True)  # fmt: skip
    assert all(answer.ok for answer in ctx.answers), [x.lines for x in ctx.answers]
    filed = {(x.text, x.submitted_by_id) for x in orders_on_file(game)["ENGLAND"]}
    assert filed == {("F LON - NTH", b.id), ("F EDI - NWG", a.id)}
    assert len({p for p in extend.in_play(game)}) == 7
    assert extend.vote(game, a, timedelta(hours=24), utcnow()) is None
    assert extend.vote(game, b, timedelta(hours=24), utcnow()) is None
    assert set(extend.asked_lengths(game)) == {"AUSTRIA", "ENGLAND", "TURKEY"}
    assert all(invitation_ics(game, s, Change.NEW) is not None for s in seats.values())
    done = _process_late(game)
    by_standin = {r["power"] for r in done.results if r.get("standin")}
    assert "ENGLAND" not in by_standin and by_standin == set(POWERS) - {"ENGLAND"}
    entries = _entries(game)
    assert entries["AUSTRIA ENGLAND"] == "disorder"  # austria-england sent no AUSTRIA orders
    assert entries["ENGLAND TURKEY"] == "disorder"
    assert set(entries.values()) == {"disorder"}


@pytest.mark.usefixtures("any_db", "tokens_on")
def test_survive_row() -> None:
    """Seed 002, rule 4a: "Whoever has the most votes against is out of the game. All of
    their units HOLD (may be supported by foreign units) and disband if dislodged." An
    outcast orders nothing: no ready block, no Reply token, no stand-in (its units hold by
    the rule), no VOTE EXTEND (refused, saying why; the quorum counts the powers in play),
    no RECORD entry; its player keeps the seat and the results (rule 8: "you must remain
    in the game") and the deadline in the calendar. A silent power in play gets the
    stand-in under STANDIN, like any."""
    game = _by_power("survf", "survive", "STANDIN")
    Outcast.create(game=game, power="TURKEY", phase="W1900A", sequence=-1, reason="voted")
    game = get_game("survf")
    turkey, france = _seat(game, "TURKEY"), _seat(game, "FRANCE")
    assert ready_lines(game, turkey) == []
    assert "TOKEN:" in _signon(ready_lines(game, france))
    with pytest.raises(NotAllowed, match="TURKEY is out of the game"):
        extend.vote(game, turkey, timedelta(hours=24), utcnow())
    assert sorted(extend.in_play(game)) == sorted(set(POWERS) - {"TURKEY"})
    assert invitation_ics(game, turkey, Change.NEW) is not None
    for power in POWERS:
        if power not in ("TURKEY", "ITALY"):
            submit_orders(game, _seat(game, power), power, _holds(game, power))
    done = _process_late(game)
    assert {r["power"] for r in done.results if r.get("standin")} == {"ITALY"}
    assert {r["order"] for r in done.results if r["power"] == "TURKEY"} == {
        "A CON H", "A SMY H", "F ANK H"
    }  # fmt: skip
    entries = _entries(game)
    assert "TURKEY" not in entries and entries["ITALY"] == "disorder"
    assert entries["FRANCE"] == "on time"


@pytest.mark.usefixtures("any_db", "tokens_on")
def test_diplonomic_row() -> None:
    """Seed 003, rule 24: "If a Contestant leaves the game or eir country otherwise fails
    to submit orders ..., Eir units all hold in position, but don't support each other."
    and rule 7's teammates, who "assist the contestant" but are not contestants. The
    contestant gets the ready block and its Reply token, a teammate neither; the stand-in
    never plays (rule 24 does) and SET STANDIN is refused; VOTE EXTEND is the
    contestants' (a teammate is refused; a country in civil disorder is not counted); the
    RECORD is the contestants'; contestants and teammates get the deadline."""
    game = _by_power("nomf", "diplonomic", "STANDIN")
    france = _seat(game, "FRANCE")
    tina = Seat.create(game=game, role="teammate", name="tina", assists=france,
                       person=france.person, authorized=True)  # fmt: skip
    assert "TOKEN:" in _signon(ready_lines(game, france))
    assert ready_lines(game, tina) == []
    with pytest.raises(NotAllowed, match="played by rule 24"):
        set_standin(france, True)
    with pytest.raises(NotAllowed):
        extend.vote(game, tina, timedelta(hours=24), utcnow())
    italy = _seat(game, "ITALY")
    italy.person, italy.dummy = None, True
    italy.save()
    assert "ITALY" not in extend.in_play(get_game("nomf"))
    assert invitation_ics(game, tina, Change.NEW) is not None
    for power in ("AUSTRIA", "ENGLAND", "GERMANY", "RUSSIA", "TURKEY"):
        submit_orders(game, _seat(game, power), power, _holds(game, power))
    done = _process_late(get_game("nomf"))
    assert not [r for r in done.results if r.get("standin")]
    assert {r["order"] for r in done.results if r["power"] == "FRANCE"} == {
        "A PAR H", "A MAR H", "F BRE H"
    }  # fmt: skip
    entries = _entries(game)
    assert entries["FRANCE"] == "disorder" and "ITALY" not in entries
    assert "tina" not in {e.person.name for e in RecordEntry.select()}


@pytest.mark.usefixtures("any_db", "tokens_on")
def test_gunboat_row() -> None:
    """Gunboat (no seed: the standard game with no press between players and no names).
    Every feature plays as in the standard game, by power only: the ready block and its
    Reply token sign on as the power; the stand-in plays a silent power; VOTE EXTEND
    counts the seven powers; RECORD notes each player; the calendar invites them, and
    names no one but the power."""
    game = _by_power("gunf", "gunboat", "STANDIN")
    france = _seat(game, "FRANCE")
    signon = _signon(ready_lines(game, france))
    assert signon.startswith("SIGNON france@gunf TOKEN:")
    assert len(extend.in_play(game)) == 7
    ics = invitation_ics(game, france, Change.NEW)
    assert ics is not None and b"FRANCE" in ics
    for power in POWERS[:-1]:
        submit_orders(game, _seat(game, power), power, _holds(game, power))
    done = _process_late(game)
    assert {r["power"] for r in done.results if r.get("standin")} == {"TURKEY"}
    entries = _entries(game)
    assert entries["TURKEY"] == "disorder" and entries["FRANCE"] == "on time"

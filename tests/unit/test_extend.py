"""VOTE EXTEND (service/extend.py): who counts, the quorum, the length agreed, the caps
(EXTEND_MAX, EXTENSIONS a game year), and that nothing tells anyone but the voter of a
vote. The mail-played story is tests/mail/test_e2e_extend.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from helpers.joining import execute_confirming

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.base import Context
from mailjudge.commands.run import reply_text
from mailjudge.game import options
from mailjudge.game.state import get_game
from mailjudge.service import extend
from mailjudge.service.draws import electorate
from mailjudge.store.models import Ballot, DeadlineExtension, Seat

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
H = timedelta(hours=1)


def send(text: str, sender: str = "gm@example.org", now: datetime = NOW) -> Context:
    return execute_confirming(text, sender, JUDGE, now)


def vote(power: str, words: str = "VOTE EXTEND", now: datetime = NOW) -> Context:
    i = POWERS.index(power)
    return send(f"SIGNON {power.lower()}@alpha pw{i}\n{words}", f"p{i}@example.org", now)


def everything_sent(ctx: Context) -> str:
    return reply_text(ctx) + "".join(o.body + o.subject for o in ctx.outgoing)


@pytest.fixture
def alpha(sqlite_db: object) -> None:
    send("CREATE alpha secret RULES POWER_CHOICE")
    for i, power in enumerate(POWERS):
        send(f"JOIN alpha pw{i} {power}", f"p{i}@example.org")
    assert get_game("alpha").state == "active" and get_game("alpha").deadline is not None


def set_option(name: str, value: str) -> None:
    options.set_option(get_game("alpha"), name, value)


@pytest.mark.parametrize(
    ("asked", "in_play", "quorum", "agreed"),
    [
        ([24, 24, 24, 24], 7, Fraction(2, 3), None),  # 4 of 7 is short of 2/3
        ([24, 24, 24, 24, 24], 7, Fraction(2, 3), 24),  # 5 of 7 is enough
        ([72, 12, 48, 24, 48, 36], 7, Fraction(2, 3), 24),  # the 5th longest: all 5 asked 24+
        ([72, 12, 48], 3, Fraction(2, 3), 48),  # two asked at least 48
        ([6], 2, Fraction(1, 2), 6),
        ([], 0, Fraction(2, 3), None),
    ],
)
def test_the_quorum_agrees_to_the_longest_all_of_it_asked_for(
    asked: list[int], in_play: int, quorum: Fraction, agreed: int | None
) -> None:
    found = extend.quorum_length([a * H for a in asked], in_play, quorum)
    assert found == (None if agreed is None else agreed * H)


@pytest.mark.usefixtures("alpha")
def test_in_play_counts_each_power_once_and_not_the_unheld() -> None:
    game = get_game("alpha")
    assert sorted(electorate(game)) == POWERS
    seat = Seat.get((Seat.game == game) & (Seat.powers == "TURKEY"))
    seat.dummy = True
    seat.save()
    assert "TURKEY" not in electorate(game)  # a dummy holds no vote: six in play
    set_option("EXTEND_QUORUM", "1/2")
    for power in POWERS[:2]:
        assert "recorded" in reply_text(vote(power, "VOTE EXTEND 10H"))
    assert get_game("alpha").deadline == game.deadline  # 2 of 6: short of a half
    done = vote("FRANCE", "VOTE EXTEND 10H")
    assert "the deadline moved by 10H" in reply_text(done)
    assert get_game("alpha").deadline == game.deadline + 10 * H


@pytest.mark.usefixtures("alpha")
def test_below_the_quorum_nothing_moves_and_nobody_else_hears() -> None:
    before = get_game("alpha").deadline
    for power in POWERS[:4]:
        ctx = vote(power, "VOTE EXTEND 24H")
        assert ctx.outgoing == []  # no mail but the answer to the voter
        answer = reply_text(ctx)
        assert "your secret vote to extend the deadline by 1D is recorded" in answer
        # The answer speaks of this vote only: not who else voted, nor how many.
        assert not any(p in answer for p in POWERS if p != power.upper())
        assert "4" not in answer.split("recorded")[1].split("\n")[0]
    assert get_game("alpha").deadline == before
    assert Ballot.select().where(Ballot.kind == "extend").count() == 4


@pytest.mark.usefixtures("alpha")
def test_at_the_quorum_the_shortest_of_it_moves_the_deadline_and_everyone_is_told() -> None:
    before = get_game("alpha").deadline
    assert before is not None
    for power, length in zip(POWERS[:4], ("48H", "72H", "30H", "36H"), strict=True):
        vote(power, f"VOTE EXTEND {length}")
    ctx = vote("ITALY", "VOTE EXTEND 60H")  # the quorum: 5 of 7; the 5th longest is 30H
    assert "the deadline moved by 1D6H" in reply_text(ctx)
    assert get_game("alpha").deadline == before + 30 * H
    told = {a for o in ctx.outgoing for a in o.to}
    assert len(ctx.outgoing) == 8 and "gm@example.org" in told  # 7 players and the master
    sent = "".join(o.body + o.subject for o in ctx.outgoing)
    assert "voted to extend the deadline of S1901M by 1D6H" in sent
    assert not any(p in sent for p in POWERS)  # nobody named
    assert all(o.calendar for o in ctx.outgoing)  # the calendar event moves
    assert Ballot.select().where(Ballot.kind == "extend").count() == 0  # spent
    [row] = DeadlineExtension.select()
    assert (row.phase, row.year, row.length) == ("S1901M", 1901, 30 * 3600)


@pytest.mark.usefixtures("alpha")
def test_extend_max_caps_a_vote_and_stands_for_a_vote_without_length() -> None:
    set_option("EXTEND_MAX", "12H")
    set_option("EXTEND_QUORUM", "2/7")
    before = get_game("alpha").deadline
    assert before is not None
    assert "by 12H is recorded (the game's EXTEND_MAX: 12H)" in reply_text(
        vote("AUSTRIA", "VOTE EXTEND 5D")
    )
    vote("ENGLAND", "VOTE EXTEND")
    assert get_game("alpha").deadline == before + 12 * H


@pytest.mark.usefixtures("alpha")
def test_the_year_cap_refuses_with_its_reason_and_the_master_still_may() -> None:
    set_option("EXTENSIONS", "1")
    set_option("EXTEND_QUORUM", "1/7")
    assert "moved by 1D" in reply_text(vote("AUSTRIA", "VOTE EXTEND 24H"))
    refused = reply_text(vote("ENGLAND", "VOTE EXTEND 24H"))
    assert "extended 1 time(s) in 1901 already" in refused and "EXTENSIONS 1" in refused
    assert "SET DEADLINE" in refused
    set_option("EXTENSIONS", "0")
    assert "allows no extensions" in reply_text(vote("ENGLAND", "VOTE EXTEND 24H"))
    later = (get_game("alpha").deadline or NOW) + 48 * H
    ctx = send(f"SIGNON Malpha secret\nSET DEADLINE {later:%Y-%m-%d %H:%M} UTC")
    assert "player(s) told" in reply_text(ctx)


@pytest.mark.usefixtures("alpha")
def test_a_withdrawn_vote_no_longer_counts() -> None:
    set_option("EXTEND_QUORUM", "2/7")
    before = get_game("alpha").deadline
    vote("AUSTRIA", "VOTE EXTEND 24H")
    assert "withdrawn" in reply_text(vote("AUSTRIA", "VOTE NOEXTEND"))
    assert "nothing changed" in reply_text(vote("AUSTRIA", "VOTE NOEXTEND"))
    vote("ENGLAND", "VOTE EXTEND 24H")
    assert get_game("alpha").deadline == before


@pytest.mark.usefixtures("alpha")
def test_observers_the_master_and_bad_lengths_are_refused() -> None:
    send("OBSERVE watcher@alpha watchpw", "watcher@example.org")
    watched = reply_text(send("SIGNON watcher@alpha watchpw\nVOTE EXTEND", "watcher@example.org"))
    assert "only the game's players vote to extend" in watched, watched
    master = reply_text(send("SIGNON Malpha secret\nVOTE EXTEND 24H"))
    assert "the master uses SET DEADLINE" in master
    assert "is not a length" in reply_text(vote("AUSTRIA", "VOTE EXTEND soon"))


def test_in_double_a_power_two_players_share_counts_once(sqlite_db: object) -> None:
    import random

    from mailjudge.service.games import create_game
    from mailjudge.service.seats import join

    create_game("twin", "gm@example.org", "secret", variant="double")
    for i in range(7):
        join(get_game("twin"), f"p{i}@example.org", f"pw{i}", name=f"p{i}", rng=random.Random(5))
    game = get_game("twin")
    assert game.state == "active"
    held = extend.in_play(game)
    assert sorted(held) == POWERS and all(len(seats) == 2 for seats in held.values())
    seats = [s for s in Seat.select().where((Seat.game == game) & (Seat.role == "player"))]
    first = seats[0]
    extend.vote(game, first, 10 * H, NOW)  # one player: their two powers ask
    assert sorted(extend.asked_lengths(game)) == sorted(first.powers)
    partner = next(s for s in seats if s.id != first.id and first.powers[0] in s.powers)
    extend.vote(game, partner, 4 * H, NOW)  # a shared power: once, at the shorter length
    asked = extend.asked_lengths(game)
    assert len(asked) == 3 and asked[first.powers[0]] == 4 * H


@pytest.mark.usefixtures("alpha")
def test_a_bare_number_is_hours_as_the_command_was_asked_for() -> None:
    """Issue 53: VOTE EXTEND [hours]; 24 was refused as "longer than nothing"."""
    for words, hours in (("VOTE EXTEND 24", 24), ("VOTE EXTEND 36 hours", 36),
                         ("VOTE EXTEND 2 days", 48), ("VOTE EXTEND 12h", 12)):  # fmt: skip
        answer = reply_text(vote("FRANCE", words))
        assert "is recorded" in answer, answer
        assert extend.asked_lengths(get_game("alpha"))["FRANCE"] == hours * H
    assert "not a length" in reply_text(vote("FRANCE", "VOTE EXTEND soon"))

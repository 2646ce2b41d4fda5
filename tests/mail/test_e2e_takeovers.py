"""Issue 52, points 1 to 4, played by mail on SQLite and on PostgreSQL: a seat changes
hands only when its player left or really missed a deadline.

- An early PROCESS! under CIVIL_DISORDER, one within the grace, and a Diplonomic PROCESS
  (CIVIL_DISORDER always on) open no power of a silent player, and a stranger's TAKEOVER
  of one is refused with the reason; a deadline missed through its grace opens it.
- A Democratic game lists no opening: its openings say newcomers JOIN as citizens, and a
  TAKEOVER of a country is refused with that reason.
- Double: a replacement takes the vacant seat, by the power's name or the seat's; the
  partner who still plays keeps playing and is told nothing.
- A TAKEOVER from an address the judge never had an answer from waits for its CONFIRM
  (a forged From takes nothing); the master is told who took which power and may UNDO
  TAKEOVER within the phase, the taker told; the player replaced is told why.
"""

from __future__ import annotations

import re
from datetime import timedelta

from helpers.e2e import (
    MASTER,
    POWERS,
    Harness,
    join_by_mail,
    player,
    seated,
    secret,
    takeover_by_mail,
    text_of,
)
from starlette.testclient import TestClient

from mail.test_e2e_security_outsider import prove
from mailjudge.demo.sink import Received
from mailjudge.demo.table import Table
from mailjudge.game.openings import open_powers
from mailjudge.game.schedule import timing_of
from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Game, RecordEntry, utcnow
from mailjudge.variants.double import ring_seats
from mailjudge.web.app import make_app

STRANGER, NEWCOMER = "stranger@elsewhere.test", "newcomer@elsewhere.test"
FORGER = "forger@evil.test"
REFUSED_BUSY = "has a player, who has not left nor missed a deadline"
NO_OPENING = "no power needs a player now"


def flat(text: str) -> str:
    return " ".join(text.split())


def holds(game: str, power: str) -> list[str]:
    """Every unit of the power holds: orders of its player's own."""
    return [f"{unit} H" for unit in current_position(get_game(game)).units_of(power)]


def to(h: Harness, address: str, subject: str) -> list[Received]:
    return [m for m in h.sink.mails if m.rcpt_tos == [address] and subject in m.subject]


def master(h: Harness, game: str, text: str) -> str:
    return flat(h.command(MASTER, f"SIGNON M{game} masterpw\n{text}"))


def process_early(table: Table, game: str, silent: set[str]) -> str:
    """Every power but the silent ones holds; the master processes before the deadline."""
    phase = str(get_game(game).phase)
    for power in POWERS:
        if power not in silent and holds(game, power):
            table.send_orders(power, holds(game, power))
    if get_game(game).phase == phase:
        assert "processed" in master(table.harness, game, "PROCESS!")
    return phase


def test_only_a_deadline_missed_through_its_grace_opens_a_power(
    harness_any_db: Harness,
) -> None:
    h = harness_any_db
    table = seated(h, "early")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    assert "GRACE 12H" in master(h, "early", "SET TIMING MOVE 3D RETREAT 1D ADJUST 1D GRACE 12H")
    prove(h, STRANGER)

    # S1901M: Germany and Italy send nothing; the master's PROCESS! comes two days early.
    assert get_game("early").deadline > utcnow() + timedelta(days=2)
    process_early(table, "early", {"GERMANY", "ITALY"})
    h.wait_until(lambda: get_game("early").phase != "S1901M", what="S1901M processed")
    assert NO_OPENING in h.command(STRANGER, "OPENINGS")
    for power in ("germany", "italy"):
        refused = flat(h.command(STRANGER, f"TAKEOVER {power}@early pw-s"))
        assert f"{power.upper()} {REFUSED_BUSY}" in refused, refused
        refused = flat(h.command(NEWCOMER, f"TAKEOVER {power}@early pw-n"))  # no token either
        assert REFUSED_BUSY in refused and "CONFIRM" not in refused, refused
    assert "signed on as germany" in h.command(player("GERMANY"), table.signon("GERMANY"))

    # F1901M: the deadline passed an hour ago, within its 12 hours' grace; Germany is
    # silent and the master processes: a deadline missed, but not through its grace.
    past = utcnow() - timedelta(hours=1)
    Game.update(deadline=past).where(Game.name == "early").execute()
    process_early(table, "early", {"GERMANY"})
    h.wait_until(lambda: get_game("early").phase != "F1901M", what="F1901M processed")
    assert NO_OPENING in h.command(STRANGER, "OPENINGS")
    assert REFUSED_BUSY in flat(h.command(STRANGER, "TAKEOVER germany@early pw-s"))
    assert get_game("early").phase == "S1902M"  # every unit held: no adjustments

    # S1902M: Germany and Italy send nothing, and the clock processes after the grace.
    for power in POWERS:
        if power not in ("GERMANY", "ITALY"):
            table.send_orders(power, holds("early", power))
    game = get_game("early")
    gone = utcnow() - timing_of(game).grace - timedelta(minutes=5)
    Game.update(deadline=gone, next_reminder_at=gone).where(Game.name == "early").execute()
    h.judge.clock_tick()
    h.wait_until(lambda: get_game("early").phase == "F1902M", what="S1902M processed by the clock")
    assert open_powers(get_game("early")) == ["GERMANY", "ITALY"]
    listed = flat(h.command(STRANGER, "OPENINGS"))
    assert "2 power(s) need a player" in listed and "TAKEOVER germany@early password" in listed
    assert "sent no orders by the deadline" in listed

    # Germany's player is back with orders: the power is theirs again.
    table.send_orders("GERMANY", holds("early", "GERMANY"))
    refused = flat(h.command(STRANGER, "TAKEOVER germany@early pw-s"))
    assert "GERMANY's player is back: orders of theirs for F1902M are on file" in refused

    # A proven stranger takes Italy at once; the player replaced is told why, naming the
    # deadline missed.
    taken = flat(h.command(STRANGER, "TAKEOVER italy@early pw-s"))
    assert "you now play ITALY in early" in taken, taken
    h.wait_until(lambda: to(h, player("ITALY"), "you no longer play Italy"))
    [replaced] = to(h, player("ITALY"), "you no longer play Italy")
    assert "by the deadline of S1902M, nor within its grace" in flat(text_of(replaced.message))
    assert "wrong password" in h.command(player("ITALY"), table.signon("ITALY"))
    assert not to(h, player("GERMANY"), "you no longer play")


def test_a_new_address_confirms_its_takeover_and_the_master_may_undo_it(
    harness_any_db: Harness,
) -> None:
    h = harness_any_db
    table = seated(h, "vacancy")
    table.sign_on("POWER_CHOICE")
    # EJECT: the player removed is told why.
    assert "eject done" in master(h, "vacancy", "EJECT germany")
    h.wait_until(lambda: to(h, player("GERMANY"), "you no longer play Germany"))
    removed = flat(text_of(to(h, player("GERMANY"), "you no longer play Germany")[0].message))
    assert "The master of game vacancy removed you from Germany (EJECT)" in removed, removed

    # An address never heard from: the TAKEOVER waits for its CONFIRM, whose token goes to
    # the From only; a forged From takes nothing.
    forged = h.send(NEWCOMER, "TAKEOVER germany@vacancy pw-forged", Sender=FORGER)
    h.wait_until(lambda: h.replies_to(forged), what="the answer to the forged TAKEOVER")
    [answer] = h.replies_to(forged)
    assert answer.rcpt_tos == [NEWCOMER]
    waiting = flat(h.command(NEWCOMER, "TAKEOVER germany@vacancy pw-new"))
    assert "you take over GERMANY in vacancy once this address confirms" in waiting, waiting
    token = re.search(r"CONFIRM (\w+)", waiting)
    assert token is not None
    assert open_powers(get_game("vacancy")) == ["GERMANY"]  # nothing is taken yet
    assert "no such confirmation" in flat(h.command(FORGER, f"CONFIRM {token.group(1)}"))
    taken = flat(h.command(NEWCOMER, f"CONFIRM {token.group(1)}"))
    assert "you now play GERMANY in vacancy" in taken, taken
    assert open_powers(get_game("vacancy")) == []
    assert "signed on as germany" in h.command(NEWCOMER, "SIGNON germany@vacancy pw-new")
    assert "wrong password" in h.command(NEWCOMER, "SIGNON germany@vacancy pw-forged")

    # The master is told who took it, and how to undo it; the players are not told who.
    h.wait_until(lambda: to(h, MASTER, "Germany has a new player"), what="the master told")
    told = flat(text_of(to(h, MASTER, "Germany has a new player")[0].message))
    assert f"taken over by {NEWCOMER}" in told and "UNDO TAKEOVER germany" in told, told
    for power in ("FRANCE", "ITALY"):
        body = flat(text_of(to(h, player(power), "Germany has a new player")[0].message))
        assert NEWCOMER not in body and "UNDO" not in body

    # The master undoes it within the phase: the taker is told and out, Germany open again.
    assert "the takeover of GERMANY is undone" in master(h, "vacancy", "UNDO TAKEOVER germany")
    h.wait_until(lambda: to(h, NEWCOMER, "you no longer play Germany"), what="the taker told")
    assert "undid your takeover" in flat(text_of(to(h, NEWCOMER, "no longer play")[0].message))
    assert "wrong password" in h.command(NEWCOMER, "SIGNON germany@vacancy pw-new")
    assert "TAKEOVER germany@vacancy password" in h.command(STRANGER, "OPENINGS")
    takeovers = RecordEntry.select().where(RecordEntry.outcome == "takeover").count()
    assert takeovers == 0  # the undone takeover counts in nobody's record
    refused = master(h, "vacancy", "UNDO TAKEOVER germany")
    assert "no TAKEOVER of GERMANY in vacancy this phase" in refused, refused

    # Taken again, and the phase processed: the takeover stands for good.
    assert "you now play GERMANY" in takeover_by_mail(h, STRANGER, "TAKEOVER germany@vacancy s1")
    assert "S1901M processed" in master(h, "vacancy", "PROCESS!")
    refused = master(h, "vacancy", "UNDO TAKEOVER germany")
    assert "a takeover of an earlier phase stands" in refused, refused


def test_a_diplonomic_process_opens_no_silent_power(harness_any_db: Harness) -> None:
    """Diplonomic has CIVIL_DISORDER always on, so a plain PROCESS forces the phase: the
    powers whose contestants were silent two days before the deadline stay theirs."""
    h = harness_any_db
    game = "nomic52"
    assert "created" in h.command(
        MASTER, f"CREATE {game} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {game} {secret(power)} {power}")
    h.wait_until(lambda: get_game(game).state == "active")
    prove(h, STRANGER)
    signon = f"SIGNON france@{game} {secret('FRANCE')}\n"
    assert "ERROR" not in h.command(player("FRANCE"), signon + "\n".join(holds(game, "FRANCE")))
    assert "S1901M processed" in master(h, game, "PROCESS")
    assert NO_OPENING in h.command(STRANGER, "OPENINGS")
    assert open_powers(get_game(game)) == []
    refused = flat(h.command(STRANGER, f"TAKEOVER italy@{game} pw-s"))
    assert f"ITALY {REFUSED_BUSY}" in refused, refused


def test_a_democratic_game_recruits_citizens_and_opens_no_country(
    harness_any_db: Harness,
) -> None:
    h = harness_any_db
    assert "created" in h.command(MASTER, "CREATE demo52 masterpw VARIANT democratic")
    for n in range(3):
        address = f"citizen{n}@citizens.test"
        assert "you joined" in join_by_mail(h, address, f"JOIN demo52 pw-{n} AS citizen{n}")
    assert "has started" in master(h, "demo52", "START")
    assert "S1901M processed" in master(h, "demo52", "PROCESS!")
    prove(h, STRANGER)
    listed = flat(h.command(STRANGER, "OPENINGS"))
    assert NO_OPENING in listed and "power(s) need a player" not in listed, listed
    assert "TAKEOVER italy@demo52" not in listed and "dummy" not in listed
    assert "demo52 (democratic, F1901M): you join as a citizen" in listed, listed
    assert "JOIN demo52 password" in listed
    assert open_powers(get_game("demo52")) == []
    with TestClient(make_app()) as web:
        page = web.get("/openings").text
    assert "No power needs a player now." in page and "JOIN demo52 password" in page
    assert "TAKEOVER" not in page.split("</h1>", 1)[1].split("To hear of new openings")[1]
    for address in (STRANGER, NEWCOMER):
        refused = flat(h.command(address, "TAKEOVER italy@demo52 pw-s"))
        assert "ITALY in demo52 is played by its citizens" in refused, refused
        assert "JOIN demo52 password makes you a citizen" in refused


def test_a_double_replacement_takes_the_vacant_seat_not_the_partner(
    harness_any_db: Harness,
) -> None:
    h = harness_any_db
    assert "created" in h.command(MASTER, "CREATE pair52 masterpw VARIANT double")
    people = [f"captain{i}" for i in range(7)]
    for name in people:
        joined = h.command(f"{name}@players.test", f"JOIN pair52 pw-{name} AS {name}")
        assert "you joined" in joined
    h.wait_until(lambda: get_game("pair52").state == "active")
    game = get_game("pair52")
    seats = ring_seats(game)
    # The leaver is the second of ENGLAND's two seats in the judge's own order of seats,
    # so that taking "the seat of ENGLAND" the old way would take the partner's.
    first, second = sorted((s for s in seats if "ENGLAND" in s.powers), key=lambda s: s.id)
    partner, leaver = first, second
    who = {s.name: s.person.email.split("@")[0] for s in seats if s.person is not None}

    def say(seat: str, text: str) -> str:
        name = who[seat]
        return flat(h.command(f"{name}@players.test", f"SIGNON {seat}@pair52 pw-{name}\n{text}"))

    assert "is vacant" in say(leaver.name, "RESIGN")
    assert "ERROR" not in say(partner.name, "\n".join(holds("pair52", "ENGLAND")))
    prove(h, STRANGER)
    taken = flat(h.command(STRANGER, "TAKEOVER england@pair52 pw-s"))
    assert f"you now play {leaver.powers} in pair52" in taken, taken
    # The partner keeps playing, with their own password, and is told nothing false.
    assert f"signed on as {partner.name}" in say(partner.name, "STATUS")
    partner_address = f"{who[partner.name]}@players.test"
    assert not to(h, partner_address, "you no longer play")
    assert "signed on as" in h.command(STRANGER, f"SIGNON {leaver.name}@pair52 pw-s")

    # A vacant seat named by its own name (as LIST shows it) is taken too.
    other = next(s for s in seats if s.id not in (partner.id, leaver.id))
    assert "is vacant" in say(other.name, "RESIGN")
    assert f"{other.powers} vacant" in h.command(STRANGER, "LIST pair52")
    taken = flat(takeover_by_mail(h, NEWCOMER, f"TAKEOVER {other.name}@pair52 pw-n"))
    assert f"you now play {other.powers} in pair52" in taken, taken
    assert open_powers(get_game("pair52")) == []
    # The seat is taken: no second stranger takes it.
    refused = flat(h.command(STRANGER, f"TAKEOVER {other.name}@pair52 pw-x"))
    assert REFUSED_BUSY in refused, refused

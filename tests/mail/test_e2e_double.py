"""A Double Diplomacy game by email over real sockets, with the Lytton rules: seven players
in the ring through two game years. On the way: a unit whose partners disagree holds, a
support overrules a partner's hold, a silent partner is replaced by the other's orders,
and an OVERRIDE stands against the partner's order. The sync report goes to the two
partners of the power only."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, Harness, text_of

from mailjudge.game.state import current_position, get_game
from mailjudge.variants.double import ring_seats

PLAYERS = [f"captain{i}" for i in range(7)]
# What each seat orders, by phase, beyond holding everything; (seat, power) -> lines.
PLAN: dict[str, dict[tuple[str, str], list[str]]] = {
    "S1901M": {
        ("england-turkey", "ENGLAND"): ["F LON - NTH"],
        ("austria-england", "ENGLAND"): ["F LON - ENG"],  # out of sync: F LON holds
        ("russia-france", "FRANCE"): ["A PAR - BUR", "A MAR H"],
        ("france-austria", "FRANCE"): ["A PAR - BUR", "A MAR S A PAR - BUR"],  # S beats H
    },
    "F1901M": {
        ("russia-france", "FRANCE"): ["A BUR - BEL"],
        ("france-austria", "FRANCE"): ["A BUR - BEL"],
        ("england-turkey", "TURKEY"): ["F ANK - BLA"],
        # turkey-germany sends nothing for TURKEY: its partner's orders stand (Lytton).
        ("turkey-germany", "TURKEY"): [],
    },
    "W1901A": {
        ("russia-france", "FRANCE"): ["A PAR B"],
        ("france-austria", "FRANCE"): ["A PAR B"],
    },
    "S1902M": {
        ("england-turkey", "ENGLAND"): ["F LON - NTH"],
        ("austria-england", "ENGLAND"): ["F LON H"],
    },
}
OVERRIDES = {"S1902M": ("england-turkey", "ENGLAND F LON - NTH")}


def address(name: str) -> str:
    return f"{name}@players.test"


def orders_for(phase: str, seat: str, powers: list[str]) -> list[str]:
    """Hold (or disband nothing, build nothing) except where the plan says otherwise."""
    pos = current_position(get_game("twin"))
    lines: list[str] = []
    for power in powers:
        planned = PLAN.get(phase, {}).get((seat, power))
        if planned is not None:
            lines += planned
            continue
        if pos.phase.type == "movement":
            lines += [f"{u} H" for u in pos.units.values() if u.power == power]
    return lines


def test_a_double_game_by_mail(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(MASTER, "CREATE twin masterpw VARIANT double RULES DOUBLE_LYTTON")
    for name in PLAYERS:
        assert "you joined twin" in h.command(address(name), f"JOIN twin pw-{name} AS {name}")
    h.wait_until(lambda: get_game("twin").state == "active")
    h.wait_until(
        lambda: len([m for m in h.sink.mails if "has started" in m.message["Subject"]]) == 8
    )
    seat_of: dict[str, str] = {}  # player -> seat name, as the start mail told them
    powers_of: dict[str, list[str]] = {}
    for mail in h.sink.mails:
        told = re.search(r"You play (\w+) (\w+)\. Sign on with: SIGNON ([\w-]+)@twin",
                         text_of(mail.message))  # fmt: skip
        if told:
            player = mail.rcpt_tos[0].split("@")[0]
            seat_of[player] = told.group(3)
            powers_of[told.group(3)] = [told.group(1), told.group(2)]
    assert sorted(seat_of) == PLAYERS and len(set(seat_of.values())) == 7
    player_at = {seat: player for player, seat in seat_of.items()}

    def say(seat: str, text: str) -> str:
        player = player_at[seat]
        return h.command(address(player), f"SIGNON {seat}@twin pw-{player}\n{text}")

    played: list[str] = []
    while current_position(get_game("twin")).phase.year <= 1902:
        phase = get_game("twin").phase
        if phase in OVERRIDES:
            seat, line = OVERRIDES[phase]
            assert f"OVERRIDE for ENGLAND in {phase}" in say(seat, f"OVERRIDE {line}")
        if phase == "F1902M":  # a second OVERRIDE in 1901-02 is refused, with the reason
            refused = say("england-turkey", "OVERRIDE ENGLAND F NTH H")
            assert "used your OVERRIDE for 1901-1902 in S1902M" in refused, refused
        for seat in sorted(powers_of):
            lines = orders_for(phase, seat, powers_of[seat])
            if lines:
                reply = say(seat, "\n".join(lines))
                assert "not accepted" not in reply, reply
        if get_game("twin").phase == phase:
            assert "processed" in say_master(h, "PROCESS!")
        h.wait_until(lambda done=phase: len(h.results_for("twin", done)) == 8)
        played.append(phase)
    assert played[:4] == ["S1901M", "F1901M", "W1901A", "S1902M"]

    def results(phase: str) -> str:
        body = text_of(h.results_for("twin", phase)[0].message)
        assert isinstance(body, str)
        return body

    spring = results("S1901M")
    assert "F LON H" in spring and "F LON - NTH" not in spring  # out of sync: holds
    assert "A MAR S A PAR - BUR" in spring and "A PAR - BUR" in spring  # support beat hold
    fall = results("F1901M")
    assert "F ANK - BLA" in fall  # the silent partner's place taken by the other's orders
    assert "A PAR B" in results("W1901A")
    assert "F LON - NTH" in results("S1902M")  # the OVERRIDE beat the partner's hold

    # The sync report for England in S1901M went to England's two players and nobody else.
    reports = [m for m in h.sink.mails
               if m.message["Subject"] == "[twin] ENGLAND's orders out of sync in S1901M"]  # fmt: skip
    told = sorted(r for m in reports for r in m.rcpt_tos)
    assert told == sorted(address(player_at[s]) for s in ("england-turkey", "austria-england"))
    text = reports[0].message.get_content()
    assert "F LON - NTH" in text and "F LON - ENG" in text and "F LON H" in text


def say_master(h: Harness, text: str) -> str:
    return h.command(MASTER, f"SIGNON Mtwin masterpw\n{text}")


def test_double_players_sign_on_by_joined_name_or_by_either_power(harness: Harness) -> None:
    """Seed 004 gives each player two powers; a player signs on as the name they joined
    with, or as SIGNON power@game for either power (the password tells the power's two
    holders apart), as well as by the seat's name."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE pair masterpw VARIANT double")
    for name in PLAYERS:
        assert "you joined pair" in h.command(address(name), f"JOIN pair pw-{name} AS {name}")
    h.wait_until(lambda: get_game("pair").state == "active")
    seats = {s.person.email.split("@")[0]: s for s in ring_seats(get_game("pair"))
             if s.person is not None}  # fmt: skip
    for name in PLAYERS:
        seat = seats[name]
        by_name = h.command(address(name), f"SIGNON {name}@pair pw-{name}\nSTATUS")
        assert f"signed on as {seat.name} in pair" in by_name, by_name
        for power in seat.powers:
            by_power = h.command(address(name), f"SIGNON {power.lower()}@pair pw-{name}")
            assert f"signed on as {seat.name} in pair" in by_power, by_power
    # The start mail says so.
    started = [m for m in h.sink.mails if m.message["Subject"] == "[pair] the game has started"
               and m.rcpt_tos == [address(PLAYERS[0])]]  # fmt: skip
    assert f"SIGNON {PLAYERS[0]}@pair works too" in " ".join(text_of(started[0].message).split())
    # A wrong password for a power is refused, naming no seat's secret.
    wrong = h.command(address(PLAYERS[0]), "SIGNON england@pair not-a-password")
    assert "wrong password" in wrong and "signed on" not in wrong

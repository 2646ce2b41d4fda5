"""The rules flags of seed 001 as a player meets them by mail: NO_DIAS endings,
CIVIL_DISORDER (late changes, the master's PROCESS, removals by rule) and NO_CHECK."""

from __future__ import annotations

from datetime import timedelta
from hashlib import sha256

from helpers.boards import position
from helpers.e2e import MASTER, POWERS, Harness, seated, text_of

from mailjudge.demo.table import Table
from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Game, utcnow


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def _vote_all(table: Table, ballots: dict[str, str]) -> str:
    reply = ""
    for power, ballot in ballots.items():
        reply = table.say(table.players[power], f"{table.signon(power)}\nVOTE {ballot}")
    return flat(reply)


def test_no_dias_all_loss_is_a_draw_of_all_survivors(harness: Harness) -> None:
    """Seed 001, NO_DIAS: "Note that if all players are ever found to be voting for a result
    that does NOT include their own power, a draw shared among all surviving powers will be
    declared." """
    table = seated(harness, "nd")
    table.sign_on("POWER_CHOICE NO_DIAS")
    last = _vote_all(table, {power: "LOSS" for power in POWERS})
    assert "all votes agree: draw austria england france germany italy russia turkey" in last
    assert get_game("nd").outcome == "DRAW " + " ".join(POWERS)


def test_no_dias_mixes_of_n_solo_and_loss(harness: Harness) -> None:
    """Seed 001, NO_DIAS: "each player may vote either for the maximum size of a draw that he
    will accept which must include his power, or for a solo victory by his power, or for ANY
    result that does NOT include his power." The one result all ballots allow is shared by
    the powers not voting LOSS."""
    table = seated(harness, "mix")
    table.sign_on("POWER_CHOICE NO_DIAS")
    # Two SOLO ballots: no result is a solo of both, so the game goes on.
    ballots = {power: "LOSS" for power in POWERS} | {"FRANCE": "SOLO", "ITALY": "SOLO"}
    assert "votes are secret" in _vote_all(table, ballots)
    # Three want a draw, but Germany accepts no draw of more than two.
    ballots = {"GERMANY": "2", "FRANCE": "3", "ITALY": "3"}
    assert "votes are secret" in _vote_all(table, ballots)
    assert get_game("mix").state == "active"
    # Germany gives in to a three-way draw; everyone else voted LOSS, so they are left out.
    assert "all votes agree: draw france germany italy" in _vote_all(table, {"GERMANY": "3"})

    lone = seated(harness, "lone")
    lone.sign_on("POWER_CHOICE NO_DIAS")
    # Russia is the only power not voting LOSS: the result without everyone else is its win,
    # though Russia asked only for a draw of up to four that includes it.
    ballots = {power: "LOSS" for power in POWERS} | {"RUSSIA": "4"}
    assert "all votes agree: win russia" in _vote_all(lone, ballots)
    assert get_game("lone").outcome == "WIN RUSSIA"


def _late_game(harness: Harness, name: str) -> Table:
    """A CIVIL_DISORDER game with a two-day grace, whose deadline has just passed."""
    table = seated(harness, name)
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    master = f"SIGNON M{name} {table.master.password}\n"
    table.say(table.master, master + "SET TIMING MOVE 3D RETREAT 1D ADJUST 1D GRACE 2D", "timing")
    table.send_orders("FRANCE", ["A PAR - BUR"])
    # The clock moves past the deadline (a master cannot set one in the past by mail).
    Game.update(deadline=utcnow() - timedelta(minutes=5)).where(Game.name == name).execute()
    return table


def test_civil_disorder_freezes_orders_on_file_after_the_deadline(harness: Harness) -> None:
    """Seed 001, CIVIL_DISORDER: "Note also that unless the LATE_CHANGES rule is specified,
    the CIVIL_DISORDER rule also enforces the NO_LATE_CHANGES rule (described below). This
    is to prevent players from changing their orders after the deadline to take advantage
    of powers that seem likely to go into civil disorder when a grace period expires." """
    table = _late_game(harness, "frozen")
    france = table.players["FRANCE"]
    refused = flat(harness.command(france.address, f"{table.signon('FRANCE')}\nA PAR - PIC"))
    assert "ERROR" in refused and "may not be changed late" in refused, refused
    assert "A PAR - BUR stands as sent" in refused
    # A unit with no order yet may still get one, and a power with none may send them all.
    added = flat(table.send_orders("FRANCE", ["A MAR - SPA"]))
    assert "A MAR - SPA" in added
    table.send_orders("ITALY", ["A ROM - APU", "A VEN H", "F NAP - ION"])
    status = flat(table.say(france, f"{table.signon('FRANCE')}\nSTATUS"))
    assert "A PAR - BUR" in status and "A PAR - PIC" not in status
    # Clearing is a change too.
    cleared = flat(harness.command(france.address, f"{table.signon('FRANCE')}\nCLEAR"))
    assert "may not be changed late" in cleared, cleared


def test_late_changes_rule_lets_orders_change_after_the_deadline(harness: Harness) -> None:
    """Seed 001: "unless the LATE_CHANGES rule is specified" the orders freeze; with it they
    do not."""
    table = _late_game(harness, "loose")
    table.say(table.master, "SIGNON Mloose masterpw\nSET RULE +LATE_CHANGES", "LATE_CHANGES")
    assert "A PAR - PIC" in flat(table.send_orders("FRANCE", ["A PAR - PIC"]))


def test_plain_process_enters_civil_disorder_defaults(harness: Harness) -> None:
    """Seed 001, CIVIL_DISORDER: "Any power that has not submitted orders: - when the game's
    Master submits a PROCESS command, [...] will have its orders entered automatically." """
    table = seated(harness, "cd")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    table.send_orders("FRANCE", ["A PAR - BUR", "A MAR H", "F BRE - MAO"])
    done = flat(table.say(table.master, "SIGNON Mcd masterpw\nPROCESS", "processed"))
    assert "S1901M processed; now F1901M" in done
    harness.wait_until(lambda: len(table.results("S1901M")) == 8)
    results = flat(text_of(table.results("S1901M")[0].message))
    assert "A PAR - BUR" in results and "F LON H" in results  # England held by default
    # Without CIVIL_DISORDER a plain PROCESS still waits for every order.
    strict = seated(harness, "strict")
    strict.sign_on()
    refused = flat(harness.command(MASTER, "SIGNON Mstrict masterpw\nPROCESS"))
    assert "orders are missing from" in refused and "PROCESS!" in refused


def test_civil_disorder_removals_keep_units_on_centres(harness: Harness) -> None:
    """Seed 001, CIVIL_DISORDER: "during adjustment phases, all builds will be WAIVED, and
    all removals will be made by random choice from among the power's on-board units, with
    preference given to retaining units that are situated on supply centers." """
    table = seated(harness, "cdr")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    # France has four centres and five units: one must go, and France orders nothing.
    # The DATC rule would remove A TUN, farthest from home; the seed keeps it, on a centre,
    # and draws between the two off-centre armies.
    game = get_game("cdr")
    game.position = position(
        "W1901A",
        ["FRANCE A par", "FRANCE A mar", "FRANCE A tun", "FRANCE A bur", "FRANCE A pic",
         "ENGLAND F lon"],
        {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE", "tun": "FRANCE", "lon": "ENGLAND"},
    )  # fmt: skip
    game.phase = "W1901A"
    game.save()
    table.say(table.master, "SIGNON Mcdr masterpw\nPROCESS", "W1901A processed")
    harness.wait_until(lambda: len(table.results("W1901A")) == 8)
    results = text_of(table.results("W1901A")[0].message)
    # Anyone can repeat the draw: sha256 of "game:phase:POWER:location", lowest goes first.
    draw = {loc: sha256(f"cdr:W1901A:FRANCE:{loc}".encode()).hexdigest() for loc in ("bur", "pic")}
    gone, kept = sorted(draw, key=draw.__getitem__)
    assert f"A {gone.upper()} D (*civil disorder*) [default]" in results
    line = next(x for x in results.splitlines() if "civil disorder" in x)
    assert gone.upper() in line and "TUN" not in line, results
    assert "civil-disorder rule" in flat(results)
    units = {u.loc for u in current_position(get_game("cdr")).units.values()}
    assert {"par", "mar", "tun", kept} <= units and gone not in units


def test_no_check_multiple_orders_hold_and_support_coasts_are_refused(harness: Harness) -> None:
    """Seed 001, NO_CHECK: "All units that had been given erroneous or multiple orders will
    HOLD (and may receive support)", and at entry "A support for a fleet move may not
    specify the destination coast of the fleet. This error must also be corrected." """
    table = seated(harness, "nc")
    table.sign_on("POWER_CHOICE NO_CHECK")
    france = table.players["FRANCE"]
    coast = flat(
        harness.command(france.address, f"{table.signon('FRANCE')}\nA MAR S F BRE - SPA/NC")
    )
    assert "not accepted: A MAR S F BRE - SPA/NC" in coast, coast
    assert "write A MAR S F BRE - SPA" in coast
    table.send_orders("FRANCE", ["A PAR - BUR", "A PAR - PIC", "A MAR S A PAR - BUR", "F BRE H"])
    table.say(table.master, "SIGNON Mnc masterpw\nPROCESS!", "processed")
    harness.wait_until(lambda: len(table.results("S1901M")) == 8)
    results = text_of(table.results("S1901M")[0].message)
    assert "A PAR - BUR (*multiple*)" in results and "A PAR - PIC (*multiple*)" in results
    units = {u.loc for u in current_position(get_game("nc")).units.values()}
    assert "par" in units and "bur" not in units and "pic" not in units

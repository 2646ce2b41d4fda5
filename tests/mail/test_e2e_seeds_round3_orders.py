"""Issue 39, points 1, 2, 3 and 8, played by mail through the SMTP listener: Double's
orders after a ROLLBACK (seed 004), "by whom" in Diplonomic's STATUS (seed 003, rule 7),
NO_CHECK's checks of readability at entry (seed 001) and DONT_SKIP_PHASES' empty phases
(seed 001)."""

from __future__ import annotations

import re
from datetime import timedelta

from helpers.e2e import MASTER, POWERS, Harness, player, seated, secret, text_of

from mailjudge.game.state import get_game
from mailjudge.store.models import Game, utcnow


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


# --- point 1: Double after ROLLBACK (seed 004) ----------------------------------------------

DOUBLE_PLAYERS = [f"twin{i}" for i in range(7)]


def _double_game(h: Harness, name: str) -> dict[str, str]:
    """A Double game (ALWAYS_WAIT: the master processes); its seat -> player."""
    assert "created" in h.command(
        MASTER, f"CREATE {name} masterpw VARIANT double RULES ALWAYS_WAIT"
    )
    for who in DOUBLE_PLAYERS:
        assert "you joined" in h.command(f"{who}@players.test", f"JOIN {name} pw-{who} AS {who}")
    h.wait_until(lambda: get_game(name).state == "active")
    started = f"[{name}] the game has started"

    def starts() -> int:
        return len([m for m in h.sink.mails if m.message["Subject"] == started])

    h.wait_until(lambda: starts() == 8)
    at: dict[str, str] = {}
    for mail in h.sink.mails:
        if mail.message["Subject"] != started:
            continue
        told = re.search(rf"Sign on with: SIGNON ([\w-]+)@{name}", text_of(mail.message))
        if told:
            at[told.group(1)] = mail.rcpt_tos[0].split("@")[0]
    assert len(at) == 7
    return at


def test_double_orders_after_a_rollback_are_synchronised(harness: Harness) -> None:
    """Seed 004, Double Diplomacy: "The GM will only execute those orders which
    'synchronize'. That is, units not in sync by the two rulers will hold (example 1)."
    After the master's ROLLBACK the restored orders are each partner's starting set: one
    partner's new `F EDI - NTH` is set against the other's restored `F EDI - NWG` (so F EDI
    holds, and both are told), and when both send `F EDI - NTH` it stands, once, with
    nothing marked (*replaced*)."""
    h = harness
    at = _double_game(h, "rb")

    def say(seat: str, text: str) -> str:
        return flat(
            h.command(f"{at[seat]}@players.test", f"SIGNON {seat}@rb pw-{at[seat]}\n{text}")
        )

    def master(text: str) -> str:
        return flat(h.command(MASTER, f"SIGNON Mrb masterpw\n{text}"))

    def results(phase: str, count: int) -> str:
        """The master's copy of the newest results: a player's copy lists the legal orders
        in its ready block (``S F EDI - NTH``), and the sink's order of copies varies."""
        h.wait_until(lambda: len(h.results_for("rb", phase)) >= count)
        mine = [m for m in h.results_for("rb", phase) if m.rcpt_tos == [MASTER]]
        return flat(text_of(mine[-1].message))

    for seat in ("england-turkey", "austria-england"):
        assert "F EDI - NWG" in say(seat, "F EDI - NWG")
    assert "processed" in master("PROCESS!")
    assert "F EDI - NWG" in results("S1901M", 8)
    assert "rolled back to S1901M" in master("ROLLBACK")
    assert get_game("rb").phase == "S1901M"

    # One partner re-orders; the other's restored order is theirs still: out of sync.
    assert "F EDI - NTH" in say("england-turkey", "F EDI - NTH")
    status = say("austria-england", "STATUS")
    assert "F EDI - NWG" in status, status
    assert "processed" in master("PROCESS!")
    again = results("S1901M", 16)
    assert "F EDI H" in again and "F EDI - NTH" not in again and "replaced" not in again, again

    def sync_reports() -> list[str]:
        return [flat(text_of(m.message)) for m in h.sink.mails
                if "ENGLAND's orders out of sync in S1901M" in str(m.message["Subject"])]  # fmt: skip

    h.wait_until(lambda: len(sync_reports()) == 2, what="the partners' sync report")
    told = sync_reports()[-1]
    assert "F EDI - NTH" in told and "F EDI - NWG" in told

    # Back again: both partners send the same new order, and it stands once.
    assert "rolled back to S1901M" in master("ROLLBACK")
    for seat in ("england-turkey", "austria-england"):
        assert "F EDI - NTH" in say(seat, "F EDI - NTH")
    assert "processed" in master("PROCESS!")
    third = results("S1901M", 24)
    assert "F EDI - NTH" in third and "replaced" not in third, third
    assert third.count("F EDI - NTH") == 1, third


# --- point 2: "by whom" in STATUS (seed 003, rule 7) ----------------------------------------

NOMIC_RULES = """\
1. Contestants play the standard map.

7. Contestants may seek the assistance of non-contestants.
"""
TINA = "tina@teammates.test"


def test_status_keeps_each_orders_sender(harness: Harness) -> None:
    """Seed 003, rule 7 as its enacted amendment reads: "A Contestant CAN by announcement
    grant (or revoke) authorization to a teammate to submit or change orders for eir
    country. On a contestant's request, the Gamemaster SHALL inform em which orders have
    been submitted for eir country, and by whom." A line France sends does not make
    teammate tina's order France's: an order on file that a mail does not name keeps its
    sender; the lines a mail gives (or a whole ORDERS ... END set) are the sender's."""
    h = harness
    game = "bywhom"

    def signon(power: str) -> str:
        return f"SIGNON {power.lower()}@{game} {secret(power)}\n"

    assert "created" in h.command(
        MASTER, f"CREATE {game} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    assert "rules version 1 stored" in h.command(
        MASTER, f"SIGNON M{game} masterpw\nRULEBOOK\n{NOMIC_RULES}END"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {game} {secret(power)} {power}")
    h.wait_until(lambda: get_game(game).state == "active")
    france = player("FRANCE")
    assert "asked to be your teammate" in h.command(
        france, signon("FRANCE") + f"TEAMMATE ADD {TINA} AS tina"
    )
    h.wait_until(lambda: any(TINA in m.rcpt_tos for m in h.sink.mails))
    assert "you are a teammate of FRANCE" in h.command(TINA, f"ACCEPT {game} tinasecret")
    assert "tina may now submit" in h.command(france, signon("FRANCE") + "AUTHORIZE tina")
    sent = h.command(TINA, f"SIGNON tina@{game} tinasecret\nA MAR - SPA")
    assert "A MAR - SPA" in sent and "ERROR" not in sent, sent
    assert "F BRE H" in h.command(france, signon("FRANCE") + "F BRE H")
    status = h.command(france, signon("FRANCE") + "STATUS")
    by = dict(re.findall(r"^\s+(\S.*?\S)\s+\(by (\w+),", status, re.MULTILINE))
    assert by == {"A MAR - SPA": "tina", "F BRE H": "france"}, status
    # Changing tina's order makes that order France's, and only that one.
    assert "A MAR - PIE" in h.command(france, signon("FRANCE") + "A MAR - PIE")
    status = h.command(france, signon("FRANCE") + "STATUS")
    by = dict(re.findall(r"^\s+(\S.*?\S)\s+\(by (\w+),", status, re.MULTILINE))
    assert by == {"A MAR - PIE": "france", "F BRE H": "france"}, status
    assert "A PAR H" in h.command(TINA, f"SIGNON tina@{game} tinasecret\nA PAR H")
    status = h.command(france, signon("FRANCE") + "STATUS")
    by = dict(re.findall(r"^\s+(\S.*?\S)\s+\(by (\w+),", status, re.MULTILINE))
    assert by == {"A MAR - PIE": "france", "F BRE H": "france", "A PAR H": "tina"}, status
    # A whole set sent with ORDERS ... END is all the sender's: tina submitted every line.
    whole = f"SIGNON tina@{game} tinasecret\nORDERS\nA PAR H\nA MAR - PIE\nF BRE H\nEND"
    assert "ERROR" not in h.command(TINA, whole)
    status = h.command(france, signon("FRANCE") + "STATUS")
    by = dict(re.findall(r"^\s+(\S.*?\S)\s+\(by (\w+),", status, re.MULTILINE))
    assert by == {"A MAR - PIE": "tina", "F BRE H": "tina", "A PAR H": "tina"}, status


# --- point 3: NO_CHECK still refuses what cannot be read for sure (seed 001) ----------------


def test_no_check_refuses_ambiguous_orders_at_entry(harness: Harness) -> None:
    """Seed 001, NO_CHECK: "The ONLY checks that are made at the time an order is entered
    are: - Every component of the order must be understood. [...] - Any placename
    abbreviation that is potentially ambiguous is declared erroneous and must be changed.
    For example, the order "TYR H" is rejected because it may be an order for an army in
    Tyrolia to hold, or for a fleet in the Tyrrhenian Sea to hold." NO_CHECK lifts the
    check of legality, not of readability: `F MAO - SPA` (which coast?) and `TYR H` are
    refused at entry with the reason, while an illegal but readable order is taken and
    fails at processing."""
    table = seated(harness, "nct")
    table.sign_on("POWER_CHOICE NO_CHECK")
    france, austria = table.players["FRANCE"], table.players["AUSTRIA"]
    coast = flat(harness.command(france.address, f"{table.signon('FRANCE')}\nF MAO - SPA"))
    assert "not accepted: F MAO - SPA" in coast, coast
    assert "write SPA/NC or SPA/SC" in coast, coast
    tyr = flat(harness.command(austria.address, f"{table.signon('AUSTRIA')}\nTYR H"))
    assert "not accepted: TYR H" in tyr, tyr
    assert "Tyrolia" in tyr and "Tyrrhenian Sea" in tyr, tyr
    # The full name is not ambiguous; an illegal order (no unit there) is still taken.
    taken = flat(table.send_orders("AUSTRIA", ["Tyrolia H", "A VIE - BUD"]))
    assert "TYR H" in taken and "not accepted" not in taken, taken
    status = flat(table.say(france, f"{table.signon('FRANCE')}\nSTATUS"))
    assert "SPA" not in status, status
    # Without NO_CHECK the position settles it: the unit in MAO does not exist, say so.
    plain = seated(harness, "ncp")
    plain.sign_on()
    refused = flat(
        harness.command(
            plain.players["FRANCE"].address, f"{plain.signon('FRANCE')}\nF BRE - MAO\nF MAO - SPA"
        )
    )
    assert "not accepted: F MAO - SPA" in refused, refused


# --- point 8: DONT_SKIP_PHASES (seed 001) ---------------------------------------------------


def test_dont_skip_phases_waits_for_blank_orders_or_the_deadline(harness: Harness) -> None:
    """Seed 001, DONT_SKIP_PHASES: "If this rule is used, all phases (including phases
    where all players need to issue blank orders) will be played, and empty phases won't
    be skipped." An empty phase is not processed in the same step as the one before: it
    waits for every power's blank orders (an order mail with none), or for its deadline."""
    table = seated(harness, "noskip")
    table.sign_on("POWER_CHOICE DONT_SKIP_PHASES")

    def hold_all() -> None:
        table.play_phase(
            {p: [f"{u} H" for u in table.position().units.values() if u.power == p] for p in POWERS}
        )

    hold_all()
    # The empty retreat phase is there, and stays until every power has sent blank orders.
    status = flat(table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSTATUS"))
    assert "noskip S1901R" in status, status
    for power in POWERS[:-1]:
        table.say(table.players[power], f"{table.signon(power)}\nORDERS\nEND")
    assert get_game("noskip").phase == "S1901R"
    table.say(table.players[POWERS[-1]], f"{table.signon(POWERS[-1])}\nORDERS\nEND")
    harness.wait_until(lambda: get_game("noskip").phase == "F1901M", what="the blank orders")
    harness.wait_until(lambda: bool(table.results("S1901R")), what="the empty phase's results")
    # The next empty phase, with no blank orders, is played at its deadline.
    hold_all()
    assert get_game("noskip").phase == "F1901R"
    status = flat(table.say(table.players["ITALY"], f"{table.signon('ITALY')}\nSTATUS"))
    assert "noskip F1901R" in status, status
    Game.update(deadline=utcnow() - timedelta(minutes=1)).where(Game.name == "noskip").execute()
    harness.wait_until(lambda: get_game("noskip").phase == "W1901A", what="the deadline")
    harness.wait_until(lambda: bool(table.results("F1901R")), what="the empty phase's results")

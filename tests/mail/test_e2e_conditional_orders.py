"""njudge's conditional orders (issue 31), played by mail through the SMTP listener: an
IF ... ELSE ... ENDIF block after a PHASE line is kept for that phase with its condition,
shown by STATUS as conditions, and resolved against the board when the phase begins: only
the branch whose condition holds is filed. A condition that cannot be read is refused and
nothing of its block is filed."""

from __future__ import annotations

from helpers.e2e import Harness, player, seated

from mailjudge.demo.table import Table
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import OrderLine

PLAN = """PHASE Fall 1901 Movement
IF A PAR AND NOT F BRE
A PAR - BUR
ELSE
A PAR - PIC
ENDIF
IF F MAO
  IF A MAR
    F MAO - POR
  ELSE
    F MAO - SPA/NC
  ENDIF
ELSE
  A MAR - PIE
ENDIF
"""


def france(table: Table, text: str) -> str:
    """The answer, its lines joined (long answers are wrapped)."""
    reply = table.harness.command(player("FRANCE"), f"{table.signon('FRANCE')}\n{text}")
    return " ".join(reply.split())


def ahead(game: str) -> list[str]:
    g = get_game(game)
    rows = OrderLine.select().where(
        (OrderLine.game == g) & (OrderLine.power == "FRANCE") & (OrderLine.phase != g.phase)
    )
    return sorted(row.text for row in rows)


def holds(table: Table) -> dict[str, list[str]]:
    pos = table.position()
    powers = sorted({u.power for u in pos.units.values()})
    return {p: [f"{u.type} {u.loc.upper()} H" for u in pos.units_of(p)] for p in powers}


def test_conditional_orders_are_kept_shown_and_resolved_when_the_phase_begins(
    harness: Harness,
) -> None:
    table = seated(harness, "conds")
    table.sign_on()
    # A plain order sent ahead first: the conditional order sent after it replaces it.
    assert "sent ahead" in france(table, "PHASE Fall 1901 Movement\nA PAR H")
    reply = france(table, PLAN)
    assert "ERROR" not in reply, reply
    assert "for F1901M if A PAR AND NOT F BRE then" in reply
    assert ahead("conds") == sorted(
        [
            "A PAR H",
            "IF A PAR AND NOT F BRE: A PAR - BUR",
            "IF NOT (A PAR AND NOT F BRE): A PAR - PIC",
            "IF F MAO AND A MAR: F MAO - POR",
            "IF F MAO AND NOT A MAR: F MAO - SPA/NC",
            "IF NOT F MAO: A MAR - PIE",
        ]
    )
    # STATUS shows them as conditions, under the phase they are for.
    status = france(table, "STATUS")
    assert "sent ahead for F1901M:" in status
    assert "IF A PAR AND NOT F BRE: A PAR - BUR" in status
    assert "IF NOT F MAO: A MAR - PIE" in status

    # Spring 1901: the fleet leaves Brest for the Mid-Atlantic, the rest hold.
    orders = holds(table)
    orders["FRANCE"] = ["F BRE - MAO", "A PAR H", "A MAR H"]
    table.play_phase(orders)
    assert str(table.state().phase) == "F1901M"
    filed = sorted(o.text for o in orders_on_file(get_game("conds"))["FRANCE"])
    # A PAR is there and F BRE is not; F MAO and A MAR are there: one branch each.
    assert filed == ["A PAR - BUR", "F MAO - POR"]
    assert ahead("conds") == []
    status = france(table, "STATUS")
    assert "A PAR - BUR" in status and "IF " not in status


def test_a_condition_that_cannot_be_read_is_refused_and_nothing_filed(harness: Harness) -> None:
    table = seated(harness, "badifs")
    table.sign_on()
    reply = france(
        table,
        "PHASE Fall 1901 Movement\nIF A PAR AND NOT A XYZ\nA PAR - BUR\nELSE\nA PAR - PIC\n"
        "ENDIF\nA MAR - PIE",
    )
    assert "'XYZ' is not a province" in reply
    assert "none of the orders up to ENDIF were filed" in reply
    assert reply.count("not filed: inside an IF refused above") == 2  # both branches
    # The line after ENDIF is read as usual, for the phase PHASE named.
    assert ahead("badifs") == ["A MAR - PIE"]
    # A condition that stops short, and an IF for this phase (no PHASE line), are refused
    # too. (A parenthesis left open is closed by the end of the line, as njudge's syntax
    # file says: tests/mail/test_veteran_corpora.py.)
    reply = france(table, "PHASE Fall 1901 Movement\nIF (A PAR OR\nA PAR - BUR\nENDIF")
    assert "the condition ends too soon" in reply and ahead("badifs") == ["A MAR - PIE"]
    reply = france(table, "IF A PAR\nA PAR - BUR\nENDIF")
    assert "are for a later phase: write PHASE" in reply
    assert "FRANCE" not in orders_on_file(get_game("badifs"))
    # ELSE and ENDIF with no IF above say so.
    reply = france(table, "ENDIF")
    assert "an ENDIF with no IF above it" in reply

"""Issue 31, played by mail through the SMTP listener: what njudge and DPjudge players and
masters write is done as it is there, or refused with an ERROR naming our form; it is
never filed as something else, and "left alone" is only for prose. Last, a fuzz over the
command index of both judges, in a forming, an active, a paused and a finished game."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.e2e import MASTER, Harness, player, seated, secret, text_of

from mailjudge.demo.table import Table
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import GameState, OrderLine, Seat

INDEX = Path(__file__).parents[1] / "data" / "veteran_commands.txt"


def on_file(game: str) -> dict[str, list[str]]:
    return {p: [o.text for o in lines] for p, lines in orders_on_file(get_game(game)).items()}


def ahead(game: str, power: str) -> dict[str, list[str]]:
    """Orders sent ahead by ``power``, by phase."""
    g = get_game(game)
    rows = OrderLine.select().where(
        (OrderLine.game == g) & (OrderLine.power == power) & (OrderLine.phase != g.phase)
    )
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row.phase, []).append(row.text)
    return found


def mailed(h: Harness, start: int, subject: str) -> dict[str, str]:
    """Address -> text of the mails since ``start`` whose subject holds ``subject``."""
    return {
        m.rcpt_tos[0]: text_of(m.message)
        for m in h.sink.mails[start:]
        if subject in str(m.message["Subject"])
    }


def france(table: Table, text: str) -> str:
    return table.harness.command(player("FRANCE"), f"{table.signon('FRANCE')}\n{text}")


def master(h: Harness, game: str, text: str, password: str = "masterpw") -> str:
    return h.command(MASTER, f"SIGNON M{game} {password}\n{text}")


def test_sign_off_with_a_space_ends_the_mail(harness: Harness) -> None:
    table = seated(harness, "signs")
    table.sign_on()
    reply = france(table, "A PAR - BUR\nSIGN OFF\nA MAR - SPA")
    assert "signed off" in reply
    assert on_file("signs").get("FRANCE") == ["A PAR - BUR"]
    # SIGN ON with a space signs on; the orders before it stay the first seat's.
    reply = harness.command(
        player("FRANCE"),
        f"{table.signon('FRANCE')}\nA MAR H\nSIGN ON germany@signs {secret('GERMANY')}\nA BER H",
    )
    assert "signed on as germany" in reply
    assert set(on_file("signs")["FRANCE"]) == {"A PAR - BUR", "A MAR H"}
    assert on_file("signs")["GERMANY"] == ["A BER H"]


def test_njudge_conditional_orders_are_kept_for_the_phase_named(harness: Harness) -> None:
    """The IF block after PHASE is kept with its conditions (tests/test_e2e_conditional_
    orders.py plays it through); an IF with no PHASE line is refused, none of it filed."""
    table = seated(harness, "ifs")
    table.sign_on()
    france(table, "A PAR H\nA MAR H\nF BRE H")
    reply = france(
        table,
        "PHASE Fall 1901 Movement\nIF A PAR AND NOT F BRE\nA PAR - BUR\nELSE\nA PAR - PIC\n"
        "ENDIF\nA MAR - PIE",
    )
    assert "ERROR" not in reply
    assert set(on_file("ifs")["FRANCE"]) == {"A PAR H", "A MAR H", "F BRE H"}
    assert sorted(ahead("ifs", "FRANCE")["F1901M"]) == [
        "A MAR - PIE",
        "IF A PAR AND NOT F BRE: A PAR - BUR",
        "IF NOT (A PAR AND NOT F BRE): A PAR - PIC",
    ]
    # An IF for this phase, even never closed, holds back every order line after it.
    reply = france(table, "IF A PAR\nA PAR - BUR")
    assert "conditional orders" in reply and "not filed" in reply
    assert set(on_file("ifs")["FRANCE"]) == {"A PAR H", "A MAR H", "F BRE H"}


def test_phase_short_form_and_a_refused_phase_keeps_its_orders_out(harness: Harness) -> None:
    table = seated(harness, "phases")
    table.sign_on()
    france(table, "A PAR H")
    reply = france(table, "Phase S 1902 M\nA PAR - BUR")
    assert "SPRING 1902 MOVEMENT" in reply
    assert ahead("phases", "FRANCE") == {"S1902M": ["A PAR - BUR"]}
    reply = france(table, "PHASE Summer 1902 Movement\nA PAR - GAS\nA MAR - SPA")
    assert "ERROR" in reply and "the PHASE line above was refused" in reply
    assert on_file("phases")["FRANCE"] == ["A PAR H"]  # not applied to the current phase
    assert ahead("phases", "FRANCE") == {"S1902M": ["A PAR - BUR"]}
    # A later PHASE line that is read puts the lines after it back to work.
    reply = france(table, "PHASE Spr 1902 Mov\nA PAR - GAS\nPHASE Summer 1903\nA MAR - SPA")
    assert ahead("phases", "FRANCE") == {"S1902M": ["A PAR - GAS"]}


def test_press_to_gm_reaches_germany_and_the_master(harness: Harness) -> None:
    table = seated(harness, "gm")
    table.sign_on()
    start = len(harness.sink.mails)
    reply = harness.command(
        player("ITALY"), f"{table.signon('ITALY')}\nPRESS TO GM\nA word for two.\nENDPRESS"
    )
    assert "press sent to GERMANY, MASTER" in reply
    harness.wait_until(lambda: len(mailed(harness, start, "press from")) == 2)
    assert set(mailed(harness, start, "press from")) == {player("GERMANY"), MASTER}


def test_official_before_press_to_f_reaches_france_only(harness: Harness) -> None:
    seated(harness, "official").sign_on()
    start = len(harness.sink.mails)
    reply = master(harness, "official", "OFFICIAL Note\nPRESS TO F\nFor France.\nENDPRESS")
    assert "press sent to FRANCE" in reply
    harness.wait_until(lambda: bool(mailed(harness, start, "press from")))
    reply = master(harness, "official", "SIGNOFF")  # the first mail is all out by now
    assert set(mailed(harness, start, "press from")) == {player("FRANCE")}


def test_become_then_set_password_never_changes_the_masters_password(harness: Harness) -> None:
    h = harness
    table = seated(h, "become")
    table.sign_on()
    reply = master(h, "become", "become F\nset password stolenpw")
    assert "no BECOME" in reply and "RESET PASSWORD F" in reply
    assert "not done: the BECOME above failed" in reply
    assert "signed on" in master(h, "become", "STATUS")  # masterpw still works
    assert "ERROR" in master(h, "become", "STATUS", password="stolenpw")
    # The master gives France's player a new password; France's address is told, without it.
    start = len(h.sink.mails)
    reply = master(h, "become", "RESET PASSWORD FRANCE frenchnew")
    assert "new password set for france" in reply and "frenchnew" not in reply
    h.wait_until(lambda: player("FRANCE") in mailed(h, start, "a new password for france"))
    notice = mailed(h, start, "a new password for france")[player("FRANCE")]
    assert "master" in notice and "frenchnew" not in notice
    assert "signed on as france" in h.command(player("FRANCE"), "SIGNON france@become frenchnew")
    old = h.command(player("FRANCE"), f"SIGNON france@become {secret('FRANCE')}")
    assert "signed on" not in old
    # Only the master resets.
    reply = h.command(
        player("ITALY"), f"{table.signon('ITALY')}\nRESET PASSWORD FRANCE mine\nBECOME FRANCE"
    )
    assert "signed on as france" in h.command(player("FRANCE"), "SIGNON france@become frenchnew")


def test_clear_says_what_it_withdrew_and_what_stays(harness: Harness) -> None:
    table = seated(harness, "clear")
    table.sign_on()
    france(table, "A PAR - BUR\nA MAR H\nPHASE Fall 1901 Movement\nA MAR - PIE")
    reply = " ".join(france(table, "CLEAR").split())
    assert "orders withdrawn for FRANCE in S1901M: A PAR - BUR, A MAR H" in reply
    assert "sent ahead for later phases with PHASE stay on file" in reply
    assert not on_file("clear").get("FRANCE")
    assert ahead("clear", "FRANCE") == {"F1901M": ["A MAR - PIE"]}


def test_the_masters_resign_power_points_to_eject(harness: Harness) -> None:
    seated(harness, "resign").sign_on()
    reply = master(harness, "resign", "RESIGN TURKEY")
    assert "EJECT TURKEY" in reply and "write RESIGN" not in reply
    game = get_game("resign")
    assert Seat.get((Seat.game == game) & (Seat.role == "master")).status != "resigned"
    assert Seat.get((Seat.game == game) & (Seat.name == "turkey")).person is not None


def test_commands_of_other_judges_get_an_error_and_prose_is_left_alone(harness: Harness) -> None:
    table = seated(harness, "words")
    table.sign_on()
    france(table, "A PAR H")
    for line in ["WITHDRAW", "UNSTART", "PROMOTE france", "withdraw", "OBSERVERS", "STATIS"]:
        reply = france(table, line)
        assert "ERROR" in reply and "left alone" not in reply, reply
    reply = france(table, "POSTAL PRESS TO G\nA MAR - PIE\nENDPRESS")
    assert "no POSTAL PRESS" in reply
    reply = france(table, "Thanks, see you next turn.")
    assert "left alone" in reply and "ERROR" not in reply
    assert on_file("words")["FRANCE"] == ["A PAR H"]


def test_order_spellings_by_mail(harness: Harness) -> None:
    """Commas and semicolons, DPjudge's [POWER], njudge's convoy words in Fall, then the
    build phase: bare units, R for remove, W for waive."""
    h = harness
    table = seated(h, "spell")
    table.sign_on()
    spring = {
        "ENGLAND": ["[ENGLAND] F LON - NTH, A LVP - YOR; F EDI H"],
        "FRANCE": ["A PAR - BUR, F BRE - MAO; A MAR - SPA"],
        "AUSTRIA": ["F TRI - ALB", "A VIE H", "A BUD H"],
    }
    table.play_phase(spring)
    assert "A LVP - YOR" in text_of(table.results("S1901M")[0].message)
    assert get_game("spell").phase == "F1901M"
    fall = {
        "ENGLAND": ["F NTH FAST FERRY A YOR - NWY", "A YOR - NWY", "F EDI H"],
        "FRANCE": ["A BUR - BEL", "F MAO - POR", "A SPA H"],
        "ITALY": ["A VEN - TRI", "A ROM H", "F NAP H"],
    }
    for power, lines in fall.items():
        reply = table.send_orders(power, lines)
    assert "F NTH C A YOR - NWY" in on_file("spell")["ENGLAND"]
    table.play_phase({})
    assert get_game("spell").phase == "W1901A"
    reply = table.send_orders("FRANCE", ["A Par", "F Bre", "w"])
    assert {"A PAR B", "F BRE B", "WAIVE"} <= set(on_file("spell")["FRANCE"]), reply
    reply = h.command(player("AUSTRIA"), f"{table.signon('AUSTRIA')}\nr f alb")
    assert on_file("spell")["AUSTRIA"] == ["F ALB D"], reply
    reply = table.send_orders("ITALY", ["A Ven"])
    assert on_file("spell")["ITALY"] == ["A VEN B"], reply
    reply = h.command(player("GERMANY"), f"{table.signon('GERMANY')}\nA Mun")
    assert "nothing to build or remove" in " ".join(reply.split())
    assert not on_file("spell").get("GERMANY")
    # England's build is the last owed: the phase is processed with it.
    reply = table.send_orders("ENGLAND", ["F Lon"])
    assert "F LON B" in reply and get_game("spell").phase == "S1902M"
    h.wait_until(lambda: bool(table.results("W1901A")), what="the winter results")
    assert "F LON B" in " ".join(text_of(table.results("W1901A")[0].message).split())


def test_the_masters_orders_in_a_forming_game_are_refused(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(MASTER, "CREATE early masterpw")
    for text in ("[ENGLAND] F LON - NTH", "ORDERS ENGLAND\nF LON - NTH\nEND"):
        assert "has not started" in master(h, "early", text)


def index() -> list[tuple[str, str, str]]:
    rows = []
    for raw in INDEX.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            judge, who, line = (part.strip() for part in raw.split(" | "))
            rows.append((judge, who, line))
    return rows


def _game_in(h: Harness, name: str, state: str) -> Table:
    table = seated(h, name)
    if state == "forming":
        assert "created" in h.command(MASTER, f"CREATE {name} masterpw RULES POWER_CHOICE")
        assert "joined" in h.command(player("FRANCE"), f"JOIN {name} {secret('FRANCE')} FRANCE")
        return table
    table.sign_on()
    if state == "paused":
        assert "paused" in master(h, name, "PAUSE")
    if state == "finished":
        assert "ends" in master(h, name, "DECLARE DRAW")
    return table


def _usable(name: str, state: str) -> bool:
    game = get_game(name)
    if game.state != {"forming": GameState.FORMING, "active": GameState.ACTIVE,
                      "paused": GameState.PAUSED, "finished": GameState.FINISHED}[state]:  # fmt: skip
        return False
    seats = Seat.select().where(Seat.game == game)
    france_held = any(s.name == "france" and s.person is not None for s in seats)
    master_in = any(s.role == "master" and s.status != "resigned" for s in seats)
    return france_held and master_in


STATES = ("forming", "active", "paused", "finished")


@pytest.mark.soak
def test_fuzz_the_command_index_in_every_game_state(harness: Harness) -> None:
    """Every line of the index in a game of every state (712 mails; `-m soak`)."""
    fuzz_the_command_index(harness, every_state=True)


def test_fuzz_the_command_index_once_in_some_game_state(harness: Harness) -> None:
    """The short version for every run: each line of the index in one state, the states
    taken in turn, so that every line and every state is tried (178 mails)."""
    fuzz_the_command_index(harness, every_state=False)


def fuzz_the_command_index(h: Harness, every_state: bool) -> None:
    rows = index()
    assert len(rows) >= 150
    wrong: list[str] = []
    for turn, state in enumerate(STATES):
        serial = 0
        name = f"fz{state}{serial}"
        _game_in(h, name, state)
        mine = rows if every_state else rows[turn :: len(STATES)]
        for judge, who, line in mine:
            if who == "MASTER":
                sender, signon = MASTER, f"SIGNON M{name} masterpw"
            else:
                sender, signon = player("FRANCE"), f"SIGNON france@{name} {secret('FRANCE')}"
            # A traceback shunts the mail: it never gets an answer.
            try:
                reply = text_of(h.reply(h.send(sender, f"{signon}\n{line}"), timeout=15))
            except TimeoutError:
                wrong.append(f"{state} {judge} {line!r}: no answer (see the shunted mail)")
                continue
            echoes = [r for r in reply.splitlines() if r.startswith("> ")]
            answers = [e for e in echoes if e != "> (the judge)"]
            if len(answers) != 2 or "signed on" not in reply or "not orders or" in reply:
                wrong.append(f"{state} {judge} {line!r}:\n{reply}")
            if not _usable(name, state):  # the line changed the game: a fresh one
                serial += 1
                name = f"fz{state}{serial}"
                _game_in(h, name, state)
    tried = 4 * len(rows) if every_state else len(rows)
    assert not wrong, f"{len(wrong)} of {tried}:\n" + "\n\n".join(wrong)

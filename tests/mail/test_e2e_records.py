"""Issue 35 point 4, a fair record, played by mail through the SMTP listener: two phases in
which France orders on time, Germany in the grace, Italy never (the master's PROCESS!: civil
disorder) and England is away (SET ABSENCE: excused); RECORD answers each player with
their own counts, to their own address only (a forged From with a proven Reply-To gets the
forger nothing); MIN_RECORD refuses Italy's JOIN with the reason and admits a newcomer;
SET RECORD PUBLIC AS name shows France's record on /players by that name, no address."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from helpers.e2e import JUDGE, MASTER, Harness, player, seated, takeover_by_mail, text_of

from mail.test_e2e_security_outsider import prove
from mailjudge.demo import mailroom
from mailjudge.demo.table import Table
from mailjudge.game.state import get_game
from mailjudge.store.models import Game, utcnow

MASTER_ON = "SIGNON Mfair masterpw\n"
FORGER = "mallory@elsewhere.test"
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@pytest.fixture
def served(tmp_path: Path, smtp_sink: object, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge whose pages are served (on a free port) beside its SMTP listener."""
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:  # type: ignore[arg-type]
        assert h.judge.web_port
        yield Harness(h.judge, h.sink)


def flat(text: str) -> str:
    return " ".join(text.split())


def holds(table: Table, power: str) -> list[str]:
    pos = table.position()
    return [f"{unit} H" for unit in pos.units.values() if unit.power == power]


def play_two_phases(table: Table) -> None:
    today = utcnow().date()
    away = f"SET ABSENCE {today - timedelta(days=1)} TO {today + timedelta(days=3)}"
    table.say(table.players["ENGLAND"], f"{table.signon('ENGLAND')}\n{away}", "absence noted")
    for phase in ("S1901M", "F1901M"):
        assert table.state().phase == phase
        for power in ("FRANCE", "AUSTRIA", "RUSSIA", "TURKEY"):
            table.send_orders(power, holds(table, power))
        # The deadline falls now, between their orders and Germany's (a master cannot set
        # one in the past by mail); the grace of two days runs.
        Game.update(deadline=utcnow()).where(Game.name == "fair").execute()
        table.send_orders("GERMANY", holds(table, "GERMANY"))  # in the grace
        assert table.state().phase == phase  # Italy's orders are missing; England is away
        table.say(table.master, MASTER_ON + "PROCESS!", "processed")
        table.harness.wait_until(
            lambda p=phase: any(r.rcpt_tos == [MASTER] for r in table.results(p)),  # type: ignore[misc]
            what=f"the results of {phase}",
        )


def figures(reply: str) -> dict[str, int]:
    """The record's lines `name: number` of a RECORD answer."""
    found: dict[str, int] = {}
    for line in reply.splitlines():
        name, _, rest = line.strip().partition(": ")
        if rest and rest.split()[0].isdigit():
            found[name] = int(rest.split()[0])
    return found


def page(h: Harness, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{h.judge.web_port}{path}") as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_a_fair_record_by_mail_and_on_the_web(served: Harness) -> None:
    h = served
    table = seated(h, "fair")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    table.say(table.master, MASTER_ON + "SET TIMING MOVE 3D RETREAT 1D ADJUST 1D GRACE 2D",
              "timing")  # fmt: skip
    play_two_phases(table)

    france_reply = h.command(player("FRANCE"), "RECORD")
    france = figures(france_reply)
    assert "fair: owed 2, on time 2, grace 0, missed 0" in france_reply
    assert france["phases owed"] == 2 and france["on time"] == 2 and france["missed"] == 0
    germany = figures(h.command(player("GERMANY"), "RECORD"))
    assert germany["phases owed"] == 2 and germany["in grace"] == 2 and germany["on time"] == 0
    italy_reply = h.command(player("ITALY"), "RECORD")
    italy = figures(italy_reply)
    assert italy["missed"] == 2 and italy["civil disorders"] == 2 and italy["on time"] == 0
    assert "share on time: 0% of 2 phases (new: under 10)" in italy_reply
    england = figures(h.command(player("ENGLAND"), "RECORD"))
    assert england["phases owed"] == 2 and england["excused"] == 2 and england["missed"] == 0
    assert "no record here yet" in h.command("fresh@players.test", "RECORD")
    assert "write RECORD alone" in h.command(player("FRANCE"), f"RECORD {player('ITALY')}")
    assert "civil disorder (still incomplete" in flat(h.command(FORGER, "HELP RECORD"))

    # A forger proves its own address, then asks for Italy's record with Italy's From and
    # its own Reply-To: the answer goes to Italy's address on file, never to the forger.
    prove(h, FORGER)
    before = len(h.sink.mails)
    answer = h.reply(h.send(player("ITALY"), "RECORD", reply_to=FORGER))
    to_italy = [m for m in h.replies_to(str(answer["In-Reply-To"]))]
    assert [m.rcpt_tos for m in to_italy] == [[player("ITALY")]]
    assert "civil disorders: 2" in text_of(to_italy[0].message)
    later = h.sink.mails[before:]
    assert all(FORGER not in m.rcpt_tos for m in later), [m.rcpt_tos for m in later]

    # MIN_RECORD: Italy (no phase on time of two) is refused, a newcomer and France admitted.
    assert "created" in h.command(MASTER, "CREATE picky masterpw RULES POWER_CHOICE")
    table.say(table.master, "SIGNON Mpicky masterpw\nSET OPTION MIN_RECORD 0.75 OVER 2",
              "MIN_RECORD")  # fmt: skip
    refused = flat(h.command(player("ITALY"), "JOIN picky pw-i ITALY"))
    assert "ERROR" in refused and "MIN_RECORD" in refused and "falls short" in refused, refused
    assert "RECORD mails you yours" in refused
    # The refusal speaks of the From's record: a forger's proven Reply-To never reads it.
    forged = h.reply(h.send(player("ITALY"), "JOIN picky pw-x ITALY", reply_to=FORGER))
    assert "falls short" in flat(text_of(forged))
    assert [m.rcpt_tos for m in h.replies_to(str(forged["In-Reply-To"]))] == [[player("ITALY")]]
    assert "joined" in h.command("newcomer@players.test", "JOIN picky pw-n AUSTRIA")
    assert "joined" in h.command(player("FRANCE"), "JOIN picky pw-f FRANCE")
    assert "joined" in h.command(player("ENGLAND"), "JOIN picky pw-e ENGLAND")  # excused: new
    assert get_game("picky").state == "forming"

    # Italy leaves; a newcomer takes its power over, to its credit.
    table.say(table.players["ITALY"], f"{table.signon('ITALY')}\nRESIGN", "ITALY is vacant")
    assert "you now play ITALY" in takeover_by_mail(
        h, "saviour@players.test", "TAKEOVER italy@fair pw-s"
    )
    saviour = h.command("saviour@players.test", "RECORD")
    assert figures(saviour)["powers taken over"] == 1 and figures(saviour)["phases owed"] == 0
    assert "share on time: 100% of 0 phases and 1 takeover(s) (new: under 10)" in saviour

    # France shows its record on the web, by the name it chose; nobody's address is there.
    assert "public as Marianne" in h.command(player("FRANCE"), "SET RECORD PUBLIC AS Marianne")
    status, listing = page(h, "/players")
    assert status == 200 and ">Marianne</a>" in listing
    assert ADDRESS.search(listing) is None and "players.test" not in listing
    assert "Italy" not in listing and "italy" not in listing  # private records stay off
    status, one = page(h, "/players/marianne")
    assert status == 200 and "<h1>Marianne</h1>" in one and ADDRESS.search(one) is None
    assert '<td class="owed">2</td>' in one and '<td class="on-time">2</td>' in one
    assert page(h, "/players/italy")[0] == 404
    assert "your record is private" in h.command(player("FRANCE"), "SET RECORD PRIVATE")
    assert ">Marianne</a>" not in page(h, "/players")[1]

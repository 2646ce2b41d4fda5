"""The mail people read, through a real judge on loopback: every deadline in the game's
zone and the reader's (or UTC), answers' subjects that name the game and phase, and
results mails that show the board without carrying its SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from helpers.e2e import (
    HARNESSES,
    JUDGE,
    MASTER,
    POWERS,
    join_by_mail,
    player,
    seated,
    set_up_game,
    text_of,
)

from mailjudge.demo.mailroom import running_judge
from mailjudge.demo.table import Table
from mailjudge.game.state import get_game
from mailjudge.store.models import GameState
from mailjudge.variants.democratic.citizens import citizens_of


def flat(text: str) -> str:
    return " ".join(text.split())


def start_with_tokyo_italy(table: Table) -> None:
    """The game starts once all seven joined; Italy joins first and sets its own zone."""
    m = table.master
    table.say(m, f"CREATE {table.game} {m.password} RULES POWER_CHOICE", "created")
    for power in ["ITALY", *(p for p in POWERS if p != "ITALY")]:
        who = table.players[power]
        table.say(who, f"JOIN {table.game} {who.password} {power}", "ok: you joined")
        if power == "ITALY":
            table.say(who, f"{table.signon('ITALY')}\nSET ZONE Asia/Tokyo", "Asia/Tokyo")
    table.harness.wait_until(lambda: table.state().state == GameState.ACTIVE)


def test_every_deadline_shows_the_games_zone_and_the_readers(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """The judge runs in Europe/Paris. France set no zone: each deadline it reads (the
    started mail, STATUS, the results) is in Paris time and UTC; Italy set Tokyo: in Paris
    time and Tokyo time."""
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, judge_timezone="Europe/Paris") as h:
        HARNESSES.append(h)
        table = seated(h, "zones")
        start_with_tokyo_italy(table)
        deadline = get_game("zones").deadline
        assert deadline is not None
        utc = f"{deadline:%Y-%m-%d %H:%M} UTC"
        tokyo = deadline.astimezone(ZoneInfo("Asia/Tokyo"))
        in_tokyo = f"{tokyo:%Y-%m-%d %H:%M} JST (Asia/Tokyo)"

        def started(address: str) -> str:
            subject = "[zones] the game has started"
            h.wait_until(
                lambda: any(m.message["Subject"] == subject for m in table.mails_to(address))
            )
            mail = next(m for m in table.mails_to(address) if m.message["Subject"] == subject)
            return flat(text_of(mail.message))

        france = started(player("FRANCE"))
        assert "First deadline: " in france and "(Europe/Paris)" in france
        assert "In UTC: " in france and utc in france and "your zone" not in france
        italy = started(player("ITALY"))
        assert "(Europe/Paris)" in italy and "In your zone: " in italy and in_tokyo in italy
        master = started(MASTER)
        assert "(Europe/Paris)" in master and utc in master

        status = flat(h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS"))
        assert "(Europe/Paris) (" in status and f"{utc})" in status
        status = flat(h.command(player("ITALY"), f"{table.signon('ITALY')}\nSTATUS"))
        assert f"{in_tokyo} in your zone)" in status

        # Answers name the game and phase in their Subject, once.
        asked = h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS", subject="my orders")
        answer = h.reply(asked)
        assert answer["Subject"] == "Re: my orders [zones S1901M]"
        again = h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS",
                       subject=f"Re: {answer['Subject']}")  # fmt: skip
        assert h.reply(again)["Subject"] == "Re: my orders [zones S1901M]"
        bare = h.send(player("FRANCE"), "LIST", subject="")
        assert h.reply(bare)["Subject"] == "Re: your commands"  # no game: no tag

        table.play_phase({"FRANCE": ["A PAR - BUR"]})
        h.wait_until(lambda: len(table.results("S1901M")) == 8)
        nxt = get_game("zones").deadline
        assert nxt is not None
        results = {m.rcpt_tos[0]: flat(text_of(m.message)) for m in table.results("S1901M")}
        assert "Deadline: " in results[player("FRANCE")]
        assert f"In UTC: {nxt:%a %Y-%m-%d %H:%M} UTC" in results[player("FRANCE")]
        assert "In your zone: " in results[player("ITALY")]
        assert "JST (Asia/Tokyo)" in results[player("ITALY")]


def test_the_reply_limit_notice_shows_the_readers_zone(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """The notice that answers are held back says when they start again in the judge's
    zone and in the zone the writer set with SET ZONE."""
    with running_judge(
        tmp_path / "judge.db", smtp_sink, JUDGE,
        outbound_reply_limit="3", judge_timezone="Europe/Paris",
    ) as h:  # fmt: skip
        HARNESSES.append(h)
        set_up_game(h, "busy")  # France's JOIN answer is the first of its three
        table = seated(h, "busy")
        h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nSET ZONE America/New_York")
        for to in ("PIC", "GAS", "BUR"):
            h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - {to}")
        h.wait_until(lambda: [m for m in h.sink.mails if m.message["Subject"] == "answers paused"])
        notice = next(m for m in h.sink.mails if m.message["Subject"] == "answers paused")
        text = flat(text_of(notice.message))
        assert "Answers start again at" in text
        assert "(Europe/Paris) (" in text and "(America/New_York) in your zone)" in text


def test_results_show_the_png_and_link_the_svg(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """A results mail shows the board as a PNG in its HTML part and carries no SVG: the
    phase's web page draws that, and MAP mails it on request. It stays under 100 KB."""
    with running_judge(
        tmp_path / "judge.db", smtp_sink, JUDGE, web_base_url="https://judge.example.test"
    ) as h:
        HARNESSES.append(h)
        table = seated(h, "pics")
        table.sign_on()
        table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR H", "F BRE - MAO"]})
        h.wait_until(lambda: len(table.results("S1901M")) == 8)
        mail = next(m for m in table.results("S1901M") if m.rcpt_tos == [player("FRANCE")])
        message = mail.message
        assert len(mail.raw) < 100_000, len(mail.raw)
        assert not [p for p in message.walk() if p.get_content_type() == "image/svg+xml"]
        png = next(p for p in message.walk() if p.get_content_type() == "image/png")
        assert png.get_content_disposition() == "inline"
        html = message.get_body(preferencelist=("html",))
        assert html is not None
        page = "https://judge.example.test/games/pics/phases/S1901M"
        assert f'src="cid:{png["Content-ID"].strip("<>")}"' in html.get_content()
        assert f'href="{page}"' in html.get_content() and "as SVG" in html.get_content()
        text = flat(text_of(message))
        assert page in text and "MAP pics S1901M mails it as SVG" in text

        answer = h.command(player("FRANCE"), "MAP pics S1901M")
        assert "follows in its own mail" in answer
        subject = "[pics] map S1901M"
        h.wait_until(lambda: any(m.message["Subject"] == subject for m in h.sink.mails))
        asked = next(m.message for m in h.sink.mails if m.message["Subject"] == subject)
        svg = next(p for p in asked.walk() if p.get_content_type() == "image/svg+xml")
        assert svg.get_filename() == "board-S1901M.svg"
        assert svg.get_content().decode("utf-8").startswith("<svg")


def test_a_citizen_sees_their_countrys_state_in_status(harness: Any) -> None:
    """STATUS for a Democratic citizen: their country, its nominees and order sets (who
    proposed each), and their own ballots, never another's."""
    h = harness
    names = [f"cit{i:02d}" for i in range(22)]
    h.command(MASTER, "CREATE dem masterpw VARIANT democratic")
    for name in names:
        join_by_mail(h, f"{name}@citizens.test", f"JOIN dem pw-{name} AS {name}")
    h.command(MASTER, "SIGNON Mdem masterpw\nSTART")
    french = sorted(s.name for s in citizens_of(get_game("dem"), "FRANCE"))
    first, second = french[0], french[1]

    def say(name: str, text: str) -> str:
        return flat(h.command(f"{name}@citizens.test", f"SIGNON {name}@dem pw-{name}\n{text}"))

    say(first, "PROPOSAL ORDERS\nA PAR - BUR\nA MAR H\nF BRE - MAO\nEND")
    say(first, f"NOMINATE {first} I know the Channel")
    say(first, "VOTE ORDERS 1")
    mine = say(first, "STATUS")
    assert "observers see results only" not in mine and "ERROR" not in mine, mine
    assert "dem S1901M, deadline" in mine
    assert "You are a citizen of FRANCE" in mine and "FRANCE has no diplomat yet" in mine
    assert f"Nominees for diplomat: {first}" in mine
    assert f"set 1 (by {first}): A MAR H A PAR - BUR F BRE - MAO" in mine
    assert "Your orders ballot: 1" in mine
    theirs = say(second, "STATUS")
    assert f"set 1 (by {first})" in theirs
    assert "Your orders ballot: none" in theirs  # the first citizen's ballot is theirs alone

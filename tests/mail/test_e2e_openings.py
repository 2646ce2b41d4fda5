"""Issue 35, point 1, played by mail through the SMTP listener: openings. An address asks
for the openings mail (OPENINGS ON) and gets it only once it answers the token mailed to
it (a forged From cannot sign up someone else); an EJECT, a RESIGN and a missed deadline
under CIVIL_DISORDER each open a power, mailed to the subscribers with nothing private,
and listed on /openings and /openings.atom; a TAKEOVER closes it and moves the deadline by
TAKEOVER_EXTENSION, once a phase, everyone told; OPENINGS OFF stops the mail; a private
game's powers are never shown."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import timedelta

import pytest
from helpers.e2e import (
    MASTER,
    POWERS,
    Harness,
    player,
    seated,
    secret,
    takeover_by_mail,
    text_of,
    wire,
)
from helpers.replyforms import reply_mail
from starlette.testclient import TestClient
from web.test_web import assert_html5

from mailjudge.demo.sink import Received
from mailjudge.engine.timing import format_length
from mailjudge.game.openings import open_powers
from mailjudge.game.state import get_game
from mailjudge.store.models import Game, utcnow
from mailjudge.web.app import make_app

FAN, FAN2 = "fan@watchers.test", "fan2@watchers.test"
VICTIM, FORGER = "victim@watchers.test", "forger@evil.test"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def web(harness: Harness) -> Iterator[TestClient]:
    with TestClient(make_app()) as client:
        yield client


def flat(text: str) -> str:
    return " ".join(text.split())


def openings_to(h: Harness, address: str) -> list[Received]:
    return [m for m in h.sink.mails if m.rcpt_tos == [address]
            and str(m.message["Subject"]).startswith("opening: ")]  # fmt: skip


def wait_opening(h: Harness, address: str, power: str, game: str) -> str:
    subject = f"opening: {power.title()} in {game} "

    def found() -> list[Received]:
        return [m for m in openings_to(h, address) if str(m.message["Subject"]).startswith(subject)]

    h.wait_until(found, what=f"the opening of {power} mailed to {address}")
    assert len(found()) == 1
    return text_of(found()[0].message)


def subscribe(h: Harness, address: str) -> None:
    answer = h.command(address, "OPENINGS ON")
    token = re.search(r"CONFIRM (\w+)", answer)
    assert token is not None, answer
    assert "gets a mail whenever" in h.command(address, f"CONFIRM {token.group(1)}")


def no_private_data(text: str) -> None:
    """Nothing but public facts: no address of a player or the master, no password."""
    for power in POWERS:
        assert player(power) not in text and secret(power) not in text
    assert MASTER not in text and "masterpw" not in text


def test_openings_by_mail_and_on_the_web(harness: Harness, web: TestClient) -> None:
    h = harness
    # OPENINGS ON needs CONFIRM from the address itself; a forged From gets nowhere.
    forged = h.send(VICTIM, "OPENINGS ON", Sender=FORGER)
    h.wait_until(lambda: h.replies_to(forged), what="the answer to the forged OPENINGS ON")
    [answer] = h.replies_to(forged)
    assert answer.rcpt_tos == [VICTIM]  # the token went to the address, not the forger
    token = re.search(r"CONFIRM (\w+)", text_of(answer.message))
    assert token is not None
    refused = h.command(FORGER, f"CONFIRM {token.group(1)}")
    assert "no such confirmation for this address" in flat(refused)
    subscribe(h, FAN)
    subscribe(h, FAN2)
    assert "gets the openings mail already" in h.command(FAN, "OPENINGS ON")

    table = seated(h, "opens")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    master = "SIGNON Mopens masterpw\n"

    # EJECT: England is open, mailed to the subscribers with public facts only.
    table.say(table.master, master + "EJECT ENGLAND", "eject done")
    mail = wait_opening(h, FAN, "ENGLAND", "opens")
    assert "TAKEOVER england@opens password" in mail and "S1901M" in mail
    assert "Supply centres (3): EDI, LON, LVP" in mail, mail
    assert "F EDI" in mail and "A LVP" in mail and "OPENINGS OFF" in mail
    no_private_data(mail)
    assert not openings_to(h, VICTIM) and not openings_to(h, FORGER)

    # RESIGN: Italy is open.
    table.say(table.players["ITALY"], table.signon("ITALY") + "\nRESIGN", "is vacant")
    no_private_data(wait_opening(h, FAN, "ITALY", "opens"))

    # A missed deadline under CIVIL_DISORDER: Germany sent nothing; the others did.
    own = {"AUSTRIA": "A VIE H", "FRANCE": "A PAR - BUR", "RUSSIA": "A MOS H", "TURKEY": "A CON H"}
    for power, order in own.items():
        table.send_orders(power, [order])
    past = utcnow() - timedelta(minutes=5)
    Game.update(deadline=past, next_reminder_at=past).where(Game.name == "opens").execute()
    h.judge.clock_tick()
    h.wait_until(lambda: get_game("opens").phase == "F1901M", what="S1901M processed by the clock")
    germany = wait_opening(h, FAN, "GERMANY", "opens")
    assert "sent no orders by the deadline" in germany and "F1901M" in germany
    no_private_data(germany)
    assert not [m for m in openings_to(h, FAN) if "France" in str(m.message["Subject"])]

    # The web lists them: the page and the feed.
    page = web.get("/openings")
    assert page.status_code == 200
    for power in ("England", "Italy", "Germany"):
        assert power in page.text
    assert "TAKEOVER germany@opens password" in page.text
    assert_html5(page.text)
    again = web.get("/openings", headers={"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304  # an unchanged page is not sent again
    no_private_data(page.text)
    assert 'href="/openings"' in web.get("/").text
    feed = web.get("/openings.atom")
    assert feed.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(feed.content)
    assert root.tag == f"{ATOM}feed"
    for field in ("id", "title", "updated"):
        assert root.find(f"{ATOM}{field}") is not None and root.findtext(f"{ATOM}{field}")
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 3
    for entry in entries:
        assert all(entry.findtext(f"{ATOM}{f}") for f in ("id", "title", "updated", "content"))
    assert len({e.findtext(f"{ATOM}id") for e in entries}) == 3
    no_private_data(feed.text)

    # TAKEOVER: the deadline moves by one phase length (TAKEOVER_EXTENSION's default),
    # everyone is told, England leaves the openings.
    before = get_game("opens").deadline
    assert before is not None
    answer = flat(takeover_by_mail(h, "newbie@players.test", "TAKEOVER england@opens newpw-1"))
    assert "you now play ENGLAND in opens" in answer, answer
    after = get_game("opens").deadline
    assert after is not None and after > before
    moved = format_length(after - before)
    assert f"moved by {moved}" in answer
    subject = "[opens] England has a new player"
    for address in [player(p) for p in ("AUSTRIA", "FRANCE", "RUSSIA", "TURKEY")] + [MASTER]:

        def told(to: str = address) -> list[Received]:
            return [m for m in h.sink.mails
                    if m.rcpt_tos == [to] and m.message["Subject"] == subject]  # fmt: skip

        h.wait_until(told, what=f"the takeover told to {address}")
        text = flat(text_of(told()[0].message))
        assert f"moved by {moved}" in text
        # Only the master is told who took it, and how to undo it (issue 52, point 4).
        assert ("newbie@players.test" in text) == (address == MASTER), text
        assert ("UNDO TAKEOVER england" in text) == (address == MASTER), text
        if address != MASTER:  # the calendar's event moves, as SET DEADLINE moves it
            kinds = [p.get_content_type() for p in told()[0].message.walk()]
            assert "text/calendar" in kinds, kinds
    assert "England" not in web.get("/openings").text

    # A second takeover in the same phase does not move the deadline again.
    answer = flat(takeover_by_mail(h, "second@players.test", "TAKEOVER italy@opens newpw-2"))
    assert "you now play ITALY in opens" in answer and "moved by" not in answer
    assert get_game("opens").deadline == after

    # Germany's absent player loses the power to the newcomer, and is told.
    answer = flat(takeover_by_mail(h, "third@players.test", "TAKEOVER germany@opens newpw-3"))
    assert "you now play GERMANY in opens" in answer, answer
    h.wait_until(lambda: [m for m in h.sink.mails if m.rcpt_tos == [player("GERMANY")]
                          and "you no longer play" in str(m.message["Subject"])],
                 what="Germany's old player told")  # fmt: skip
    assert "No power needs a player now." in web.get("/openings").text
    # A power that is not open is refused, as before.
    refused = flat(h.command("fourth@players.test", "TAKEOVER france@opens newpw-4"))
    assert "FRANCE has a player, who has not left nor missed a deadline" in refused, refused

    # OPENINGS OFF: FAN gets no more; FAN2 still does.
    assert "no more openings mail" in h.command(FAN, "OPENINGS OFF")
    table.say(table.master, master + "DUMMY TURKEY", "dummy done")
    wait_opening(h, FAN2, "TURKEY", "opens")
    assert not [m for m in openings_to(h, FAN) if "Turkey" in str(m.message["Subject"])]


def test_a_private_game_opens_nothing_in_public(harness: Harness, web: TestClient) -> None:
    h = harness
    subscribe(h, FAN)
    table = seated(h, "quiet")
    table.say(table.master, "CREATE quiet masterpw RULES POWER_CHOICE\nPRIVATE", "private")
    for power, person in table.players.items():
        table.say(person, f"JOIN quiet {person.password} {power}", "you joined")
    h.wait_until(lambda: get_game("quiet").state == "active", what="the private game to start")
    table.say(table.master, "SIGNON Mquiet masterpw\nEJECT FRANCE", "eject done")
    # Public game as a marker: its opening is mailed after the private one's would be.
    marker = seated(h, "loud")
    marker.sign_on()
    marker.say(marker.master, "SIGNON Mloud masterpw\nEJECT FRANCE", "eject done")
    wait_opening(h, FAN, "FRANCE", "loud")
    assert not [m for m in openings_to(h, FAN) if "quiet" in str(m.message["Subject"])]
    page = web.get("/openings").text
    assert "loud" in page and "quiet" not in page
    assert "quiet" not in web.get("/openings.atom").text
    listed = h.command("someone@else.test", "OPENINGS")
    assert "france@loud" in listed and "quiet" not in listed


def pass_deadline(h: Harness, game: str, phase: str) -> None:
    """The clock moves past the deadline (a master cannot set one in the past by mail)."""
    past = utcnow() - timedelta(minutes=5)
    Game.update(deadline=past, next_reminder_at=past).where(Game.name == game).execute()
    h.judge.clock_tick()
    h.wait_until(lambda: get_game(game).phase != phase, what=f"{phase} processed by the clock")


def test_a_player_back_from_civil_disorder_closes_the_opening(
    harness: Harness, web: TestClient
) -> None:
    h = harness
    subscribe(h, FAN)
    table = seated(h, "back")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")
    for power in POWERS:
        if power != "GERMANY":
            table.send_orders(power, [])  # signs on, orders nothing yet
    table.send_orders("FRANCE", ["A PAR - BUR"])
    table.send_orders("ENGLAND", ["F LON - NTH"])
    pass_deadline(h, "back", "S1901M")
    wait_opening(h, FAN, "GERMANY", "back")
    assert "Germany" in web.get("/openings").text
    # The player himself cannot "take over" his own power; he just orders again.
    refused = flat(h.command(player("GERMANY"), "TAKEOVER germany@back other-pw"))
    assert "GERMANY has a player" in refused
    table.send_orders("GERMANY", ["A MUN - RUH"])
    table.send_orders("FRANCE", ["A BUR H"])
    pass_deadline(h, "back", "F1901M")
    page = web.get("/openings").text
    assert "germany@back" not in page, page
    # France ordered both phases; England missed F1901M; Austria missed both.
    assert "france@back" not in page
    assert "england@back" in page and "austria@back" in page
    # The master's own TAKEOVER_EXTENSION: the deadline moves by exactly that.
    table.say(table.master, "SIGNON Mback masterpw\nSET OPTION TAKEOVER_EXTENSION 12H", "12H")
    before = get_game("back").deadline
    answer = flat(takeover_by_mail(h, "newbie@players.test", "TAKEOVER austria@back newpw-1"))
    assert "moved by 12H" in answer, answer
    after = get_game("back").deadline
    assert before is not None and after == before + timedelta(hours=12)


def test_a_gunboat_opening_names_nobody(harness: Harness, web: TestClient) -> None:
    """Gunboat's anonymity holds: the opening, the page and the notice of the takeover give
    away neither who left nor who came."""
    from mail.test_gunboat import GAME, PEOPLE, address, names_in, password, signon

    h = harness
    subscribe(h, FAN)
    assert "created (gunboat" in h.command(MASTER, f"CREATE {GAME} masterpw VARIANT gunboat")
    for person in PEOPLE:
        assert "you joined" in h.command(address(person), f"JOIN {GAME} {password(person)}")
    h.wait_until(lambda: get_game(GAME).state == "active", what="the gunboat game to start")
    leaver = PEOPLE[0]
    gone = signon(leaver).split()[1].split("@")[0].upper()
    assert "is vacant" in h.command(address(leaver), signon(leaver) + "RESIGN")
    mail = wait_opening(h, FAN, gone, GAME)
    assert names_in(mail) == [] and "home.test" not in mail
    page = web.get("/openings").text
    assert f"{gone.lower()}@{GAME}" in page and names_in(page) == []
    newcomer = "hank.newcombe@home.test"
    assert "you now play" in takeover_by_mail(
        h, newcomer, f"TAKEOVER {gone.lower()}@{GAME} pw-hank-7"
    )
    subject = f"[{GAME}] {gone.title()} has a new player"
    h.wait_until(lambda: len([m for m in h.sink.mails if m.message["Subject"] == subject]) >= 7,
                 what="the takeover told")  # fmt: skip
    for told in [m for m in h.sink.mails if m.message["Subject"] == subject]:
        body = text_of(told.message)
        if told.rcpt_tos == [MASTER]:  # the master knows who is who, and may undo it
            assert newcomer in body
            continue
        assert names_in(body) == [] and "hank" not in body.lower() and "@home.test" not in body


@pytest.mark.parametrize("form", ["outlook-web", "outlook-desktop", "unknown-unquoted", "mutt"])
def test_a_reply_to_an_openings_mail_takes_nothing_over(harness: Harness, form: str) -> None:
    """The openings mail shows a TAKEOVER line; a subscriber's "Thanks" Reply, with the
    mail copied below it (unquoted, as Outlook sends it), is not a takeover."""
    h = harness
    subscribe(h, FAN)
    table = seated(h, "thanks")
    table.sign_on("POWER_CHOICE")
    table.say(table.master, "SIGNON Mthanks masterpw\nEJECT ENGLAND", "eject done")
    text = wait_opening(h, FAN, "ENGLAND", "thanks")
    [mail] = [m for m in openings_to(h, FAN) if "England in thanks" in str(m.message["Subject"])]
    reply = reply_mail(form, "Thanks, I will think about it.", text,
                       str(mail.message["Subject"]), FAN, f"<thanks-{form}@watchers.test>",
                       str(mail.message["Message-ID"]))  # fmt: skip
    h.deliver(FAN, wire(reply))
    h.reply(f"<thanks-{form}@watchers.test>")
    seat = [s for s in get_game("thanks").seats if "ENGLAND" in s.powers]
    assert all(s.person is None or s.person.email != FAN for s in seat)
    assert "ENGLAND" in open_powers(get_game("thanks"))

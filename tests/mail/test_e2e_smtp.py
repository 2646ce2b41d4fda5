"""End to end over real sockets: a master and seven players play by SMTP; the judge relays
its mail to an aiosmtpd sink; replies, results and refusals are checked as players see them."""

from __future__ import annotations

from email.message import EmailMessage

from helpers.e2e import (
    MASTER,
    POWERS,
    Harness,
    play_years,
    player,
    secret,
    set_up_game,
    text_of,
    wire,
)

from mailjudge.engine.maps import load_map
from mailjudge.engine.state import initial_position
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import InboundMessage


def test_two_years_by_mail(harness: Harness) -> None:
    h = harness
    set_up_game(h, "mailgame")

    def started_mails() -> list[object]:
        return [m for m in h.sink.mails if "has started" in m.message["Subject"]]

    h.wait_until(lambda: len(started_mails()) == 8)
    started = [m for m in h.sink.mails if "has started" in m.message["Subject"]]
    assert sorted(m.rcpt_tos[0] for m in started) == sorted([MASTER, *map(player, POWERS)])
    played = play_years(h, "mailgame", years=2)
    assert played[0] == "S1901M" and sum(1 for p in played if p.endswith("M")) >= 4
    results = h.results_for("mailgame", "F1901M")
    assert len(results) == 8
    france = next(m.message for m in results if m.rcpt_tos == [player("FRANCE")])
    assert france["X-Mailjudge-Role"] == "player FRANCE"
    assert france["X-Mailjudge-Game"] == "mailgame" and france["X-Mailjudge-Phase"] == "F1901M"
    assert france["Auto-Submitted"] == "auto-generated"
    body = text_of(france)
    assert "Supply centres:" in body and "FRANCE" in body
    assert_results_parts(france, "F1901M")
    # Every mail the judge sent is well formed (that none carries a password, conftest's
    # secrecy check sees to after every end-to-end test).
    for mail in h.sink.mails:
        assert mail.message["Message-ID"] and mail.message["Date"]


def test_replies_thread_and_say_ok_or_why(harness: Harness) -> None:
    h = harness
    set_up_game(h, "threads")
    sent = h.send(
        player("FRANCE"), f"SIGNON france@threads {secret('FRANCE')}\nA PAR - MOS\nF BRE - MAO"
    )
    reply = h.reply(sent)
    assert reply["In-Reply-To"] == sent and sent in reply["References"]
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["X-Mailjudge-Role"] == "player FRANCE"
    text = reply.get_content()
    assert "not accepted: A PAR - MOS" in text and "F BRE - MAO" in text


def test_forged_sender_with_wrong_password_changes_nothing(harness: Harness) -> None:
    h = harness
    set_up_game(h, "forgery")
    sent = h.send(player("FRANCE"), "SIGNON france@forgery guessed\nA PAR - BUR")
    assert "wrong password" in h.reply(sent).get_content()
    h.wait_until(lambda: any("wrong password" in m.message["Subject"] for m in h.sink.mails))
    notice = next(m for m in h.sink.mails if "wrong password" in m.message["Subject"])
    assert notice.rcpt_tos == [player("FRANCE")]
    assert "FRANCE" not in orders_on_file(get_game("forgery"))


def test_a_mail_delivered_twice_is_answered_once(harness: Harness) -> None:
    h = harness
    msg = h.mail("someone@players.test", "LIST")
    h.deliver("someone@players.test", wire(msg))
    h.deliver("someone@players.test", wire(msg))
    h.reply(str(msg["Message-ID"]))
    h.wait_until(lambda: InboundMessage.select().where(InboundMessage.state == "done").count() == 1)
    assert len(h.replies_to(str(msg["Message-ID"]))) == 1


def test_automatic_and_list_mail_is_not_answered(harness: Harness) -> None:
    h = harness
    quiet = [
        h.send("robot@players.test", "LIST", Auto_Submitted="auto-replied"),
        h.send("list@players.test", "LIST", List_Id="<chat.players.test>"),
        h.send("bulk@players.test", "LIST", Precedence="bulk"),
    ]
    marker = h.send("person@players.test", "LIST")
    h.reply(marker)  # mail is answered in order: the three before it were passed over
    h.wait_until(lambda: InboundMessage.select().where(InboundMessage.state == "done").count() == 4)
    assert all(not h.replies_to(mid) for mid in quiet)


def test_huge_and_malformed_mail_get_one_clear_error(harness: Harness) -> None:
    h = harness
    big = h.send("big@players.test", "LIST\n" + ("x" * 70 + "\n") * 4000)
    text = h.reply(big).get_content()
    assert "at most" in text and "bytes" in text
    raw = (
        b"From: odd@players.test\r\nTo: judge@example.test\r\nSubject: =?bogus?Q?x?=\r\n"
        b'Message-ID: <odd-1@players.test>\r\nContent-Type: multipart/mixed; boundary="nope"\r\n'
        b"\r\n--wrong\r\n\xff\xfe garbage\r\n"
    )
    h.deliver("odd@players.test", raw)
    reply = h.reply("<odd-1@players.test>")
    assert "No commands were found in your mail" in " ".join(reply.get_content().split())
    assert len(h.replies_to("<odd-1@players.test>")) == 1


def assert_results_parts(message: EmailMessage, phase: str) -> None:
    """A results mail: text, and HTML that shows the board inline as a PNG; the SVG is not
    attached (MAP asks for it), which keeps the mail small."""
    assert message.get_content_type() == "multipart/alternative"
    html = message.get_body(preferencelist=("html",))
    assert html is not None
    related = [p for p in message.walk() if p.get_content_type() == "multipart/related"]
    assert len(related) == 1  # the HTML and its picture travel together
    png = next(p for p in message.walk() if p.get_content_type() == "image/png")
    cid = png["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html.get_content()
    picture = png.get_content()
    assert picture.startswith(b"\x89PNG") and 20_000 < len(picture) < 150_000
    assert png.get_filename() == f"board-{phase}.png"
    assert not [p for p in message.walk() if p.get_content_type() == "image/svg+xml"]
    assert f"MAP mailgame {phase} mails it as SVG" in " ".join(text_of(message).split())
    assert len(message.as_bytes()) < 100_000


def test_the_reply_to_the_orders_that_complete_a_phase_names_that_phase(
    harness: Harness,
) -> None:
    """The last orders of a phase have it processed while their mail is answered; the
    reply still speaks of the phase they were for (its header names it), not the next."""
    h = harness
    set_up_game(h, "lastword")
    start = initial_position(load_map("standard"))
    sent = []
    for power in POWERS:
        holds = "\n".join(f"{unit} H" for unit in start.units_of(power))
        sent.append(
            h.send(player(power), f"SIGNON {power.lower()}@lastword {secret(power)}\n{holds}")
        )
        h.reply(sent[-1])  # one at a time: the last mail is the one that completes the phase
    last = h.reply(sent[-1])
    assert last["X-Mailjudge-Phase"] == "S1901M"
    assert get_game("lastword").phase == "F1901M"

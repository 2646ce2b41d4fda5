"""Issue 59, round four of the seeds, by mail through the SMTP listener: a Double partner's
ready block (seed 004, Lytton's rule 1), Democratic citizens in a Fall retreat (seed 000),
SOLITAIRE's privacy password and NO_CHECK's orders sent ahead (seed 001)."""

from __future__ import annotations

import re
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

from helpers.boards import position
from helpers.e2e import (
    MASTER,
    Harness,
    join_by_mail,
    last_mail_to,
    ready_block_lines,
    seated,
    text_of,
    wire,
)

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.render.ready_block import PASSWORD_PLACEHOLDER
from mailjudge.store.models import OrderLine, Seat


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def _reply(h: Harness, mail: EmailMessage, sender: str, body: str) -> str:
    """``body`` as a Reply to the judge's ``mail`` (In-Reply-To, Re: subject)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(mail["Reply-To"] or mail["From"])
    msg["Subject"] = f"Re: {mail['Subject']}"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg["In-Reply-To"] = mail["Message-ID"]
    msg.set_content(body)
    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port, timeout=10) as client:
        client.sendmail(sender, [str(msg["To"])], wire(msg))
    return text_of(h.reply(str(msg["Message-ID"])))


# --- point 1: a Double partner's ready block (seed 004, Lytton's rule 1) -------------------

RING = [f"mate{i}" for i in range(7)]


def _double_game(h: Harness, name: str, rules: str) -> dict[str, str]:
    """A Double game under ``rules``; its seat -> the player's address."""
    assert "created" in h.command(MASTER, f"CREATE {name} masterpw VARIANT double RULES {rules}")
    for who in RING:
        assert "you joined" in h.command(f"{who}@players.test", f"JOIN {name} pw-{who} AS {who}")
    h.wait_until(lambda: get_game(name).state == "active")
    started = f"[{name}] the game has started"
    h.wait_until(lambda: len([m for m in h.sink.mails if m.subject == started]) == 8)
    at: dict[str, str] = {}
    for mail in h.sink.mails:
        told = re.search(rf"Sign on with: SIGNON ([\w-]+)@{name}", text_of(mail.message))
        if mail.subject == started and told:
            at[told.group(1)] = mail.rcpt_tos[0]
    assert len(at) == 7
    return at


def test_a_partners_ready_block_changes_only_what_that_partner_changed(
    harness: Harness,
) -> None:
    """Seed 004, Lytton's adjustments: "1) NMR by a player, means that the other player's
    orders are used." england-turkey orders all three English units; austria-england
    sends back the ready block of its own mail, with one order written in (F EDI - NWG).
    The block holds only what austria-england ordered, never a default HOLD for the other
    units, so england-turkey's moves stand: F LON - NTH and A LVP - YOR succeed."""
    h = harness
    at = _double_game(h, "blk4", "DOUBLE_LYTTON ALWAYS_WAIT")
    mine = "england-turkey"
    sent = flat(
        h.command(
            at[mine],
            f"SIGNON {mine}@blk4 pw-{at[mine].split('@')[0]}\n"
            "ORDERS ENGLAND\nF LON - NTH\nA LVP - YOR\nF EDI - NWG\nEND",
        )
    )
    assert "ERROR" not in sent, sent
    partner = "austria-england"
    started = last_mail_to(h, at[partner], "the game has started")
    block = ready_block_lines(text_of(started))
    # The block's ORDERS line names its phase too ("ORDERS ENGLAND S1901M", issue 53).
    head = next(i for i, line in enumerate(block) if line.startswith("ORDERS ENGLAND"))
    england = block[head : block.index("END", head)]
    # No order line of the judge's default in the partner's block: the units are left open.
    assert not [line for line in england[1:] if not line.startswith("//")], england
    assert any("no order of yours on file: your partner's order stands" in x for x in england)
    at_edi = next(i for i, line in enumerate(block) if line.startswith("// F EDI:"))
    edited = [
        line.replace(PASSWORD_PLACEHOLDER, f"pw-{at[partner].split('@')[0]}") for line in block
    ]
    edited.insert(at_edi, "F EDI - NWG")
    answer = _reply(h, started, at[partner], "\n".join(edited) + "\n\nThanks.\n")
    assert "ERROR" not in answer, answer
    filed = orders_on_file(get_game("blk4"))["ENGLAND"]
    assert sorted(line.text for line in filed) == [
        "A LVP - YOR", "F EDI - NWG", "F EDI - NWG", "F LON - NTH"
    ]  # fmt: skip
    assert "processed" in h.command(MASTER, "SIGNON Mblk4 masterpw\nPROCESS!")
    h.wait_until(lambda: get_game("blk4").phase == "F1901M", what="S1901M processed")
    units = {u["loc"] for u in get_game("blk4").position["units"] if u["power"] == "ENGLAND"}
    assert units == {"nth", "yor", "nwg"}, units


# --- point 2: Democratic citizens in a Fall retreat (seed 000) -----------------------------

CITIZENS = [f"voter{i}" for i in range(24)]


def test_citizens_change_country_after_the_fall_retreat(harness: Harness) -> None:
    """Seed 000: "As their home supply center gets overtaken by another country, they
    simply become citizens of that country and keep playing." and Gaining and Losing Units
    Phase, Rule 1: "Once a country gains control of a supply center, the citizens of that
    supply center are immediately transferred to the new country prior to disbanding or
    building units." A country gains control at the end of the Fall turn, after its
    retreats: while France's dislodged army retreats (F1901R) the citizens of Paris are
    still French and vote on that retreat; they become German once it is played."""
    h = harness
    name = "demo4"
    assert "created" in h.command(MASTER, f"CREATE {name} masterpw VARIANT democratic")
    for who in CITIZENS:
        join_by_mail(h, f"{who}@citizens.test", f"JOIN {name} pw-{who} AS {who}")
    assert "started" in h.command(MASTER, f"SIGNON M{name} masterpw\nSTART")
    game = get_game(name)
    game.phase = "F1901M"
    game.position = position(
        "F1901M",
        ["FRANCE A par", "GERMANY A bur", "GERMANY A pic", "GERMANY A gas"],
        {"par": "FRANCE", "mun": "GERMANY", "bre": "FRANCE"},
    )
    game.save()
    parisian = Seat.get((Seat.game == game) & (Seat.centre == "par") & (Seat.role == "citizen"))
    german = Seat.get((Seat.game == game) & (Seat.centre == "mun") & (Seat.role == "citizen"))
    signon = f"SIGNON {parisian.name}@{name} pw-{parisian.name}\n"
    g_signon = f"SIGNON {german.name}@{name} pw-{german.name}\n"
    proposed = flat(h.command(f"{german.name}@citizens.test", g_signon + "PROPOSAL ORDERS\n"
                              "A BUR - PAR\nA PIC S A BUR - PAR\nA GAS S A BUR - PAR\nEND"))  # fmt: skip
    assert "ERROR" not in proposed, proposed
    assert "ERROR" not in h.command(f"{german.name}@citizens.test", g_signon + "VOTE ORDERS 1")
    assert "processed" in h.command(MASTER, f"SIGNON M{name} masterpw\nPROCESS!")
    h.wait_until(lambda: get_game(name).phase == "F1901R", what="the Fall retreat")
    # Paris is Germany's by the engine's board, but the Fall turn is not over: still French.
    status = flat(h.command(f"{parisian.name}@citizens.test", signon + "STATUS"))
    assert "You are a citizen of FRANCE (centre PAR)" in status, status
    retreat = flat(h.command(f"{parisian.name}@citizens.test",
                             signon + "PROPOSAL ORDERS\nA PAR R BRE\nEND"))  # fmt: skip
    assert "ERROR" not in retreat, retreat
    assert "ERROR" not in h.command(f"{parisian.name}@citizens.test", signon + "VOTE ORDERS 1")
    moved = f"[{name}] your centre was taken: you are now a citizen of GERMANY (PAR)"
    assert not [m for m in h.sink.mails if m.subject == moved]
    assert "processed" in h.command(MASTER, f"SIGNON M{name} masterpw\nPROCESS!")
    h.wait_until(lambda: get_game(name).phase == "W1901A", what="the adjustments")
    units = {u["loc"]: u["power"] for u in get_game(name).position["units"]}
    assert units["bre"] == "FRANCE", units  # the French citizens' retreat was played
    h.wait_until(lambda: [m for m in h.sink.mails if m.subject == moved], what="the move")
    status = flat(h.command(f"{parisian.name}@citizens.test", signon + "STATUS"))
    assert "You are a citizen of GERMANY (centre PAR)" in status, status


# --- point 5: SOLITAIRE's privacy password, NO_CHECK's orders sent ahead (seed 001) ---------

STRANGER = "curious@elsewhere.test"


def test_a_solitaire_game_has_a_privacy_password_of_its_own(harness: Harness) -> None:
    """Seed 001, SOLITAIRE: "A PRIVACY password will be automatically assigned, because
    these are typically private games." The judge assigns it at CREATE and tells the
    master, in the answer to the CREATE only; it is not the master's password. A stranger
    reads nothing and may not OBSERVE without it, the master's password does not open the
    game to a watcher, and whoever the master gives the privacy password to may OBSERVE
    and then read the game."""
    h = harness
    answer = flat(h.command(MASTER, "CREATE sol masterpw RULES SOLITAIRE"))
    assert "created" in answer
    found = re.search(r"its privacy password is (\S+)", answer)
    assert found is not None, answer
    privacy = found.group(1)
    assert privacy != "masterpw" and "It is not your master's password" in answer
    for command in ("SUMMARY sol", "HISTORY sol", "MAP sol"):
        reply = flat(h.command(STRANGER, command))
        assert "sol is closed to watchers (SOLITAIRE)" in reply, reply
        assert "OBSERVE it with its privacy password" in reply
    for guess in ("guessed-pw", "masterpw"):
        reply = flat(h.command(STRANGER, f"OBSERVE peek@sol {guess}"))
        assert "sol is a SOLITAIRE game, private: OBSERVE it with its privacy password" in reply
        assert "CONFIRM" not in reply
    reply = h.command(STRANGER, f"OBSERVE peek@sol {privacy}")
    token = re.search(r"CONFIRM (\w+)", reply)
    assert token is not None, reply
    assert "you observe sol" in h.command(STRANGER, f"CONFIRM {token.group(1)}")
    reply = flat(h.command(STRANGER, f"SIGNON peek@sol {privacy}\nSUMMARY sol"))
    assert "FRANCE 3 centres" in reply, reply
    # The privacy password went to the master's address alone, in that one answer.
    carrying = [m for m in h.sink.mails if privacy in text_of(m.message)]
    assert [m.rcpt_tos for m in carrying] == [[MASTER]]


def test_no_check_answers_an_ambiguous_order_sent_ahead_when_it_is_sent(harness: Harness) -> None:
    """Seed 001, NO_CHECK: "The ONLY checks that are made at the time an order is entered
    are: ... Any placename abbreviation that is potentially ambiguous is declared erroneous
    and must be changed. For example, the order "TYR H" is rejected because it may be an
    order for an army in Tyrolia to hold, or for a fleet in the Tyrrhenian Sea to hold."
    An order sent ahead with PHASE is entered when it is sent: `TYR H` for the Fall is
    refused then, with the reason, as it is for the current phase, and nothing is filed;
    the full name is taken."""
    table = seated(harness, "ncahead")
    table.sign_on("POWER_CHOICE NO_CHECK")
    austria = table.players["AUSTRIA"]
    sent = flat(harness.command(
        austria.address, f"{table.signon('AUSTRIA')}\nPHASE Fall 1901 Movement\nTYR H"
    ))  # fmt: skip
    assert "TYR H" in sent and "Tyrolia" in sent and "Tyrrhenian Sea" in sent, sent
    assert "ERROR" in sent or "not accepted" in sent, sent
    assert not [x for x in OrderLine.select() if x.phase == "F1901M"]
    sent = flat(harness.command(
        austria.address, f"{table.signon('AUSTRIA')}\nPHASE Fall 1901 Movement\nTyrolia H"
    ))  # fmt: skip
    assert "ERROR" not in sent and "not accepted" not in sent, sent
    assert [x.text for x in OrderLine.select() if x.phase == "F1901M"] == ["TYR H"]

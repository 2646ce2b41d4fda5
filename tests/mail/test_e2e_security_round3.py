"""Issue 52 point 5, "the outsider, round three", by real SMTP: each attack of
tests/helpers/outsider_attacks.py (which measures them) held to its outcome at a judge with the
shipped security settings. Mails to strangers: none; the owner still answered; a refusal
with its reason. No test here times anything."""

from __future__ import annotations

import re
import smtplib
import time
import urllib.request
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import (
    HARNESSES,
    JUDGE,
    MASTER,
    Harness,
    last_mail_to,
    player,
    secret,
    set_up_game,
    text_of,
    wire,
)

from mailjudge.config import settings
from mailjudge.config.settings import SecuritySettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.demo.sink import LOOPBACK, free_port
from mailjudge.game import reply_tokens
from mailjudge.game.state import get_game, orders_on_file, seat_named
from mailjudge.store import db
from mailjudge.store.models import Confirmation, InboundMessage, Outbox, Seat
from mailjudge.tools.backup import backup, restore

CAPS = SecuritySettings()
ATTACKER = "attacker@evil.test"
VICTIM = "victim@elsewhere.test"


def shipped(**extra: str) -> dict[str, str]:
    """The security settings the judge ships with (the harness's own are lax)."""
    return {
        "security_unproven_per_hour": str(CAPS.unproven_per_hour),
        "security_unproven_bytes_per_hour": str(CAPS.unproven_bytes_per_hour),
        "security_proven_bytes_per_hour": str(CAPS.proven_bytes_per_hour),
        "security_same_mail_answers": str(CAPS.same_mail_answers),
        "outbound_reply_limit": "120",
        **extra,
    }


@pytest.fixture
def guarded(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, **shipped()) as h:
        HARNESSES.append(h)
        yield h


def to(h: Harness, address: str, since: int = 0) -> list[Any]:
    return [m for m in h.sink.mails[since:] if address in m.rcpt_tos]


def all_done(h: Harness, sent: list[str], timeout: float = 120.0) -> None:
    """Every mail in `sent` handled (or shunted), and the outbox flushed."""
    h.wait_until(
        lambda: (
            InboundMessage.select()
            .where(
                InboundMessage.message_id.in_(sent) & InboundMessage.state.in_(("done", "shunted"))
            )
            .count()
            == len(sent)
        ),
        timeout,
        f"{len(sent)} mails handled",
    )
    h.wait_until(
        lambda: not Outbox.select().where(Outbox.state == "queued", Outbox.attempts == 0).exists(),
        timeout,
        "the outbox to flush",
    )
    time.sleep(0.3)


def raw_mail(h: Harness, headers: list[tuple[str, str]], body: str) -> str:
    """Mail a hand-made message (headers as given) to the judge; its Message-ID."""
    message_id = make_msgid(domain="outsider.test")
    lines = [f"{name}: {value}" for name, value in headers]
    lines += ["To: " + JUDGE, "Subject: commands", f"Message-ID: {message_id}",
              "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", ""]  # fmt: skip
    raw = ("\r\n".join(lines) + "\r\n" + body.replace("\n", "\r\n")).encode("utf-8")
    h.delivered.append(raw)
    with smtplib.SMTP(LOOPBACK, h.judge.listener.smtp_port, timeout=30) as client:
        client.sendmail("outsider@evil.test", [JUDGE], raw)
    return message_id


# -- a: unbounded mail to strangers ------------------------------------------------------

STRANGERS = [f"stranger{n}@victims.test" for n in range(7)]


def test_forged_joins_seat_nobody_and_one_mail_processes_one_phase(guarded: Harness) -> None:
    """Before: forged JOINs from seven strangers' addresses into the attacker's own game,
    then PROCESS! 39 times in one mail, sent them 280 results mails (8.5 MB). Now a JOIN
    from an address that never answered the judge waits for its CONFIRM (the stranger gets
    that one answer and nothing more), and a second PROCESS in a mail is refused."""
    h = guarded
    # CD_DUMMIES: a phase of dummies only is ready at once after the one processed, which
    # the judge once processed too, in the same mail (up to three more).
    assert "created" in h.command(ATTACKER, "CREATE atk atkpw RULES CD_DUMMIES")
    joins = [h.send(a, f"JOIN atk pw{n}") for n, a in enumerate(STRANGERS)]
    all_done(h, joins)
    for join in joins:
        assert "CONFIRM" in text_of(h.reply(join))
    assert not Seat.select().where(Seat.game == get_game("atk"), Seat.role == "player").exists()
    h.command(ATTACKER, "SIGNON Matk atkpw\nSTART")  # every power a dummy
    bomb = h.send(ATTACKER, "SIGNON Matk atkpw\n" + "PROCESS!\n" * 39)
    all_done(h, [bomb])
    answer = " ".join(text_of(h.reply(bomb)).split())
    assert answer.count(" processed; now ") == 1 and "(the judge)" not in answer
    assert answer.count("one mail processes (or rolls back) a phase at most once") == 38
    for stranger in STRANGERS:  # the answer to the JOIN forged in its name, nothing else
        assert [m.in_reply_to for m in to(h, stranger)] == [joins[STRANGERS.index(stranger)]]
    # A token answered by the wrong address does nothing; by the right one, it seats.
    token = re.search(r"CONFIRM (\w+)", text_of(h.reply(joins[0])))
    assert token is not None
    assert "no such confirmation" in h.command(ATTACKER, f"CONFIRM {token.group(1)}")


def test_a_join_waits_for_its_confirm_and_keeps_no_power(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """The player's side: a JOIN from a new address holds nothing until its CONFIRM (so a
    forged JOIN cannot take a power from anyone), the CONFIRM seats it, and an address
    that answered the judge joins at once."""
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE) as h:
        HARNESSES.append(h)
        assert "created" in h.command(MASTER, "CREATE wait masterpw RULES POWER_CHOICE")
        forged = h.reply(h.send(player("FRANCE"), "JOIN wait pw-x FRANCE"))
        assert "to join wait as FRANCE" in " ".join(text_of(forged).split())
        asked = text_of(h.reply(h.send("real@players.test", "JOIN wait pw-real FRANCE")))
        token = re.search(r"CONFIRM (\w+)", asked)
        assert token is not None
        confirmed = h.command("real@players.test", f"CONFIRM {token.group(1)}")
        assert "you joined wait as france" in confirmed
        assert seat_named(get_game("wait"), "france").person.email == "real@players.test"
        # The forged JOIN's token is no good any more: FRANCE is taken.
        forged_token = re.search(r"CONFIRM (\w+)", text_of(forged))
        assert forged_token is not None
        late = h.command(player("FRANCE"), f"CONFIRM {forged_token.group(1)}")
        assert "FRANCE is taken" in late
        # Proven now, the address joins another game at once.
        assert "created" in h.command(MASTER, "CREATE again masterpw RULES POWER_CHOICE")
        at_once = text_of(h.reply(h.send("real@players.test", "JOIN again pw-real ITALY")))
        assert "you joined again as italy" in at_once and "CONFIRM" not in at_once


# -- b: a player's answers switched off by another seat's mail ---------------------------


def test_mail_forged_from_a_player_and_signed_on_to_another_seat_spends_nothing_of_hers(
    guarded: Harness,
) -> None:
    """Before: 18 mails forged from France's address, signed on to the attacker's own seat
    (England), spent France's hour of answers (1 MB) and France's orders went unanswered."""
    h = guarded
    set_up_game(h, "bg")
    france = player("FRANCE")
    first = h.reply(h.send(france, "LIST"))
    h.reply(h.send(france, "LIST", in_reply_to=str(first["Message-ID"])))  # proven
    mark = len(h.sink.mails)
    forged = [h.send(france, f"SIGNON england@bg {secret('ENGLAND')}\n" + "HELP\n" * 39)
              for _ in range(18)]  # fmt: skip
    all_done(h, forged)
    got = to(h, france, mark)
    assert sum(len(m.raw) for m in got) <= CAPS.unproven_bytes_per_hour + 70 * 1024
    orders = f"SIGNON france@bg {secret('FRANCE')}\nA PAR - BUR"
    assert "A PAR - BUR" in h.command(france, orders)


def test_every_mail_the_judge_sends_counts_against_its_mailbox_s_cap(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """A phase's results and the clock's mail once counted against no cap. Now an address
    that never answered the judge (a master who never did, say) gets the small caps of
    the games' mail too: here a master forged from a stranger's address, whose game the
    forger processes one phase a mail."""
    caps = shipped(security_unproven_per_hour="3")
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, **caps) as h:
        HARNESSES.append(h)
        assert "created" in h.command(VICTIM, "CREATE forged masterpw")  # forged From
        for power in ("ENGLAND", "FRANCE"):
            h.command(player(power), f"JOIN forged {secret(power)}")
        h.command(ATTACKER, "SIGNON Mforged masterpw\nSTART")
        mark = len(h.sink.mails)
        for _ in range(6):  # one mail after the other: each processes one phase
            all_done(h, [h.send(ATTACKER, "SIGNON Mforged masterpw\nPROCESS!")])
        results = [m for m in to(h, VICTIM, mark) if "results" in m.subject]
        assert len(results) <= 3
        players = [m for m in to(h, player("ENGLAND"), mark) if "results" in m.subject]
        assert len(players) == 6  # a proven seat's address gets them all


# -- c: senders nobody checked -----------------------------------------------------------


def test_an_encoded_word_in_the_display_name_never_becomes_the_sender(guarded: Harness) -> None:
    """Before: ``=?utf-8?q?victim=40elsewhere=2Etest?= <attacker@evil.test>`` was read as
    From victim@ (after decoding), so a forged sender passed a DMARC-enforcing server."""
    h = guarded
    forged = "=?utf-8?q?victim=40elsewhere=2Etest?= <attacker@evil.test>"
    sent = raw_mail(h, [("From", forged)], "HELP\n")
    all_done(h, [sent])
    assert to(h, VICTIM) == []
    assert [m.rcpt_tos for m in h.replies_to(sent)] == [[ATTACKER]]


def test_a_mail_without_a_from_address_is_not_answered_at_its_reply_to(
    guarded: Harness,
) -> None:
    """Before: no From, and the answer went to a Reply-To nobody had proven."""
    h = guarded
    sent = raw_mail(h, [("Reply-To", VICTIM)], "HELP\nLIST\n")
    all_done(h, [sent])
    assert to(h, VICTIM) == [] and h.replies_to(sent) == []
    assert InboundMessage.get(InboundMessage.message_id == sent).state == "done"


def test_plus_address_variants_share_one_mailbox_s_caps(guarded: Harness) -> None:
    """Before: five variants box+1@ ... box+5@ got five hours' caps (15 answers, 1 MB).
    Now every cap counts per mailbox: one hour's bytes in all."""
    h = guarded
    variants = [f"box+{n}@plus.test" for n in range(5)] + ["BOX@Plus.test"]
    sent = [h.send(a, "HELP\n" * 39, subject=f"help {k}") for a in variants for k in range(4)]
    all_done(h, sent)
    got = [m for m in h.sink.mails if "plus.test" in m.rcpt_tos[0].lower()]
    print(f"\n[issue 52] {len(sent)} mails from 6 spellings of one mailbox: {len(got)} answers, "
          f"{sum(len(m.raw) for m in got)} bytes")  # fmt: skip
    assert sum(len(m.raw) for m in got) <= CAPS.unproven_bytes_per_hour + 16 * 1024
    assert len(got) <= CAPS.unproven_per_hour


def test_an_address_the_judge_cannot_write_to_is_never_queued(guarded: Harness) -> None:
    """Before: an answer to user@exämple.test sat in the outbox, retried for ever."""
    h = guarded
    sent = raw_mail(h, [("From", "user@exämple.test")], "HELP\n")
    all_done(h, [sent])
    assert not Outbox.select().where(Outbox.to_addrs.contains("mple.test")).exists()
    assert InboundMessage.get(InboundMessage.message_id == sent).state == "done"


# -- d: guessing -----------------------------------------------------------------------


def test_guessing_is_bounded_and_a_lucky_guess_sends_no_token_away(guarded: Harness) -> None:
    """Before: guesses from ever new addresses went on without end, and a right one after
    41 wrong still signed on, its SET ADDRESS sending the CONFIRM token to the guesser. Now
    after a few wrong passwords at a seat, a SIGNON from any other address than the seat's
    is not checked; one forged from the seat's own address still is (its player must never
    be locked out), but its SET ADDRESS sends the token to the seat's address only."""
    h = guarded
    set_up_game(h, "gd")
    guesses = [h.send(f"g{n}@guess{n}.test", f"SIGNON france@gd nope{n}\nSTATUS")
               for n in range(41)]  # fmt: skip
    all_done(h, guesses)
    answered = [m for m in h.sink.mails if m.in_reply_to in guesses]
    assert len(answered) <= CAPS.signon_lock_after
    mark = len(h.sink.mails)
    lucky = h.send(ATTACKER, f"SIGNON france@gd {secret('FRANCE')}\nSET ADDRESS {ATTACKER}")
    all_done(h, [lucky])
    assert to(h, ATTACKER, mark) == []  # neither an answer nor a token
    assert Confirmation.select().count() == 0  # no address waits to be confirmed
    # The player, from the seat's address, is never refused.
    orders = f"SIGNON france@gd {secret('FRANCE')}\nA PAR - BUR"
    assert "A PAR - BUR" in h.command(player("FRANCE"), orders)
    # Guesses forged from Germany's own address are checked; the right one's SET ADDRESS
    # sends its token to Germany's address, never to the guesser's.
    forged = [h.send(player("GERMANY"), f"SIGNON germany@gd nope{n}") for n in range(41)]
    all_done(h, forged)
    mark = len(h.sink.mails)
    hit = h.send(
        player("GERMANY"), f"SIGNON germany@gd {secret('GERMANY')}\nSET ADDRESS {ATTACKER}"
    )
    all_done(h, [hit])
    assert to(h, ATTACKER, mark) == []
    tokens = [m for m in to(h, player("GERMANY"), mark) if "confirm your new" in m.subject]
    assert len(tokens) == 1
    assert f"send this line from {ATTACKER}:" in " ".join(text_of(tokens[0].message).split())


# -- e: big mails ----------------------------------------------------------------------


def test_big_mails_are_refused_in_the_smtp_dialogue_and_cost_nobody(guarded: Harness) -> None:
    """Before: three mails of 9 MB (smtp.max_message_bytes was 10 MB) were stored, masked
    and read, and every answer waited 14-17 s. Now a mail over the SMTP limit (1 MiB by
    default, four times inbound.max_bytes) is refused with a reason before it is stored,
    said size or not; a player is answered as usual meanwhile."""
    h = guarded
    set_up_game(h, "ge")
    body = "SIGNON france@ge guess\n" * (2 * 1024 * 1024 // 23)  # 2 MB of short lines
    refusals = []
    for announced in (True, False):
        with smtplib.SMTP(LOOPBACK, h.judge.listener.smtp_port, timeout=60) as client:
            client.ehlo()
            if not announced:  # an attacker need not say the size at MAIL FROM
                client.esmtp_features.pop("size", None)
            with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as refused:
                client.sendmail(ATTACKER, [JUDGE], wire(h.mail(ATTACKER, body)))
            refusals.append(refused.value)
    for refusal in refusals:
        assert refusal.smtp_code == 552 and b"at most 1048576 bytes" in refusal.smtp_error
    assert "A VEN H" in h.command(player("ITALY"), f"SIGNON italy@ge {secret('ITALY')}\nA VEN H")
    assert not [row for row in InboundMessage.select() if len(row.raw) > 1024 * 1024]


# -- f: line forms that crashed the mail ------------------------------------------------

FORMS = {
    "PHASE F1901M\nIF " + "NOT " * 1500 + "A PAR\nA PAR - BUR\nENDIF": "nest more than",
    "VOTE EXTEND " + "9" * 5000 + "D": "is not a length",
    "DIARY READ " + "9" * 5000: "write DIARY READ n",
    "DIARY DELETE " + "1" * 30: "write DIARY DELETE n",
    "SET ZONE " + "a" * 300: "is not a time zone",
}
MASTER_FORMS = {
    "SET TIMING AT 12:00 " + "a" * 300: "is not a time zone",
    "SET TIMING MOVE 99999999999999999999D": "longer than",
    "SET DEADLINE 2027-01-01 12:00 " + "a" * 300: "is not a date this judge reads",
}


def test_the_line_forms_that_crashed_a_mail_are_refused_with_a_reason(
    tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> None:
    """Before: each of these shunted its mail unanswered, the password left in clear in the
    database and its WAL; ``?tz=`` of 300 letters gave the web a 500."""
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port=str(free_port())) as h:
        HARNESSES.append(h)
        set_up_game(h, "gf")
        signon = f"SIGNON france@gf {secret('FRANCE')}\n"
        sent = {h.send(player("FRANCE"), signon + form): why for form, why in FORMS.items()}
        sent |= {h.send(MASTER, f"SIGNON Mgf masterpw\n{form}"): why
                 for form, why in MASTER_FORMS.items()}  # fmt: skip
        create = h.send(
            "maker@players.test", "CREATE gz zq-create\nTIMING MOVE " + "9" * 5000 + "D"
        )
        sent[create] = "longer than"
        for message_id, why in sent.items():
            answer = text_of(h.reply(message_id))
            assert why in answer, answer
            assert InboundMessage.get(InboundMessage.message_id == message_id).state == "done"
        url = f"http://{LOOPBACK}:{h.judge.web_port}/games/gf?tz={'a' * 300}"
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
        database = tmp_path / "judge.db"

        def in_clear() -> list[str]:
            files = b"".join(p.read_bytes() for p in tmp_path.iterdir()
                             if p.name.startswith(database.name))  # fmt: skip
            return [pw for pw in (secret("FRANCE"), "masterpw", "zq-create")
                    if pw.encode() in files]  # fmt: skip

        h.wait_until(lambda: not in_clear(), 20, "the passwords to leave the database files")


# -- g: the Reply token -----------------------------------------------------------------

MTA = "mx.judge.test"
DKIM = f"{MTA}; dkim=pass header.d=players.test header.s=mail"
SPF = f"{MTA}; spf=pass smtp.mailfrom={player('ENGLAND')}"
LOOPBACK_RECEIVED = f"from localhost (localhost [127.0.0.1]) by {MTA} (Postfix) with ESMTP id 4X"
REMOTE_RECEIVED = f"from mail.players.test (mail.players.test [203.0.113.9]) by {MTA} (Postfix)"
TOKEN = re.compile(r"TOKEN:[A-Z2-7]{16}")


@pytest.fixture
def tokened(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    before = settings._CURRENT
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, security_trusted_authserv_id=MTA,
                       security_token_key="round3-key") as h:  # fmt: skip
        HARNESSES.append(h)
        yield h
    settings.use_settings(before)  # type: ignore[arg-type]


def _england_token(h: Harness) -> str:
    """The token of England's newest ready-to-send block."""
    for mail in reversed(h.sink.mails):
        found = (
            TOKEN.search(text_of(mail.message)) if mail.rcpt_tos == [player("ENGLAND")] else None
        )
        if found:
            return found.group(0)
    raise LookupError("no token mailed to England")


def _as_england(
    h: Harness,
    body: str,
    verdict: str | None,
    received: str | None = None,
    calendar: bool = False,
) -> str:
    """A mail from England's address as the MTA hands it on (its verdict on top); the
    answer's text, "" when none comes."""
    msg = EmailMessage()
    if verdict is not None:
        msg["Authentication-Results"] = verdict
    if received is not None:
        msg["Received"] = received
    msg["From"], msg["To"], msg["Subject"] = player("ENGLAND"), JUDGE, "Re: results"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg.set_content(body + "\n")
    if calendar:
        msg.add_alternative(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REPLY\r\nPRODID:-//t//t//EN\r\n"
            "BEGIN:VEVENT\r\nUID:deadline@judge\r\nDTSTAMP:20261121T120000Z\r\n"
            f"ATTENDEE;PARTSTAT=ACCEPTED:mailto:{player('ENGLAND')}\r\nEND:VEVENT\r\n"
            "END:VCALENDAR\r\n", subtype="calendar", params={"method": "REPLY"},
        )  # fmt: skip
    raw = wire(msg)
    # Not in h.delivered: the secrecy check would take the token for a password, and the
    # judge's own mail carries it by design.
    with smtplib.SMTP(LOOPBACK, h.judge.listener.smtp_port, timeout=30) as client:
        client.sendmail(player("ENGLAND"), [JUDGE], raw)
    sent = str(msg["Message-ID"])
    all_done(h, [sent])
    replies = h.replies_to(sent)
    return text_of(replies[0].message) if replies else ""


def _orders() -> list[str]:
    return [line.text for line in orders_on_file(get_game("rt")).get("ENGLAND", [])]


def test_a_rollback_does_not_bring_back_the_token_of_the_phase_it_restores(
    tokened: Harness,
) -> None:
    """Before: F1901M's token filed orders again once a ROLLBACK brought F1901M back."""
    h = tokened
    set_up_game(h, "rt")
    master = "SIGNON Mrt masterpw\n"
    assert "processed" in h.command(MASTER, master + "PROCESS!")
    h.wait_until(lambda: TOKEN.search(text_of(last_mail_to(h, player("ENGLAND"), "results"))))
    old = _england_token(h)
    assert "processed" in h.command(MASTER, master + "PROCESS!")
    assert "rolled back to F1901M" in h.command(MASTER, master + "ROLLBACK F1901M")
    answer = _as_england(h, f"SIGNON england@rt {old}\nF LON - NTH", DKIM)
    assert "no longer) good" in answer and _orders() == [], answer
    assert "F LON - NTH" in h.command(player("ENGLAND"),
                                      f"SIGNON england@rt {secret('ENGLAND')}\nF LON - NTH")  # fmt: skip


def test_a_token_mail_with_more_than_orders_files_nothing(tokened: Harness) -> None:
    """Before: a PHASE line in a token mail was refused, and the order after it (meant for
    that later phase) was filed for this one."""
    h = tokened
    set_up_game(h, "rt")
    h.command(MASTER, "SIGNON Mrt masterpw\nPROCESS!")
    h.wait_until(lambda: TOKEN.search(text_of(last_mail_to(h, player("ENGLAND"), "results"))))
    token = _england_token(h)
    answer = _as_england(h, f"SIGNON england@rt {token}\nPHASE S1902M\nF LON - ENG", DKIM)
    assert "none of it was filed" in answer and _orders() == [], answer
    answer = _as_england(h, f"SIGNON england@rt {token}\nF LON - ENG", DKIM)
    assert _orders() == ["F LON - ENG"], answer


def test_spf_for_a_mail_from_the_judge_s_own_host_proves_nothing(tokened: Harness) -> None:
    """Before: as deploy/README set OpenDMARC up, SPF passed any sender connecting from
    loopback, and a token alone filed a seat's orders. Now from the MTA's own host only a
    DKIM signature counts."""
    h = tokened
    set_up_game(h, "rt")
    h.command(MASTER, "SIGNON Mrt masterpw\nPROCESS!")
    h.wait_until(lambda: TOKEN.search(text_of(last_mail_to(h, player("ENGLAND"), "results"))))
    token = _england_token(h)
    orders = f"SIGNON england@rt {token}\nF LON - NTH"
    answer = _as_england(h, orders, SPF, LOOPBACK_RECEIVED)
    assert "could not prove" in answer and _orders() == [], answer
    local = "by mx.judge.test (Postfix, from userid 1000) id 4X"  # sendmail on the host
    assert "could not prove" in _as_england(h, orders, SPF, local) and _orders() == []
    _as_england(h, orders, SPF, REMOTE_RECEIVED)  # the same SPF pass from a remote client
    assert _orders() == ["F LON - NTH"]
    _as_england(h, f"SIGNON england@rt {token}\nF LON - ENG", DKIM, LOOPBACK_RECEIVED)
    assert _orders() == ["F LON - ENG"]  # DKIM proves the domain wherever the mail came from


def test_a_calendar_accept_that_carries_orders_is_answered(tokened: Harness) -> None:
    """Before: a calendar's Accept whose text held a SIGNON and orders was dropped without
    a word. A bare Accept still gets no answer."""
    h = tokened
    set_up_game(h, "rt")
    answer = _as_england(h, f"SIGNON england@rt {secret('ENGLAND')}\nF LON - NTH", None,
                         calendar=True)  # fmt: skip
    assert "F LON - NTH" in answer and _orders() == ["F LON - NTH"], answer
    assert _as_england(h, "Accepted: the deadline", None, calendar=True) == ""


def test_a_backup_holds_no_live_token_and_a_restore_voids_those_sent(
    tokened: Harness, tmp_path: Path
) -> None:
    """Before: a backup held every token the outbox had sent, live."""
    h = tokened
    set_up_game(h, "rt")
    h.command(MASTER, "SIGNON Mrt masterpw\nPROCESS!")
    h.wait_until(lambda: TOKEN.search(text_of(last_mail_to(h, player("ENGLAND"), "results"))))
    token = _england_token(h)
    copy = tmp_path / "copy.db"
    backup(h.judge.settings.database.url, copy)
    assert not TOKEN.search(copy.read_bytes().decode("latin-1"))
    assert reply_tokens.token_for(get_game("rt"), seat_named(get_game("rt"), "england")) == token
    restored = tmp_path / "restored.db"
    restore(f"sqlite:///{restored}", copy)
    before = db.database_proxy.obj
    db.connect(f"sqlite:///{restored}")
    try:
        game = get_game("rt")
        assert reply_tokens.token_for(game, seat_named(game, "england")) != token
    finally:
        db.close()
        db.database_proxy.initialize(before)

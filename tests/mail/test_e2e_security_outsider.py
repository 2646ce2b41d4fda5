"""Issue 38 by real SMTP: an outsider (any From, Reply-To and headers, no password) at a
judge with the shipped security settings. Each test states the figure it must stay under:
mails and bytes to the address attacked, and the seconds a real player waits for an
answer while the attack runs. Every figure is printed (pytest -s -n 0 shows them)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers.e2e import (
    HARNESSES,
    JUDGE,
    MASTER,
    POWERS,
    Harness,
    join_by_mail,
    player,
    seated,
    set_up_game,
    text_of,
)

from mailjudge.config.settings import InboundSettings, SecuritySettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.game import guard
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import Confirmation, Game, InboundMessage
from mailjudge.variants.democratic.citizens import citizen_addresses, citizens, country_of
from mailjudge.variants.democratic.country_lists import list_address
from mailjudge.variants.democratic.tables import ListPost

CAPS = SecuritySettings()
VICTIM = "victim@elsewhere.test"


@pytest.fixture
def guarded(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Harness]:
    """A judge with the shipped security settings and reply limit."""
    shipped = {
        "security_unproven_per_hour": str(CAPS.unproven_per_hour),
        "security_unproven_bytes_per_hour": str(CAPS.unproven_bytes_per_hour),
        "security_proven_bytes_per_hour": str(CAPS.proven_bytes_per_hour),
        "security_same_mail_answers": str(CAPS.same_mail_answers),
        "outbound_reply_limit": "120",
    }
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, **shipped) as h:
        HARNESSES.append(h)
        yield h


def to(h: Harness, address: str, since: int = 0) -> list[Any]:
    return [m for m in h.sink.mails[since:] if address in m.rcpt_tos]


def figure(h: Harness, what: str, address: str, since: int = 0) -> tuple[int, int]:
    """Mails and bytes that reached `address` since mail number `since`; printed."""
    mails = to(h, address, since)
    total = sum(len(m.raw) for m in mails)
    print(f"\n[issue 38] {what}: {len(mails)} mails, {total} bytes to {address}")
    return len(mails), total


def all_done(h: Harness, sent: list[str], timeout: float = 300.0) -> None:
    """Every mail in `sent` stored and handled, and the outbox flushed."""
    h.wait_until(
        lambda: (
            InboundMessage.select()
            .where(InboundMessage.message_id.in_(sent) & (InboundMessage.state == "done"))
            .count()
            == len(sent)
        ),
        timeout,
        f"{len(sent)} mails handled",
    )
    time.sleep(1.0)
    h.judge.work_once()


def answered_in(h: Harness, sender: str, text: str) -> tuple[str, float]:
    """A real player's mail and how long its answer took. While an attack runs the answer
    comes and files the orders: a lock-out would refuse them, a stall leave the mail
    unanswered (the harness's wait for the answer then fails). The time is printed, not
    held to a bound."""
    started = time.monotonic()
    reply = h.command(sender, text)
    return reply, time.monotonic() - started


def prove(h: Harness, address: str) -> None:
    """`address` answers a mail the judge sent it (a round trip): then it is proven."""
    first = h.reply(h.send(address, "LIST"))
    h.reply(h.send(address, "LIST\nSTATUS", in_reply_to=str(first["Message-ID"])))
    assert guard.is_proven(address)


def test_guesses_forged_from_the_players_own_address_lock_nobody_out(guarded: Harness) -> None:
    """Point 2. Before: three guesses forged from France's address refused France's right
    password for 60 s, twenty for an hour. Now the password is checked first."""
    h = guarded
    set_up_game(h, "g1")
    table = seated(h, "g1")
    mark = len(h.sink.mails)
    sent = [h.send(player("FRANCE"), f"SIGNON france@g1 guess{n}\nA PAR - PIC") for n in range(25)]
    sent += [h.send(MASTER, f"SIGNON Mg1 guess{n}\nPAUSE") for n in range(25)]
    all_done(h, sent)
    # Under guessing, a right password from another address is not even checked (issue 52:
    # guesses are bounded per seat), and unanswered: a guesser learns nothing.
    elsewhere = h.send("traveller@elsewhere.test", f"{table.signon('FRANCE')}\nA PAR - GAS")
    all_done(h, [elsewhere])
    assert h.replies_to(elsewhere) == []
    reply, waited = answered_in(h, player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - BUR")
    print(f"\n[issue 38] France's answer after 25 forged guesses: {waited:.2f} s")
    assert "ERROR" not in reply
    assert [o.text for o in orders_on_file(get_game("g1"))["FRANCE"]] == ["A PAR - BUR"]
    assert "signed on as master" in h.command(MASTER, "SIGNON Mg1 masterpw\nSTATUS")
    # The guesses cost France at most a few answers and one notice, whatever their number.
    guesses = [m for m in to(h, player("FRANCE"), mark) if m.message["In-Reply-To"] in sent]
    notices = [m for m in to(h, player("FRANCE"), mark)
               if "wrong password" in str(m.message["Subject"])]  # fmt: skip
    mails, size = figure(h, "25 guesses forged from France", player("FRANCE"), mark)
    assert len(guesses) <= CAPS.signon_slow_after and len(notices) <= 1
    assert size < 64 * 1024 and mails <= CAPS.signon_slow_after + 4  # + France's two answers
    assert get_game("g1").state == "active"  # no forged PAUSE went through


def test_a_guessers_answers_never_reach_its_trusted_reply_to(guarded: Harness) -> None:
    """Point 8. Before: ~23,000 guesses an hour, answered at one trusted Reply-To. Now a
    mail whose SIGNON fails is answered at its From only, and beyond a few per seat not
    at all."""
    h = guarded
    set_up_game(h, "g8")
    collector = "collector@evil.test"
    prove(h, collector)
    mark = len(h.sink.mails)
    sent = [h.send(f"g{n}@forged{n}.test", f"SIGNON italy@g8 guess{n}\nA VEN H",
                   reply_to=collector) for n in range(40)]  # fmt: skip
    all_done(h, sent)
    mails, _ = figure(h, "40 guesses with a trusted Reply-To", collector, mark)
    assert mails == 0
    answered = [m for m in h.sink.mails[mark:] if m.message["In-Reply-To"] in sent]
    print(f"[issue 38] guesses answered at all: {len(answered)} of 40")
    assert len(answered) <= CAPS.signon_lock_after


def test_an_observe_token_goes_only_to_the_address_it_subscribes(guarded: Harness) -> None:
    """Point 3. Before: the token went to a Reply-To that once signed on, and a forged
    CONFIRM then subscribed a stranger."""
    h = guarded
    set_up_game(h, "g3")
    friend, stranger = "friend@fans.test", "stranger@nowhere.test"
    prove(h, friend)
    mark = len(h.sink.mails)
    sent = h.send(stranger, "OBSERVE s@g3 pwobs", reply_to=friend)
    all_done(h, [sent])
    assert not [m for m in to(h, friend, mark) if "CONFIRM" in text_of(m.message)]
    figure(h, "an OBSERVE with the attacker's Reply-To", friend, mark)
    (token_mail,) = to(h, stranger, mark)
    assert re.search(r"CONFIRM \w+", text_of(token_mail.message))


def test_a_password_proves_no_address_and_every_address_has_a_byte_cap(
    guarded: Harness,
) -> None:
    """Point 4. Before: a forged CREATE + SIGNON made the victim's address trusted, and
    one 532-byte mail of 40 MAP commands sent it 41 mails, 9.0 MB; five, 45 MB."""
    h = guarded
    for name in ("m1", "m2", "m3"):
        set_up_game(h, name)
    mark = len(h.sink.mails)
    maps = "\n".join(f"MAP m{1 + n % 3}" for n in range(37))
    sent = [h.send(VICTIM, f"CREATE bomb{n} pwbomb\nSIGNON Mbomb{n} pwbomb\n{maps}")
            for n in range(5)]  # fmt: skip
    all_done(h, sent)
    assert not guard.is_proven(VICTIM)
    _mails, size = figure(h, "five MAP bombs after a forged CREATE", VICTIM, mark)
    pictures = [m for m in to(h, VICTIM, mark) if " map " in str(m.message["Subject"])]
    print(f"[issue 38] pictures among them: {len(pictures)}")
    assert sum(len(m.raw) for m in pictures) <= CAPS.unproven_bytes_per_hour
    assert size <= CAPS.unproven_bytes_per_hour + 5 * 16 * 1024  # + the five short answers


def test_mail_from_others_never_spends_a_players_answers(guarded: Harness) -> None:
    """Point 6. Before: 118 mails from random Froms with Reply-To France sent France 7.7 MB
    of HELP and used up France's hour of answers; France's orders then got none."""
    h = guarded
    set_up_game(h, "g6")
    table = seated(h, "g6")
    prove(h, player("FRANCE"))  # the strongest case: a Reply-To the judge honours
    mark = len(h.sink.mails)
    sent = [h.send(f"r{n}@random{n % 7}.test", "HELP", reply_to=player("FRANCE"))
            for n in range(130)]  # fmt: skip
    all_done(h, sent)
    mails, size = figure(h, "130 HELPs with Reply-To France", player("FRANCE"), mark)
    assert mails <= CAPS.unproven_per_hour and size <= CAPS.unproven_bytes_per_hour
    reply, waited = answered_in(h, player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - BUR")
    print(f"[issue 38] France's answer after it: {waited:.2f} s")
    assert "ERROR" not in reply


def test_errors_never_go_to_a_forged_reply_to(guarded: Harness) -> None:
    """Point 8. Before: the too-long-mail error went to a forged Reply-To (30 mails a
    minute to a stranger)."""
    h = guarded
    lines = InboundSettings().max_lines + 10
    sent = [h.send(f"s{n}@spam.test", "HELP\n" * lines, reply_to=VICTIM) for n in range(30)]
    all_done(h, sent)
    mails, _ = figure(h, "30 too-long mails with a forged Reply-To", VICTIM)
    assert mails == 0
    assert to(h, "s0@spam.test")  # the error goes to the From


def test_forty_creates_in_one_mail_cost_three(guarded: Harness) -> None:
    """Point 8. Before: 40 CREATEs in one 829-byte mail held the write lock 20 s (a slow
    hash each). Now at most security.max_password_commands such commands a mail."""
    h = guarded
    creates = "\n".join(f"CREATE c{n} pw{n}" for n in range(40))
    started = time.monotonic()
    reply = h.command("maker@somewhere.test", creates)
    print(f"\n[issue 38] 40 CREATEs answered in {time.monotonic() - started:.2f} s")
    assert Game.select().count() == CAPS.max_password_commands
    assert f"at most {CAPS.max_password_commands} commands that set a password" in reply


def test_a_confirmation_token_expires(guarded: Harness) -> None:
    """Point 8. Before: a CONFIRM token was good for ever."""
    h = guarded
    set_up_game(h, "g7")
    watcher = "late@fans.test"
    token = re.search(r"CONFIRM (\w+)", h.command(watcher, "OBSERVE late@g7 pwlate"))
    assert token is not None
    old = Confirmation.get(Confirmation.token == token.group(1))
    old.created_at -= timedelta(hours=CAPS.confirm_hours + 1)
    old.save()
    assert "no longer good" in h.command(watcher, f"CONFIRM {token.group(1)}")


def test_an_auto_responder_without_headers_gets_a_few_answers(guarded: Harness) -> None:
    """Point 8. Before: a responder that sets no auto-reply header kept a loop going at
    120 mails an hour. Now the same text from one address is answered a few times."""
    h = guarded
    robot = "robot@vacation.test"
    text = "I am away until Monday.\nYour mail will be read when I am back."
    sent = [h.send(robot, text, subject=f"Re: answer {n}") for n in range(20)]
    all_done(h, sent)
    mails, _ = figure(h, "20 identical mails from a responder", robot)
    # The answers, and one notice that the text is not answered again within the hour.
    held = [m for m in to(h, robot) if m.message["Subject"] == "answers held"]
    assert mails == CAPS.same_mail_answers + 1 and len(held) == 1


def test_forged_citizens_join_no_list_and_a_long_post_goes_nowhere(guarded: Harness) -> None:
    """Point 5. Before: 100 forged citizens got 14 mails each in the hour (cap 10), and one
    224 KB press became 20.2 MB to 100 addresses, which the digest then sent again. Now a
    citizen is one only once its address answers its CONFIRM token, and a list post is at
    most security.list_post_bytes."""
    h = guarded
    assert "created" in h.command(MASTER, "CREATE dem masterpw VARIANT democratic")
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    for name in names:
        assert "joined" in join_by_mail(h, f"{name}@citizens.test", f"JOIN dem pw-{name} AS {name}")
    assert "started" in h.command(MASTER, "SIGNON Mdem masterpw\nSTART").lower()
    game = get_game("dem")
    forged = [f"f{n}@forged{n % 5}.test" for n in range(30)]
    sent = [h.send(a, f"JOIN dem pw{n} AS f{n}") for n, a in enumerate(forged)]
    all_done(h, sent)
    assert not any(a in citizen_addresses(game, p) for p in POWERS for a in forged)
    author = next(s for s in citizens(game) if s.name == "alice")
    power = country_of(author)
    assert power is not None
    mark = len(h.sink.mails)
    long_post = "\n".join(["x" * 999] * 224)  # 224 KB
    posted = h.send("alice@citizens.test", f"SIGNON alice@dem pw-alice\n{long_post}",
                    to=list_address(game, power))  # fmt: skip
    assert f"at most {CAPS.list_post_bytes} bytes" in text_of(h.reply(posted))
    all_done(h, [posted])
    out = sum(len(m.raw) for m in h.sink.mails[mark:])
    print(f"\n[issue 38] a 224 KB list post: {len(h.sink.mails) - mark} mails, {out} bytes out")
    assert out < 16 * 1024  # the refusal only
    assert not ListPost.select().where(ListPost.game == game, ListPost.author == "alice").exists()
    for address in forged:
        assert len(to(h, address)) <= 1  # the JOIN's answer with its token, nothing else

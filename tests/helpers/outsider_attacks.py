"""Issue 52 point 5, "the outsider, round three": each attack run against a real judge on
loopback (its SMTP listener, SQLite, the relay a sink), with the security settings it
ships with, and measured. The same command measures the code before a fix and after it:

    .venv/bin/python tests/helpers/outsider_attacks.py            # every attack, standard map
    .venv/bin/python tests/helpers/outsider_attacks.py a b --map chaos

It prints, for each attack, what reached the addresses attacked (mails, bytes), how long
the attacking mail held the write transaction, how long an innocent player waited for an
answer meanwhile, and what the attack achieved. The tests (test_e2e_security_round3*.py)
assert the outcomes; this script only measures (figures vary with the machine).

It drives the judge only by mail (and the web's one page, and `mailjudge backup`), so the
same script runs on an older checkout: PYTHONPATH=/path/to/old/checkout.
"""

from __future__ import annotations

import argparse
import logging
import re
import smtplib
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from mailjudge.app.runner import Judge
from mailjudge.config.settings import SecuritySettings
from mailjudge.demo.mailroom import Harness, judge_settings, wire
from mailjudge.demo.sink import LOOPBACK, MailSink, free_port, text_of
from mailjudge.secrecy import passwords
from mailjudge.store.models import InboundMessage, Outbox

JUDGE = "judge@example.test"
MASTER = "master@example.test"
ATTACKER = "attacker@evil.test"
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
CAPS = SecuritySettings()
MTA = "mx.judge.test"  # the authserv-id the tokened judge trusts
TOKEN = re.compile(r"TOKEN:[A-Z2-7]{16}")


def player(power: str) -> str:
    return f"{power.lower()}@players.test"


def secret(power: str) -> str:
    return f"pw-{power.lower()}-7"


# -- the judge and the means to mail it ---------------------------------------------------


class PipelineLog(logging.Handler):
    """The pipeline's one line a mail: how long each mail held its transaction."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def held_ms(self, message_id: str) -> float | None:
        for line in self.lines:
            if line.startswith(f"mail {message_id} "):
                found = re.search(r", (\d+) ms$", line)
                return float(found.group(1)) if found else None
        return None


LOG = PipelineLog()
WORKERS = 0  # --workers: answering in processes of their own, as `mailjudge serve` does


@contextmanager
def judge(**extra: str) -> Iterator[Harness]:
    """A judge with the shipped caps (as tests/mail/test_e2e_security_outsider.py's `guarded`)."""
    shipped = {
        "security_unproven_per_hour": str(CAPS.unproven_per_hour),
        "security_unproven_bytes_per_hour": str(CAPS.unproven_bytes_per_hour),
        "security_proven_bytes_per_hour": str(CAPS.proven_bytes_per_hour),
        "security_same_mail_answers": str(CAPS.same_mail_answers),
        "outbound_reply_limit": "120",
        **extra,
    }
    pipeline = logging.getLogger("mailjudge.app.pipeline")
    pipeline.setLevel(logging.INFO)
    pipeline.propagate = False  # its line a mail is read here, not printed
    pipeline.addHandler(LOG)
    with tempfile.TemporaryDirectory(prefix="outsider-") as folder, MailSink() as sink:
        settings = judge_settings(Path(folder) / "judge.db", sink.port, JUDGE, **shipped)
        running = Judge(settings, free_ports=True, workers=WORKERS)
        running.start()
        try:
            yield Harness(running, sink)
        finally:
            running.stop()
            pipeline.removeHandler(LOG)


def done(h: Harness, sent: list[str], timeout: float = 600.0) -> None:
    """Every mail of `sent` handled (or shunted), and the outbox given a moment to flush."""

    def finished() -> bool:
        rows = InboundMessage.select().where(InboundMessage.message_id.in_(sent))
        return sum(1 for row in rows if row.state in ("done", "shunted")) == len(sent)

    h.wait_until(finished, timeout, f"{len(sent)} mails handled")
    flushed(h)


def flushed(h: Harness, timeout: float = 120.0) -> None:
    """Until the outbox holds nothing it would send now."""
    time.sleep(0.5)
    h.wait_until(
        lambda: not Outbox.select().where(Outbox.state == "queued", Outbox.attempts == 0).exists(),
        timeout,
        "the outbox to flush",
    )
    time.sleep(0.5)


def answer(h: Harness, sender: str, text: str, timeout: float = 600.0, **headers: str) -> str:
    return text_of(h.reply(h.send(sender, text, **headers), timeout))


def confirm_if_asked(h: Harness, address: str, reply: str) -> str:
    """A real person answers a CONFIRM token the judge sent them (the JOIN of a judge that
    asks for one); the answer to it, or "" when none was asked."""
    token = re.search(r"CONFIRM (\w+)", reply)
    if token is None:
        return ""
    return answer(h, address, f"CONFIRM {token.group(1)}")


def join(h: Harness, address: str, text: str) -> str:
    """JOIN as a real person would: answering the CONFIRM token if the judge asks."""
    reply = answer(h, address, text)
    return reply + "\n" + confirm_if_asked(h, address, reply)


def prove(h: Harness, address: str) -> None:
    """`address` answers a mail the judge sent it (a round trip)."""
    first = h.reply(h.send(address, "LIST"))
    h.reply(h.send(address, "LIST", in_reply_to=str(first["Message-ID"])))


def set_up(h: Harness, game: str, extra: str = "") -> None:
    """The master's game with the seven players of POWERS, each confirmed, started."""
    assert "created" in answer(h, MASTER, f"CREATE {game} masterpw RULES POWER_CHOICE {extra}")
    for power in POWERS:
        assert "joined" in join(h, player(power), f"JOIN {game} {secret(power)} {power}")
    flushed(h)


def to(h: Harness, addresses: list[str], since: int = 0) -> list[Any]:
    wanted = {a.lower() for a in addresses}
    return [m for m in h.sink.mails[since:] if wanted & {r.lower() for r in m.rcpt_tos}]


def size(mails: list[Any]) -> int:
    return sum(len(m.raw) for m in mails)


def waited(h: Harness, sender: str, text: str, timeout: float = 900.0) -> float:
    started = time.monotonic()
    h.reply(h.send(sender, text), timeout)
    return time.monotonic() - started


def raw_mail(h: Harness, envelope_from: str, raw: bytes) -> str:
    """Mail raw bytes to the judge; the Message-ID they carry."""
    with smtplib.SMTP(LOOPBACK, h.judge.listener.smtp_port, timeout=600) as client:
        client.sendmail(envelope_from, [JUDGE], raw)
    found = re.search(rb"Message-ID: (<[^>]+>)", raw)
    assert found is not None
    return found.group(1).decode()


Figures = dict[str, object]


# -- a: unbounded mail to strangers ------------------------------------------------------


def attack_a(map_name: str = "standard", phases: int = 39) -> Figures:
    """Forged JOINs from seven strangers' addresses into the attacker's game, then PROCESS!
    `phases` times in one mail; an innocent player's LIST right behind it."""
    victims = [f"stranger{n}@victims.test" for n in range(7)]
    with judge() as h:
        created = answer(h, ATTACKER, f"CREATE atk atkpw MAP {map_name}")
        assert "created" in created, created
        mark = len(h.sink.mails)
        done(h, [h.send(v, f"JOIN atk pw{n}") for n, v in enumerate(victims)])
        answer(h, ATTACKER, "SIGNON Matk atkpw\nSTART")
        bomb = h.send(ATTACKER, "SIGNON Matk atkpw\n" + "PROCESS!\n" * phases)
        innocent = waited(h, "innocent@players.test", "LIST")
        done(h, [bomb])
        reply = text_of(h.reply(bomb))
        got = to(h, victims, mark)
        answers = [m for m in got if m.message["In-Reply-To"]]
        return {
            "map": map_name,
            "mails to the 7 strangers": len(got),
            "bytes to them": size(got),
            "of which answers to their forged JOINs": len(answers),
            "game mail to them (results, notices)": len(got) - len(answers),
            "phases processed by the one mail": reply.count(" processed; "),
            "PROCESS! refused in that mail": " ".join(reply.split()).count("one mail processes"),
            "seconds the mail held the transaction": _seconds(LOG.held_ms(bomb)),
            "seconds an innocent LIST waited": round(innocent, 1),
        }


def _seconds(ms: float | None) -> object:
    return "?" if ms is None else round(ms / 1000, 1)


# -- b: a player's answers switched off by forged mail signed on to another seat ---------


def attack_b(mails: int = 18) -> Figures:
    """The attacker plays England; 18 mails forged from France's address sign on as
    England and ask for 39 HELPs each. Then France sends orders."""
    with judge() as h:
        set_up(h, "bg")
        victim = player("FRANCE")
        prove(h, victim)
        mark = len(h.sink.mails)
        bombs = [h.send(victim, f"SIGNON england@bg {secret('ENGLAND')}\n" + "HELP\n" * 39)
                 for _ in range(mails)]  # fmt: skip
        done(h, bombs)
        got = to(h, [victim], mark)
        inbound = sum(len(InboundMessage.get(InboundMessage.message_id == b).raw) for b in bombs)
        try:
            own = waited(h, victim, f"SIGNON france@bg {secret('FRANCE')}\nA PAR - BUR", 30)
            answered: object = round(own, 1)
        except TimeoutError:
            answered = "never (30 s)"
        return {
            "forged mails": mails,
            "bytes of them": inbound,
            "mails to France caused by them": len(got),
            "bytes to France caused by them": size(got),
            "France's own orders answered after (s)": answered,
        }


# -- c: senders nobody checked ---------------------------------------------------------


def _raw(headers: list[tuple[str, str]], body: str) -> bytes:
    lines = [f"{name}: {value}" for name, value in headers]
    lines += ["Subject: commands", f"Message-ID: {make_msgid(domain='outsider.test')}", "To: "
              + JUDGE, "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", ""]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n" + body.replace("\n", "\r\n")).encode("utf-8")


def attack_c() -> Figures:
    figures: Figures = {}
    with judge() as h:
        # c1: an encoded word in the display name spells the victim's address.
        victim = "victim@elsewhere.test"
        forged = "=?utf-8?q?victim=40elsewhere=2Etest?= <attacker@evil.test>"
        sent = raw_mail(h, ATTACKER, _raw([("From", forged)], "HELP\n"))
        done(h, [sent])
        figures["c1 encoded word: answers to the victim"] = len(to(h, [victim]))
        figures["c1 encoded word: answers to the real From"] = len(to(h, [ATTACKER]))
        # c2: no From address at all, a Reply-To the judge never heard from.
        stranger = "replyto@elsewhere.test"
        sent = raw_mail(h, ATTACKER, _raw([("Reply-To", stranger)], "HELP\n"))
        done(h, [sent])
        figures["c2 no From: answers to the unproven Reply-To"] = len(to(h, [stranger]))
        # c3: five plus-address variants of one mailbox, 12 mails of 39 HELPs each.
        box = [f"box+{n}@plus.test" for n in range(5)]
        started = time.monotonic()
        sent = [h.send(a, "HELP\n" * 39, subject=f"help {k}") for a in box for k in range(12)]
        done(h, sent)
        got = to(h, box)
        figures["c3 plus variants: mails to the one mailbox"] = len(got)
        figures["c3 plus variants: bytes to it"] = size(got)
        figures["c3 plus variants: seconds"] = round(time.monotonic() - started, 1)
        # c4: a non-ASCII domain.
        utf8 = "user@exämple.test"
        sent = raw_mail(h, "user@example.test", _raw([("From", utf8)], "HELP\n"))
        done(h, [sent])
        time.sleep(2)
        stuck = Outbox.select().where(Outbox.to_addrs.contains("mple.test"))
        figures["c4 non-ASCII domain: answers queued"] = stuck.count()
        figures["c4 non-ASCII domain: their states"] = sorted({str(r.state) for r in stuck})
    return figures


# -- d: guessing ------------------------------------------------------------------------


def attack_d(guesses: int = 60) -> Figures:
    figures: Figures = {}
    with judge() as h:
        set_up(h, "gd")
        # Guesses from as many addresses: how fast, and how many are answered at all.
        started = time.monotonic()
        sent = [h.send(f"g{n}@guess{n}.test", f"SIGNON italy@gd wrong{n}\nSTATUS")
                for n in range(guesses)]  # fmt: skip
        done(h, sent)
        seconds = time.monotonic() - started
        figures["d guesses from as many addresses"] = guesses
        figures["d guesses handled per second"] = round(guesses / seconds, 1)
        answered = [m for m in h.sink.mails if m.message["In-Reply-To"] in sent]
        figures["d guesses answered"] = len(answered)
        # A right guess after 41 wrong ones from other addresses: does it still sign on,
        # and where does its SET ADDRESS token go?
        done(h, [h.send(f"w{n}@wrong{n}.test", f"SIGNON france@gd nope{n}") for n in range(41)])
        mark = len(h.sink.mails)
        right = h.send(ATTACKER, f"SIGNON france@gd {secret('FRANCE')}\nSET ADDRESS {ATTACKER}")
        done(h, [right])
        tokens = [m for m in to(h, [ATTACKER], mark) if "CONFIRM" in text_of(m.message)]
        figures["d right guess after 41 wrong: CONFIRM tokens to the attacker"] = len(tokens)
        replies = h.replies_to(right)
        figures["d right guess after 41 wrong: its answer"] = (
            f"to {replies[0].rcpt_tos[0]}: {_gist(text_of(replies[0].message))}"
            if replies
            else "none"
        )
        # The same, forged from France's own address (its answer goes to France).
        mark = len(h.sink.mails)
        done(h, [h.send(player("GERMANY"), f"SIGNON germany@gd nope{n}") for n in range(41)])
        forged = h.send(player("GERMANY"),
                        f"SIGNON germany@gd {secret('GERMANY')}\nSET ADDRESS {ATTACKER}")  # fmt: skip
        done(h, [forged])
        tokens = [m for m in to(h, [ATTACKER], mark) if "CONFIRM" in text_of(m.message)]
        figures["d right guess forged from the seat's address: tokens to the attacker"] = len(
            tokens
        )
    return figures


def _gist(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    keep = [line for line in lines if "signed on" in line or "ERROR" in line or "token" in line]
    return " / ".join(keep)[:300]


# -- e: big mails -----------------------------------------------------------------------


def attack_e(count: int = 3, megabytes: int = 9, probes: int = 12) -> Figures:
    """`count` mails of `megabytes` MB each, mailed at once; a player's orders mailed every
    few seconds meanwhile, each timed to its answer."""
    with judge() as h:
        set_up(h, "ge")
        # Short lines: the listener reads a mail a line at a time, the masking looks at
        # every SIGNON line, the reader at every line.
        line = "SIGNON france@ge guess\n"
        body = line * (megabytes * 1024 * 1024 // len(line))

        def big(n: int) -> None:
            msg = h.mail(ATTACKER, body)
            data = wire(msg)
            data_sizes.append(len(data))
            try:
                with smtplib.SMTP(LOOPBACK, h.judge.listener.smtp_port, timeout=600) as client:
                    client.ehlo()
                    # An attacker does not say the size up front (MAIL FROM ... SIZE=n),
                    # which would let a server refuse the mail before its DATA.
                    client.esmtp_features.pop("size", None)
                    client.sendmail(ATTACKER, [JUDGE], data)
                outcomes.append("accepted")
                big_ids.append(str(msg["Message-ID"]))
            except smtplib.SMTPException as err:
                outcomes.append(f"refused: {str(err)[:80]}")

        outcomes: list[str] = []
        data_sizes: list[int] = []
        big_ids: list[str] = []
        started = time.monotonic()
        senders = [threading.Thread(target=big, args=(n,)) for n in range(count)]
        for thread in senders:
            thread.start()
        latencies = []
        for n in range(probes):
            latencies.append(waited(h, player("ITALY"), f"SIGNON italy@ge {secret('ITALY')}\n"
                                    f"A VEN H\n// probe {n}"))  # fmt: skip
            time.sleep(2)
        for thread in senders:
            thread.join()
        done(h, big_ids)
        attack_seconds = time.monotonic() - started
        held = [_seconds(LOG.held_ms(b)) for b in big_ids]
        return {
            "big mails": f"{count} x {megabytes} MB ({len(data_sizes) and max(data_sizes)} bytes)",
            "SMTP outcome": outcomes,
            "stored rows over 1 MB": sum(
                1 for row in InboundMessage.select() if len(row.raw) > 1024 * 1024
            ),
            "probe answers (s)": [round(x, 1) for x in latencies],
            "slowest probe answer (s)": round(max(latencies), 1),
            "seconds each big mail held its transaction": held,
            "seconds until the big mails were handled": round(attack_seconds, 1),
        }


# -- f: line forms that crash the mail ---------------------------------------------------

FORMS = {
    "IF with 1,500 NOTs": "PHASE F1901M\nIF " + "NOT " * 1500 + "A PAR\nA PAR - BUR\nENDIF",
    "VOTE EXTEND of 5,000 digits": "VOTE EXTEND " + "9" * 5000 + "D",
    "DIARY READ of 5,000 digits": "DIARY READ " + "9" * 5000,
    "DIARY DELETE of 30 digits": "DIARY DELETE " + "1" * 30,
    "SET ZONE of 300 letters": "SET ZONE " + "a" * 300,
}
MASTER_FORMS = {"SET TIMING AT 12:00 and 300 letters": "SET TIMING AT 12:00 " + "a" * 300}
CREATE_FORMS = {"CREATE with a huge timing line": "TIMING MOVE " + "9" * 5000 + "D"}


def attack_f() -> Figures:
    figures: Figures = {}
    web = free_port()
    with judge(web_port=str(web)) as h:
        set_up(h, "gf")
        sent: dict[str, str] = {}
        for name, form in FORMS.items():
            sent[name] = h.send(player("FRANCE"), f"SIGNON france@gf {secret('FRANCE')}\n{form}")
        for name, form in MASTER_FORMS.items():
            sent[name] = h.send(MASTER, f"SIGNON Mgf masterpw\n{form}")
        for name, form in CREATE_FORMS.items():
            sent[name] = h.send("maker@players.test", f"CREATE gz zq-create-pw\n{form}")
        done(h, list(sent.values()))
        database = Path(str(h.judge.settings.database.url).removeprefix("sqlite:///"))
        time.sleep(4)  # the judge empties its WAL a moment after masking
        files = b"".join(
            p.read_bytes() for p in database.parent.iterdir() if p.name.startswith(database.name)
        )
        for name, message_id in sent.items():
            row = InboundMessage.get(InboundMessage.message_id == message_id)
            replies = h.replies_to(message_id)
            said = _gist_error(text_of(replies[0].message)) if replies else "no answer"
            figures[f"f {name}"] = f"{row.state}; {said}"
        for pw in (secret("FRANCE"), "masterpw", "zq-create-pw"):
            figures[f"f password {pw!r} in clear in the database files"] = pw.encode() in files
        url = f"http://{LOOPBACK}:{h.judge.web_port}/games/gf?tz={'a' * 300}"
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                figures["f web ?tz= of 300 letters"] = response.status
        except urllib.error.HTTPError as err:
            figures["f web ?tz= of 300 letters"] = err.code
    return figures


def _gist_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "ERROR" in line or "not " in line]
    return (errors[-1] if errors else lines[-1] if lines else "")[:140]


# -- g: the Reply token -----------------------------------------------------------------


def _token_reply(
    h: Harness,
    sender: str,
    body: str,
    verdict: str | None,
    *,
    received: str | None = None,
    in_reply_to: str | None = None,
    calendar: bool = False,
) -> tuple[str, str]:
    msg = EmailMessage()
    if verdict is not None:
        msg["Authentication-Results"] = verdict
    if received is not None:
        msg["Received"] = received
    msg["From"], msg["To"], msg["Subject"] = sender, JUDGE, "Re: your results"
    msg["Message-ID"] = make_msgid(domain="players.test")
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    msg.set_content(body + "\n")
    if calendar:
        ics = (
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REPLY\r\nPRODID:-//x//y//EN\r\n"
            "BEGIN:VEVENT\r\nUID:deadline@judge\r\nDTSTAMP:20261121T120000Z\r\n"
            f"ATTENDEE;PARTSTAT=ACCEPTED:mailto:{sender}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
        msg.add_alternative(ics, subtype="calendar", params={"method": "REPLY"})
    message_id = raw_mail(h, sender, wire(msg))
    try:
        return message_id, text_of(h.reply(message_id, 30))
    except TimeoutError:
        return message_id, ""


def _england_orders(game: str) -> list[str]:
    from mailjudge.game.state import get_game, orders_on_file

    return [o.text for o in orders_on_file(get_game(game)).get("ENGLAND", [])]


def _latest_token(h: Harness, game: str) -> str:
    for mail in reversed(h.sink.mails):
        if mail.rcpt_tos == [player("ENGLAND")]:
            found = TOKEN.search(text_of(mail.message))
            if found and f"england@{game}" in text_of(mail.message):
                return found.group(0)
    raise LookupError("no token mailed to England")


def attack_g() -> Figures:
    from mailjudge.game.state import get_game
    from mailjudge.tools.backup import backup

    figures: Figures = {}
    dkim = f"{MTA}; dkim=pass header.d=players.test header.s=mail"
    spf = f"{MTA}; spf=pass smtp.mailfrom={player('ENGLAND')}"
    england = f"SIGNON england@rt {secret('ENGLAND')}\n"
    with judge(security_trusted_authserv_id=MTA, security_token_key="outsider-key") as h:
        set_up(h, "rt")
        master = "SIGNON Mrt masterpw\n"
        answer(h, MASTER, master + "PROCESS!")  # S1901M; its results carry F1901M's token
        flushed(h)
        live = _latest_token(h, "rt")
        # g2: a PHASE line in a token mail, an order after it.
        _, said = _token_reply(
            h, player("ENGLAND"), f"SIGNON england@rt {live}\nPHASE S1902M\nF LON - ENG", dkim
        )
        figures["g2 PHASE S1902M in a token mail: orders filed for F1901M"] = _england_orders("rt")
        figures["g2 answer"] = _gist(said)
        answer(h, player("ENGLAND"), england + "CLEAR")
        # g4: SPF passed for a client on loopback (a local user on the judge's host).
        local = f"from localhost (localhost [127.0.0.1]) by {MTA} (Postfix) with ESMTP id 4X"
        _, said = _token_reply(h, player("ENGLAND"), f"SIGNON england@rt {live}\nF LON - NTH",
                               spf, received=local)  # fmt: skip
        figures["g4 token with spf=pass from 127.0.0.1: orders filed"] = (
            "F LON - NTH" in _england_orders("rt")
        )
        figures["g4 answer"] = _gist(said)
        answer(h, player("ENGLAND"), england + "CLEAR")
        # g5: a calendar Accept whose text carries orders.
        _, said = _token_reply(h, player("ENGLAND"), england + "F LON - NTH", None, calendar=True)
        figures["g5 calendar Accept with orders: answered"] = bool(said)
        figures["g5 calendar Accept with orders: filed"] = "F LON - NTH" in _england_orders("rt")
        answer(h, player("ENGLAND"), england + "CLEAR")
        # g3: the backup.
        copy = Path(tempfile.mkdtemp(prefix="outsider-backup-")) / "copy.db"
        backup(str(h.judge.settings.database.url), copy)
        held = set(TOKEN.findall(copy.read_bytes().decode("latin-1")))
        figures["g3 distinct tokens in the backup"] = len(held)
        figures["g3 the live token in the backup"] = live in held
        # g1: the phase processed, then rolled back to: its token again.
        answer(h, MASTER, master + "PROCESS!")  # F1901M: the token is dead
        answer(h, MASTER, master + "ROLLBACK F1901M")
        flushed(h)
        _, said = _token_reply(h, player("ENGLAND"), f"SIGNON england@rt {live}\nF LON - NTH",
                               dkim)  # fmt: skip
        figures["g1 F1901M's token after PROCESS and ROLLBACK: orders filed"] = (
            "F LON - NTH" in _england_orders("rt")
        )
        figures["g1 answer"] = _gist(said)
        figures["g phase now"] = get_game("rt").phase
    return figures


ATTACKS: dict[str, Callable[..., Figures]] = {
    "a": attack_a, "b": attack_b, "c": attack_c, "d": attack_d, "e": attack_e,
    "f": attack_f, "g": attack_g,
}  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("attacks", nargs="*", metavar="ATTACK", help="a to g (default: all)")
    parser.add_argument("--map", default="standard", help="attack a's map (chaos, ...)")
    parser.add_argument("--workers", type=int, default=0,
                        help="answering processes (serve's default is 1; 0: threads)")  # fmt: skip
    parser.add_argument("--cheap-scrypt", action="store_true",
                        help="scrypt at the tests' low cost (quicker; guesses look faster)")  # fmt: skip
    args = parser.parse_args(argv)
    unknown = [name for name in args.attacks if name not in ATTACKS]
    if unknown:
        parser.error(f"no attack {', '.join(unknown)}: choose among {', '.join(sorted(ATTACKS))}")
    global WORKERS
    WORKERS = args.workers
    if args.cheap_scrypt:
        passwords.SCRYPT_N = 2**10
    logging.basicConfig(level=logging.WARNING)
    for name in args.attacks or sorted(ATTACKS):
        started = time.monotonic()
        figures = attack_a(args.map) if name == "a" else ATTACKS[name]()
        print(f"\n== attack {name} ({time.monotonic() - started:.0f} s)", flush=True)
        for key, value in figures.items():
            print(f"   {key}: {value}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Playing by mail against a judge on loopback: the demo's and the end-to-end tests' table.

A real judge (its aiosmtpd listener on a free 127.0.0.1 port, SQLite in a given file)
relays everything it sends to a `MailSink`; players write to it with smtplib and read
their answers from the sink.
"""

from __future__ import annotations

import email.policy
import re
import smtplib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from mailjudge.app.runner import Judge
from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.demo.sink import LOOPBACK, MailSink, Received, text_of

Deliver = Callable[[str, bytes], None]
# A JOIN line in a mail, and the token the judge's answer asks its address to CONFIRM.
_JOIN_LINE = re.compile(r"^\s*(TOURNAMENT\s+)?JOIN\s", re.IGNORECASE | re.MULTILINE)
_JOIN_TOKEN = re.compile(r"^\s*CONFIRM (\w+)$", re.MULTILINE)


def judge_settings(database: Path, relay_port: int, address: str, **extra: str) -> Settings:
    """A judge on loopback: SQLite in `database`, its mail out to the relay on `relay_port`.
    Only these values count, not the caller's MAILJUDGE_* environment. `extra` takes keys
    as SECTION_KEY (`smtp_lmtp_port="8024"`)."""
    environ = {
        "MAILJUDGE_JUDGE_ADDRESS": address,
        "MAILJUDGE_DATABASE_URL": f"sqlite:///{database}",
        "MAILJUDGE_OUTBOUND_HOST": LOOPBACK,
        "MAILJUDGE_OUTBOUND_PORT": str(relay_port),
        # Scripted players write faster than people: no per-address reply limit.
        "MAILJUDGE_OUTBOUND_REPLY_LIMIT": "0",
        # ... and mail many times an hour before they first sign on.
        "MAILJUDGE_SECURITY_UNPROVEN_PER_HOUR": "100000",
        "MAILJUDGE_SECURITY_UNPROVEN_BYTES_PER_HOUR": "1000000000",
        "MAILJUDGE_SECURITY_PROVEN_BYTES_PER_HOUR": "1000000000",
        "MAILJUDGE_SECURITY_SAME_MAIL_ANSWERS": "100000",
        # No web pages unless a test asks for them (web_port="8080"; free_ports picks one).
        "MAILJUDGE_WEB_PORT": "0",
    }
    environ.update({f"MAILJUDGE_{k.upper()}": v for k, v in extra.items()})
    return load_settings(None, environ)


def wire(msg: EmailMessage) -> bytes:
    """The message as it travels: CRLF line ends (smtplib sends bytes as they are)."""
    return msg.as_bytes(policy=email.policy.SMTP)


class Harness:
    """A judge, its relay, and the means to mail it and wait for its answers."""

    def __init__(self, judge: Judge, sink: MailSink, deliver: Deliver | None = None) -> None:
        self.judge = judge
        self.sink = sink
        self.address = judge.settings.judge.address
        self._deliver = deliver or self._smtp
        self.delivered: list[bytes] = []  # every mail the players sent, as sent

    def deliver(self, sender: str, raw: bytes) -> None:
        self.delivered.append(raw)
        self._deliver(sender, raw)

    def _smtp(self, sender: str, raw: bytes) -> None:
        port = self.judge.listener.smtp_port
        if port is None:
            raise RuntimeError("the judge's SMTP listener is off: give the harness a deliver")
        with smtplib.SMTP(LOOPBACK, port, timeout=10) as client:
            client.sendmail(sender, [self.address], raw)

    def mail(
        self, sender: str, text: str, subject: str = "commands", **headers: str
    ) -> EmailMessage:
        domain = sender.rpartition("@")[2] or "localhost"
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = headers.pop("to", self.address)
        msg["Subject"] = subject
        msg["Message-ID"] = headers.pop("message_id", make_msgid(domain=domain))
        for name, value in headers.items():
            msg[name.replace("_", "-")] = value
        msg.set_content(text)
        return msg

    def send(self, sender: str, text: str, **headers: str) -> str:
        """Mail `text` to the judge; returns the Message-ID its answer will refer to."""
        msg = self.mail(sender, text, **headers)
        self.deliver(sender, wire(msg))
        return str(msg["Message-ID"])

    def replies_to(self, message_id: str) -> list[Received]:
        """The judge's answers to a mail (a list's copies of a post thread under it too,
        but they are the list's, not answers: they carry a List-Id)."""
        return [m for m in self.sink.mails if m.in_reply_to == message_id and not m.list_id]

    def reply(self, message_id: str, timeout: float = 60.0) -> EmailMessage:
        self.wait_until(
            lambda: bool(self.replies_to(message_id)), timeout, f"a reply to {message_id}"
        )
        return self.replies_to(message_id)[0].message

    def command(self, sender: str, text: str) -> str:
        """Mail commands and return the text of the judge's reply. A JOIN the judge keeps
        waiting for its CONFIRM (an address new to it) is confirmed, as its player would:
        the answer to the CONFIRM follows the JOIN's in the text returned."""
        body = text_of(self.reply(self.send(sender, text)))
        assert isinstance(body, str)
        token = _JOIN_TOKEN.search(body) if _JOIN_LINE.search(text) else None
        if token is not None:
            confirmed = text_of(self.reply(self.send(sender, f"CONFIRM {token.group(1)}")))
            body += "\n" + str(confirmed)
        return body

    def wait_until(
        self,
        check: Callable[[], object],
        timeout: float = 60.0,
        what: str = "the judge to get there",
    ) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.02)
        raise TimeoutError(f"waited {timeout:.0f}s for {what}")

    def results_for(self, game: str, phase: str) -> list[Received]:
        return [m for m in self.sink.mails if m.subject == f"[{game}] results {phase}"]


@contextmanager
def running_judge(
    database: Path, sink: MailSink, address: str, free_ports: bool = True, **extra: str
) -> Iterator[Harness]:
    """A judge on loopback, stopped afterwards; it listens on free ports unless told
    `free_ports=False` (then on the ports its settings name)."""
    judge = Judge(judge_settings(database, sink.port, address, **extra), free_ports=free_ports)
    judge.start()
    try:
        yield Harness(judge, sink)
    finally:
        judge.stop()

"""A mail sink on loopback: the relay the judge sends to in the demo and the tests.

A real SMTP server (aiosmtpd) on 127.0.0.1 that keeps every mail it is given, and when told
a folder, also writes each one there as an .eml file a mail program can open. It can be
stopped and started again on the same port, as a relay that goes down and comes back.
"""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage
from functools import cached_property
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

LOOPBACK = "127.0.0.1"


def text_of(message: EmailMessage) -> str:
    """The text part of a mail, one part or many (results mails carry HTML and pictures)."""
    body = message.get_body(preferencelist=("plain",))
    # Python keeps the CRLF of quoted-printable text; mail clients show plain lines.
    return "" if body is None else str(body.get_content()).replace("\r\n", "\n")


def free_port() -> int:
    """A port nobody listens on right now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, timeout: float = 60) -> None:
    """Until a server listens on the loopback port (a judge started as a process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((LOOPBACK, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes

    @cached_property
    def message(self) -> EmailMessage:
        """The parsed mail (parsed once: waiting loops read it again and again)."""
        parsed = email.message_from_bytes(self.raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    # The headers waiting loops look for, read once (the email package parses a header
    # anew on each read).
    @cached_property
    def subject(self) -> str:
        return str(self.message["Subject"] or "")

    @cached_property
    def in_reply_to(self) -> str:
        return str(self.message["In-Reply-To"] or "")

    @cached_property
    def list_id(self) -> str:
        return str(self.message["List-Id"] or "")


class _Recorder:
    """The aiosmtpd handler: keeps each mail, in order, and wakes whoever waits for one."""

    def __init__(self, sink: MailSink) -> None:
        self.sink = sink

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        refusal = self.sink.refusal(address)
        if refusal:
            return refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        number = self.sink.keep(
            Received(
                envelope.mail_from or "", list(envelope.rcpt_tos), envelope.original_content or b""
            )
        )
        # Worded as Postfix words it: the sender keeps the relay's reply (STATUS shows it).
        return f"250 2.0.0 Ok: queued as sink-{number}"


class _Controller(Controller):
    def _trigger_server(self) -> None:
        # aiosmtpd's own start-up probe; done by hand so that it always uses IPv4 loopback.
        with socket.create_connection((LOOPBACK, self.port), timeout=1.0) as probe:
            probe.recv(1024)


def _file_name(number: int, mail: Received) -> str:
    rcpt = mail.rcpt_tos[0] if mail.rcpt_tos else "nobody"
    return f"{number:04d}-{re.sub(r'[^A-Za-z0-9@.+-]', '_', rcpt)}.eml"


class MailSink:
    """Keeps what it receives in `mails`; with `folder`, writes NNNN-RECIPIENT.eml too."""

    def __init__(self, folder: Path | None = None) -> None:
        self.port = free_port()
        self.folder = folder
        self.mails: list[Received] = []
        self.changed = threading.Condition()
        self._controller: _Controller | None = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def refusal(self, address: str) -> str | None:
        """The SMTP answer refusing a recipient, or None to take it (tests refuse some)."""
        return None

    def keep(self, mail: Received) -> int:
        """Keep ``mail``; its number, from 1."""
        with self.changed:
            self.mails.append(mail)
            number = len(self.mails)
            if self.folder is not None:
                (self.folder / _file_name(number, mail)).write_bytes(mail.raw)
            self.changed.notify_all()
            return number

    def start(self) -> None:
        self._controller = _Controller(_Recorder(self), hostname=LOOPBACK, port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def __enter__(self) -> MailSink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Received]:
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.mails) >= count, timeout):
                raise TimeoutError(
                    f"expected {count} mails within {timeout}s, got {len(self.mails)}"
                )
            return list(self.mails)

"""Handing mail to an SMTP relay. The outbox decides when; this only sends or raises."""

from __future__ import annotations

import contextlib
import re
import smtplib
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from mailjudge.config.settings import DkimSettings, OutboundSettings
from mailjudge.outbound.dkim_sign import DkimSigner


@dataclass(frozen=True)
class Handed:
    """A mail the relay took: its final reply in its own words ("250 2.0.0 Ok: queued as
    4Xyz", which names the mail in the relay's log) and the recipients it refused."""

    reply: str
    refused: dict[str, tuple[int, bytes]] = field(default_factory=dict)


class Sender(Protocol):
    def send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None = None) -> Handed:
        """Send one mail (bounces going to `envelope_from`, by default the judge's own
        address); returns the relay's reply and the recipients it refused (others were
        taken), raises when the mail was not taken at all."""
        ...


class PermanentFailure(Exception):
    """The relay refused the mail for good (5xx); retrying will not help."""


def is_permanent(error: BaseException) -> bool:
    """True when this mail will never be taken: every recipient or the content refused
    with 5xx. Anything else (network, 4xx, a refused login or sender address, which are
    the judge's configuration and get fixed) is worth a retry."""
    if isinstance(error, PermanentFailure):
        return True
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(500 <= code < 600 for code, _ in error.recipients.values())
    if isinstance(error, smtplib.SMTPDataError):
        return 500 <= error.smtp_code < 600
    return False


# Seconds a relay connection may lie idle before it is checked with NOOP ahead of a mail:
# in a burst mails follow each other closely and go without one.
IDLE_CHECK = 0.5


class SmtpSender:
    """smtplib with one connection kept open between mails (reopened after a failure).

    The envelope sender is the judge's address: bounces come back to the judge, whose
    loop checks keep it from answering them. One mail at a time: threads sharing a sender
    take turns (an SMTP session interleaved between two threads answers each with the
    other's replies).
    """

    def __init__(
        self,
        host: str,
        port: int,
        envelope_from: str,
        *,
        starttls: bool = False,
        user: str | None = None,
        password: str | None = None,
        timeout: float = 30.0,
        ssl_context: ssl.SSLContext | None = None,
        signer: DkimSigner | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.envelope_from = envelope_from
        self.starttls = starttls
        self.user = user
        self.password = password
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.signer = signer
        self._smtp: smtplib.SMTP | None = None
        self._last_used = 0.0  # time.monotonic() of the connection's last command
        self._turn = threading.RLock()  # held while the connection is in use

    @classmethod
    def from_settings(
        cls, settings: OutboundSettings, envelope_from: str, dkim: DkimSettings | None = None
    ) -> SmtpSender:
        domain = envelope_from.rpartition("@")[2]
        return cls(
            settings.host,
            settings.port,
            envelope_from,
            starttls=settings.starttls,
            user=settings.user,
            password=settings.password,
            timeout=settings.timeout_seconds,
            signer=DkimSigner.from_settings(dkim, domain) if dkim is not None else None,
        )

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is not None:
            return self._smtp
        smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            smtp.ehlo()
            if self.starttls:
                smtp.starttls(context=self.ssl_context or ssl.create_default_context())
                smtp.ehlo()
            if self.user is not None:
                smtp.login(self.user, self.password or "")
        except BaseException:
            smtp.close()
            raise
        self._smtp = smtp
        return smtp

    def send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None = None) -> Handed:
        with self._turn:
            return self._send(raw, to_addrs, envelope_from)

    def _send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None) -> Handed:
        idle = time.monotonic() - self._last_used
        if self._smtp is not None and idle > IDLE_CHECK and not self._still_open(self._smtp):
            # The relay dropped the idle connection (Postfix says 421 after 5 quiet
            # minutes): not a failure of this mail, so connect again before sending it.
            # A connection used a moment ago is trusted: a NOOP before every mail of a
            # burst would double its round trips.
            self.close()
        self._last_used = time.monotonic()
        if self.signer is not None:
            raw = self.signer.sign(raw)
        try:
            return hand_over(self._connection(), envelope_from or self.envelope_from, to_addrs, raw)
        except smtplib.SMTPRecipientsRefused:
            # The session is still good: only this mail's recipients were refused.
            self._reset()
            raise
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _still_open(smtp: smtplib.SMTP) -> bool:
        """NOOP answered 250: the session is alive. A relay that timed the session out
        has already written its 421, which NOOP reads back instead of raising."""
        try:
            code, _ = smtp.noop()
        except (smtplib.SMTPException, OSError):
            return False
        return code == 250

    def _reset(self) -> None:
        try:
            if self._smtp is not None:
                self._smtp.rset()
        except (smtplib.SMTPException, OSError):
            self.close()

    def close(self) -> None:
        with self._turn:
            smtp, self._smtp = self._smtp, None
            if smtp is None:
                return
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                smtp.close()

    def __enter__(self) -> SmtpSender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def hand_over(smtp: smtplib.SMTP, envelope_from: str, to_addrs: list[str], raw: bytes) -> Handed:
    """One SMTP transaction, as ``smtplib.SMTP.sendmail`` makes it (the same commands, the
    same exceptions for the same replies, the session reset or closed alike), keeping the
    reply to DATA that sendmail drops."""
    smtp.ehlo_or_helo_if_needed()
    size = f" SIZE={len(raw)}" if smtp.does_esmtp and smtp.has_extn("size") else ""
    # smtp.mail and smtp.rcpt, with the addresses put in angle brackets by `angled`.
    smtp.putcmd("mail", f"FROM:{angled(envelope_from)}{size}")
    code, text = smtp.getreply()
    if code != 250:
        _end_transaction(smtp, code)
        raise smtplib.SMTPSenderRefused(code, text, envelope_from)
    refused: dict[str, tuple[int, bytes]] = {}
    for address in to_addrs:
        smtp.putcmd("rcpt", f"TO:{angled(address)}")
        code, text = smtp.getreply()
        if code not in (250, 251):
            refused[address] = (code, text)
        if code == 421:
            smtp.close()
            raise smtplib.SMTPRecipientsRefused(refused)
    if len(refused) == len(to_addrs):
        _end_transaction(smtp, code)  # the last refusal, not 421: that raised above
        raise smtplib.SMTPRecipientsRefused(refused)
    code, text = smtp.data(raw)
    if code != 250:
        _end_transaction(smtp, code)
        raise smtplib.SMTPDataError(code, text)
    words = " ".join(text.decode("utf-8", "replace").split())
    return Handed(f"{code} {words}", refused)


# A plain address (a dot-atom, @, a domain of letters, digits and hyphens): what
# smtplib.quoteaddr gives it is the address in angle brackets. Its parse, character by
# character, was a third of the sender's time in SMTP (the judge's VERP address is long).
_PLAIN_ADDRESS = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
)


def angled(address: str) -> str:
    """``smtplib.quoteaddr(address)``, without its parse for a plain address."""
    if _PLAIN_ADDRESS.fullmatch(address):
        return f"<{address}>"
    return smtplib.quoteaddr(address)


def _end_transaction(smtp: smtplib.SMTP, code: int) -> None:
    """After a refusal: a relay that said 421 is closing the session; otherwise the
    transaction is reset for the next mail (a failed RSET closes the session)."""
    if code == 421:
        smtp.close()
        return
    with contextlib.suppress(smtplib.SMTPServerDisconnected):
        smtp.rset()

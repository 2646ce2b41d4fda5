"""The inbound SMTP and LMTP listener (aiosmtpd): refuse early, accept cheaply.

Unknown recipients are refused at RCPT with 550; an accepted mail is only stored in
the spool (in a worker thread: the event loop never waits on the database) and
answered 250. Nothing about games happens inside the SMTP transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from mailjudge.addresses import is_judge_address
from mailjudge.config.logs import fault_told, log_fault
from mailjudge.config.settings import Settings
from mailjudge.inbound import spool
from mailjudge.store.models import InboundMessage
from mailjudge.store.outages import unusable

log = logging.getLogger(__name__)

RecipientCheck = Callable[[str], bool]
StoreFunction = Callable[[bytes, str, list[str], str], tuple[InboundMessage, bool]]
# The same, awaited on the listener's event loop (group_store.GroupStore.store_async).
AsyncStoreFunction = Callable[[bytes, str, list[str], str], Awaitable[tuple[InboundMessage, bool]]]

TEMPORARY_FAILURE = "451 4.3.0 Mail not stored, please try again later"
SHUTTING_DOWN = "421 4.3.2 The judge is stopping; please try again later"


class PortInUse(OSError):
    """Another program (another judge?) listens on the port already."""

    def __init__(self, source: str, host: str, port: int) -> None:
        super().__init__(f"{source.upper()} port {port} is in use on {host}: is another "
                         "judge running? Stop it, or set smtp.port to a free port")  # fmt: skip


def judge_recipients(judge_address: str, also: RecipientCheck | None = None) -> RecipientCheck:
    """Accept the judge's address, its judge+DETAIL@ sub-addresses, and whatever `also`
    accepts (for example the country lists the judge runs)."""

    def accepts(address: str) -> bool:
        return is_judge_address(address, judge_address) or (also is not None and also(address))

    return accepts


class SpoolHandler:
    """aiosmtpd handler for both SMTP and LMTP.

    `recipient_ok` may touch the database, so it runs in a worker thread too; only the
    judge's own addresses are recognised on the event loop itself. A mail is stored by
    `store_async` when given (it must not block the loop), else by `store` in a thread.
    """

    def __init__(
        self,
        judge_address: str,
        recipient_ok: RecipientCheck | None = None,
        *,
        source: str = "smtp",
        store: StoreFunction = spool.store,
        store_async: AsyncStoreFunction | None = None,
    ) -> None:
        self.judge_address = judge_address
        self.recipient_ok = recipient_ok
        self.source = source
        self.store = store
        self.store_async = store_async
        self.lmtp = source == "lmtp"
        self.closing = False  # while the judge stops: new mail is turned away with 421
        self.storing = 0  # mails between DATA and their answer: a stop waits for them

    async def _accepts(self, address: str) -> bool:
        if is_judge_address(address, self.judge_address):
            return True
        if self.recipient_ok is None:
            return False
        return await asyncio.to_thread(self.recipient_ok, address)

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if self.closing:
            return SHUTTING_DOWN
        try:
            accepted = await self._accepts(address)
        except Exception as err:
            if unusable(err) is None:  # an outage is logged once, where it was found
                log.exception("recipient check failed for %s", address)
            return "451 4.3.0 Cannot check this recipient now, please try again later"
        if not accepted:
            return f"550 5.1.1 <{address}>: no such mailbox here"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def _stored(
        self, raw: bytes, mail_from: str, recipients: list[str]
    ) -> tuple[InboundMessage, bool]:
        if self.store_async is not None:
            return await self.store_async(raw, mail_from, recipients, self.source)
        return await asyncio.to_thread(self.store, raw, mail_from, recipients, self.source)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        recipients = list(envelope.rcpt_tos)
        mail_from = envelope.mail_from or ""
        self.storing += 1
        try:
            row, new = await self._stored(raw, mail_from, recipients)
        except Exception as err:
            # An outage is logged once, where it was found; any other fault in a line.
            if unusable(err) is None and not fault_told(err):
                log_fault(log, f"a mail from {mail_from} not stored, answered 451", err)
            status = TEMPORARY_FAILURE
        else:
            what = "stored" if new else "already stored"
            # A mail kept in the landing has no spool number yet (inbound.landing).
            number = row.__data__.get("id")
            status = f"250 2.0.0 Message {what}" + (f" as #{number}" if number else "")
        finally:
            self.storing -= 1
        if self.lmtp:
            # LMTP answers once per accepted recipient (RFC 2033 4.2); the mail is one
            # judge mail whoever it was addressed to, so every answer is the same.
            return "\r\n".join(status for _ in recipients)
        return status


# <local@domain> as nearly every client sends it: both parts dot-atoms of RFC 5322 atext,
# then nothing, or white space and the parameters. aiosmtpd reads every address with the
# email package's header parser and a typing.Protocol class it makes anew for each call
# (a third of the event loop's time in `bench mail`); these it would read the same way.
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+"
_DOT_ATOM = rf"{_ATEXT}(?:\.{_ATEXT})*"
_PLAIN_PATH = re.compile(rf"<({_DOT_ATOM}@{_DOT_ATOM})>(?:[ \t]\s*(?=[^\s(])(.*))?", re.DOTALL)


def plain_path(arg: str) -> tuple[str, str] | None:
    """(address, parameters) of a MAIL or RCPT argument in the plain form; None for any
    other form (aiosmtpd reads those)."""
    found = _PLAIN_PATH.fullmatch(arg)
    if found is None:
        return None
    return found.group(1), found.group(2) or ""


class _JudgeSMTP(SMTP):
    """aiosmtpd's session, reading plain addresses quickly (tests/mail/test_inbound_smtp_paths.py
    holds the two readings to the same answers)."""

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        plain = plain_path(arg)
        if plain is None or (
            self.local_part_limit and len(plain[0].rpartition("@")[0]) > self.local_part_limit
        ):
            return super()._getaddr(arg)
        return plain

    async def push(self, status: Any) -> None:
        # aiosmtpd's words for a mail over the size limit name no limit and no remedy; the
        # sender's server quotes this line in the bounce its writer reads.
        too_big = ("552 Error: Too much mail data", "552 Error: message size")
        if isinstance(status, str) and status.startswith(too_big):
            status = (
                f"552 5.3.4 the judge reads mails of at most {self.data_size_limit} bytes; "
                "send the commands without attachments or quoted text"
            )
        await super().push(status)


class _JudgeLMTP(_JudgeSMTP, LMTP):
    pass


class _Controller(Controller):
    """A Controller that may listen on port 0 (a free port, for tests) and speak LMTP."""

    def __init__(self, handler: SpoolHandler, host: str, port: int, **kwargs: Any) -> None:
        super().__init__(handler, hostname=host, port=port, **kwargs)
        self.lmtp = handler.lmtp

    def factory(self) -> SMTP:
        if self.lmtp:
            return _JudgeLMTP(self.handler, **self.SMTP_kwargs)
        return _JudgeSMTP(self.handler, **self.SMTP_kwargs)

    def _trigger_server(self) -> None:
        # Controller.start() connects once so that aiosmtpd builds its server object;
        # with port 0 that needs the port the system chose first.
        if self.port == 0 and isinstance(self.server, asyncio.Server):
            self.port = self.server.sockets[0].getsockname()[1]
        with socket.create_connection((self.hostname, self.port), timeout=1.0) as probe:
            probe.recv(1024)

    def start(self) -> None:
        try:
            super().start()
        except BaseException:
            # aiosmtpd leaves the event loop of a server that could not start open; it is
            # closed here, not by the collector as the process ends (where closing it
            # once failed and printed a traceback after the one-line refusal).
            if self._thread is not None:
                self._thread.join(timeout=SESSIONS_END_WAIT)
            if not self.loop.is_running() and not self.loop.is_closed():
                self.loop.close()
            raise

    def stop(self, no_assert: bool = False) -> None:
        # aiosmtpd cancels the sessions' tasks and closes the loop a step later; a session
        # not finished by then is destroyed while pending, and asyncio writes that to the
        # judge's log. Ended here, its client gets no 250 and sends the mail again.
        if self.loop.is_running():
            ended = asyncio.run_coroutine_threadsafe(self._end_sessions(), self.loop)
            with contextlib.suppress(Exception):
                ended.result(timeout=SESSIONS_END_WAIT)
        super().stop(no_assert)

    async def _end_sessions(self) -> None:
        """Take no more connections, then cancel every session on this loop and wait
        until each has finished."""
        if isinstance(self.server, asyncio.Server):
            self.server.close()
        this = asyncio.current_task()
        while sessions := [task for task in asyncio.all_tasks() if task is not this]:
            for task in sessions:
                task.cancel()
            await asyncio.gather(*sessions, return_exceptions=True)


SESSIONS_END_WAIT = 5.0  # seconds for the cancelled sessions to finish, at a stop


class Listener:
    """The SMTP listener, and the LMTP one when smtp.lmtp_port is set (port 0 turns
    either off). `smtp_port` and `lmtp_port` tell the ports in use once started."""

    def __init__(
        self,
        settings: Settings,
        recipient_ok: RecipientCheck | None = None,
        *,
        store: StoreFunction = spool.store,
        store_async: AsyncStoreFunction | None = None,
        free_ports: bool = False,
    ) -> None:
        """`free_ports`: bind the enabled listeners to ports the system picks (tests).
        `store_async`: how a mail is stored instead of `store` (see SpoolHandler)."""
        self.settings = settings
        self.recipient_ok = recipient_ok
        self.store = store
        self.store_async = store_async
        self.free_ports = free_ports
        self._controllers: dict[str, _Controller] = {}

    def start(self) -> None:
        smtp = self.settings.smtp
        try:
            for source, port in (("smtp", smtp.port), ("lmtp", smtp.lmtp_port)):
                if port == 0:
                    continue
                handler = SpoolHandler(
                    self.settings.judge.address,
                    self.recipient_ok,
                    source=source,
                    store=self.store,
                    store_async=self.store_async,
                )
                controller = _Controller(
                    handler,
                    smtp.host,
                    0 if self.free_ports else port,
                    server_hostname=self.settings.judge.domain,
                    data_size_limit=smtp.max_message_bytes,
                )
                try:
                    controller.start()
                except OSError as err:
                    if err.errno == errno.EADDRINUSE or "in use" in str(err):
                        raise PortInUse(source, smtp.host, port) from None
                    raise
                self._controllers[source] = controller
                log.info("%s listener on %s:%s", source.upper(), smtp.host, controller.port)
        except BaseException:
            self.stop()
            raise

    def close_doors(self, wait: float = 10.0) -> None:
        """Turn new mail away with 421 (senders retry later); mail already in its DATA
        phase is still stored and answered 250 (waited for, at most `wait` seconds)."""
        handlers = [controller.handler for controller in self._controllers.values()]
        for handler in handlers:
            handler.closing = True
        deadline = time.monotonic() + wait
        while any(h.storing for h in handlers) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        for controller in self._controllers.values():
            controller.stop()
        self._controllers.clear()

    def __enter__(self) -> Listener:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def smtp_port(self) -> int | None:
        controller = self._controllers.get("smtp")
        return controller.port if controller else None

    @property
    def lmtp_port(self) -> int | None:
        controller = self._controllers.get("lmtp")
        return controller.port if controller else None

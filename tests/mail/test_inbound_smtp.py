"""The SMTP and LMTP listener over real sockets: 550 for strangers, spool only, once."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import smtplib
import socket
import threading
from collections.abc import Iterator

import pytest

from mailjudge.config.settings import Settings, SmtpSettings
from mailjudge.config.settings_files import load_settings
from mailjudge.inbound import group_store, spool
from mailjudge.inbound.landing import Landing, landing_path
from mailjudge.inbound.smtp import Listener, judge_recipients
from mailjudge.store import db
from mailjudge.store.models import InboundMessage

JUDGE = "judge@example.org"


def settings(lmtp: bool = True, max_message_bytes: int = 1024 * 1024) -> Settings:
    base = load_settings(None, {"MAILJUDGE_JUDGE_ADDRESS": JUDGE})
    smtp = SmtpSettings(
        host="127.0.0.1", port=1, lmtp_port=1 if lmtp else 0, max_message_bytes=max_message_bytes
    )
    return dataclasses.replace(base, smtp=smtp)


def mail(n: int = 1, body: str = "A PAR - BUR\r\n") -> bytes:
    return (
        f"From: player@example.com\r\nTo: {JUDGE}\r\nSubject: orders\r\n"
        f"Message-ID: <m{n}@example.com>\r\n\r\n{body}"
    ).encode()


class Lists:
    """The lead's recipient callback stands in here: one country list address."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def __call__(self, address: str) -> bool:
        self.threads.append(threading.current_thread().name)
        return address.lower() == "ivory-france@example.org"


@pytest.fixture
def lists() -> Lists:
    return Lists()


@pytest.fixture
def listener(sqlite_db: str, lists: Lists) -> Iterator[Listener]:
    with Listener(settings(), lists, free_ports=True) as running:
        yield running


def smtp(listener: Listener) -> smtplib.SMTP:
    assert listener.smtp_port is not None
    return smtplib.SMTP("127.0.0.1", listener.smtp_port, timeout=10)


def test_accepted_mail_is_in_the_spool(listener: Listener) -> None:
    with smtp(listener) as client:
        client.ehlo()
        code, answer = client.docmd("MAIL FROM:<player@example.com>")
        assert code == 250
        assert client.rcpt(JUDGE)[0] == 250
        code, answer = client.data(mail())
    assert code == 250 and b"stored" in answer
    row = InboundMessage.get()
    assert row.raw.replace(b"\r\n", b"\n") == mail().replace(b"\r\n", b"\n")
    assert (row.envelope_from, row.envelope_to, row.source) == ("player@example.com", JUDGE, "smtp")
    assert row.state == "queued"


def test_unknown_recipient_gets_550(listener: Listener) -> None:
    with smtp(listener) as client, pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        client.sendmail("player@example.com", ["someone@example.org"], mail())
    code, text = refused.value.recipients["someone@example.org"]
    assert code == 550 and text == b"5.1.1 <someone@example.org>: no such mailbox here"
    assert InboundMessage.select().count() == 0


def test_known_recipients_are_kept_and_strangers_refused(listener: Listener, lists: Lists) -> None:
    recipients = ["judge+Ivory@example.org", "stranger@example.org", "ivory-france@example.org"]
    with smtp(listener) as client:
        refused = client.sendmail("player@example.com", recipients, mail())
    assert list(refused) == ["stranger@example.org"]
    row = InboundMessage.get()
    assert row.envelope_to == "judge+Ivory@example.org ivory-france@example.org"
    # The callback may query the database, so it never runs on the event loop's thread.
    assert lists.threads and all(name.startswith("asyncio_") for name in lists.threads)


def test_duplicate_delivery_is_stored_once(listener: Listener) -> None:
    answers = []
    for _ in range(2):
        with smtp(listener) as client:
            client.ehlo()
            client.mail("player@example.com")
            client.rcpt(JUDGE)
            answers.append(client.data(mail(5)))
    assert answers[0][0] == answers[1][0] == 250
    assert b"already stored" in answers[1][1]
    assert InboundMessage.select().count() == 1


def test_lmtp_delivery_is_stored(listener: Listener) -> None:
    assert listener.lmtp_port is not None
    with smtplib.LMTP("127.0.0.1", listener.lmtp_port, timeout=10) as client:
        client.sendmail("player@example.com", [JUDGE], mail())
    assert InboundMessage.get().source == "lmtp"


def test_lmtp_answers_once_per_recipient(listener: Listener) -> None:
    assert listener.lmtp_port is not None
    with smtplib.LMTP("127.0.0.1", listener.lmtp_port, timeout=10) as client:
        client.ehlo_or_helo_if_needed()
        client.mail("player@example.com")
        assert client.rcpt(JUDGE)[0] == 250
        assert client.rcpt("nobody@example.org")[0] == 550
        assert client.rcpt("judge+ivory@example.org")[0] == 250
        first = client.data(mail())
        second = client.getreply()  # smtplib reads only the first answer itself
        assert first[0] == second[0] == 250
        assert client.noop()[0] == 250  # nothing left unread: the dialogue is in step
    assert InboundMessage.select().count() == 1


def test_mail_over_the_hard_limit_is_refused(sqlite_db: str) -> None:
    big = mail(body=("x" * 70 + "\r\n") * 100)  # 7 kB against a 2 kB limit
    with Listener(settings(lmtp=False, max_message_bytes=2000), free_ports=True) as running:
        assert running.lmtp_port is None
        # Announced with SIZE: refused at MAIL FROM.
        with smtp(running) as client, pytest.raises(smtplib.SMTPSenderRefused) as early:
            client.sendmail("player@example.com", [JUDGE], big)
        assert early.value.smtp_code == 552
        # ... in words that name the limit and the way out (a bounce quotes them).
        assert b"at most 2000 bytes; send the commands without" in early.value.smtp_error
        # Not announced: refused after DATA.
        with smtp(running) as client:
            client.ehlo()
            client.mail("player@example.com")
            client.rcpt(JUDGE)
            code, words = client.data(big)
            assert code == 552 and b"at most 2000 bytes" in words
    assert InboundMessage.select().count() == 0


def test_store_failure_asks_the_client_to_retry(sqlite_db: str) -> None:
    def broken_store(*args: object) -> tuple[InboundMessage, bool]:
        raise OSError("disk full")

    with Listener(settings(), store=broken_store, free_ports=True) as running:
        with smtp(running) as client, pytest.raises(smtplib.SMTPDataError) as refused:
            client.sendmail("player@example.com", [JUDGE], mail())
        assert refused.value.smtp_code == 451
        assert running.lmtp_port is not None
        with smtplib.LMTP("127.0.0.1", running.lmtp_port, timeout=10) as client:
            client.ehlo_or_helo_if_needed()
            client.mail("player@example.com")
            client.rcpt(JUDGE)
            client.rcpt("judge+x@example.org")
            assert client.data(mail())[0] == 451
            assert client.getreply()[0] == 451


def test_failing_recipient_check_is_a_temporary_refusal(sqlite_db: str) -> None:
    def broken(address: str) -> bool:
        raise RuntimeError("database away")

    with (
        Listener(settings(lmtp=False), broken, free_ports=True) as running,
        smtp(running) as client,
    ):
        client.ehlo()
        client.mail("player@example.com")
        assert client.rcpt("list@example.org")[0] == 451
        assert client.rcpt(JUDGE)[0] == 250  # the judge's own address needs no lookup


def test_listeners_stop_and_free_their_ports(sqlite_db: str) -> None:
    running = Listener(settings(), free_ports=True)
    running.start()
    ports = (running.smtp_port, running.lmtp_port)
    running.stop()
    assert running.smtp_port is None
    for port in ports:
        assert port is not None
        with pytest.raises(OSError):
            smtplib.SMTP("127.0.0.1", port, timeout=2)


def test_judge_recipients() -> None:
    accepts = judge_recipients(JUDGE, lambda a: a == "ivory-france@example.org")
    assert accepts("Judge@Example.org") and accepts("judge+game@example.org")
    assert accepts("ivory-france@example.org")
    assert not accepts("judge@example.com") and not accepts("other@example.org")
    assert not judge_recipients(JUDGE)("ivory-france@example.org")


def test_spool_handler_stores_through_spool_store() -> None:
    assert Listener(settings()).store is spool.store


def test_a_group_store_that_cannot_keep_the_mail_asks_the_client_to_retry(sqlite_db: str) -> None:
    """The way the judge stores (GroupStore.store_async, on its landing): a commit that
    fails is answered 451, never 250."""
    database_file = db.sqlite_file()
    assert database_file is not None
    landing = Landing(landing_path(database_file))
    group = group_store.GroupStore(landing=landing)
    group.start()
    landing.close()  # every commit now fails
    try:
        with (
            Listener(
                settings(lmtp=False),
                store=group.store,
                store_async=group.store_async,
                free_ports=True,
            ) as running,
            smtp(running) as client,
            pytest.raises(smtplib.SMTPDataError) as refused,
        ):
            client.sendmail("player@example.com", [JUDGE], mail())
    finally:
        group.stop()
    assert refused.value.smtp_code == 451


def test_a_stop_ends_the_sessions_still_waiting_for_their_store(
    sqlite_db: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A session waiting for its commit when the listener stops is ended and waited for,
    not left pending in a closed loop (asyncio then logs "Task was destroyed but it is
    pending", which once broke the judge's log at SIGTERM)."""
    arrived = threading.Event()

    async def store_forever(*args: object) -> tuple[InboundMessage, bool]:
        arrived.set()
        try:
            await asyncio.Event().wait()  # a commit that is never over
        finally:
            await asyncio.sleep(0.2)  # and a session that takes a while to end
        raise AssertionError("unreachable")

    outcome: list[BaseException] = []

    def send(port: int) -> None:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.sendmail("player@example.com", [JUDGE], mail())
        except (smtplib.SMTPException, OSError) as err:
            outcome.append(err)

    running = Listener(settings(lmtp=False), store_async=store_forever, free_ports=True)
    running.start()
    assert running.smtp_port is not None
    sender = threading.Thread(target=send, args=(running.smtp_port,))
    sender.start()
    assert arrived.wait(timeout=10)
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        running.stop()
        gc.collect()  # a task left pending is reported when it is collected
    sender.join(timeout=10)
    assert outcome, "the client got no answer but a 250"
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text


def test_a_server_that_cannot_start_leaves_no_open_event_loop(sqlite_db: str) -> None:
    """A port in use: the start fails, and the controller's loop is closed then, not by
    the collector as the process ends (which once printed a traceback after serve's
    one-line refusal)."""
    from mailjudge.inbound.smtp import SpoolHandler, _Controller

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        controller = _Controller(SpoolHandler(JUDGE), "127.0.0.1", port, ready_timeout=2.0)
        with pytest.raises(OSError):
            controller.start()
    assert controller.loop.is_closed()

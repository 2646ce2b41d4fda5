"""The IMAP poller against a real Dovecot on loopback: every mail stored once, whatever
happens to the server or the mailbox in between."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from helpers.mailstack import Dovecot

from mailjudge.config.settings import ImapSettings
from mailjudge.inbound import spool
from mailjudge.inbound.imap import ImapPoller
from mailjudge.store.models import InboundMessage, MailboxCursor

USER = "judge@example.test"


def mail(n: int, tag: str = "") -> bytes:
    return (
        f"Return-Path: <player{n}@example.test>\r\nFrom: player{n}@example.test\r\n"
        f"To: {USER}\r\nSubject: orders {n}\r\nMessage-ID: <imap-{tag}{n}@example.test>\r\n"
        f"\r\nA PAR - BUR  # {n}\r\n"
    ).encode()


@pytest.fixture
def folder(dovecot: Dovecot, sqlite_db: str) -> Iterator[str]:
    """A fresh mailbox of the judge's account for one test."""
    name = f"test-{uuid.uuid4().hex[:10]}"
    client = dovecot.connect()
    client.create_folder(name)
    client.logout()
    yield name


def imap_settings(dovecot: Dovecot, folder: str, **changes: object) -> ImapSettings:
    values: dict[str, object] = {
        "host": "127.0.0.1",
        "port": dovecot.imap_port,
        "user": USER,
        "password": dovecot.users[USER],
        "mailbox": folder,
        "ssl": False,
        "timeout_seconds": 5,
        "poll_seconds": 1,
        # A short IDLE: should a wake-up be missed in a race with a restart, the next
        # renewal polls, as it does (after longer) in service.
        "idle_seconds": 5,
    }
    values.update(changes)
    return ImapSettings(**values)  # type: ignore[arg-type]


def flags(dovecot: Dovecot, folder: str) -> dict[int, tuple[bytes, ...]]:
    client = dovecot.connect()
    try:
        client.select_folder(folder)
        uids = client.search("ALL")
        return {uid: data[b"FLAGS"] for uid, data in client.fetch(uids, ["FLAGS"]).items()}
    finally:
        client.logout()


def stored_ids() -> list[str]:
    return sorted(m.message_id or "" for m in InboundMessage.select())


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_new_mail_is_stored_once_and_marked_seen(dovecot: Dovecot, folder: str) -> None:
    dovecot.append(folder, *(mail(n) for n in range(5)))
    poller = ImapPoller(imap_settings(dovecot, folder), batch_size=2)
    try:
        assert poller.poll_once() == 5
        assert poller.poll_once() == 0  # nothing new: nothing fetched, nothing stored
        dovecot.append(folder, mail(5))
        assert poller.poll_once() == 1
    finally:
        poller.close()
    assert stored_ids() == sorted(f"<imap-{n}@example.test>" for n in range(6))
    row = InboundMessage.get(InboundMessage.message_id == "<imap-3@example.test>")
    assert (row.source, row.envelope_from, row.envelope_to) == (
        "imap",
        "player3@example.test",
        USER,
    )
    assert row.raw == mail(3)
    assert all(b"\\Seen" in f for f in flags(dovecot, folder).values())
    cursor = MailboxCursor.get()
    assert cursor.last_uid == 6 and cursor.mailbox.endswith(f"/{folder}")


def test_a_new_poller_goes_on_from_the_cursor(dovecot: Dovecot, folder: str) -> None:
    dovecot.append(folder, mail(1), mail(2))
    first = ImapPoller(imap_settings(dovecot, folder))
    assert first.poll_once() == 2
    first.close()
    # Someone marks a read mail unread again: the cursor, not the flag, says it is done.
    client = dovecot.connect()
    client.select_folder(folder)
    client.remove_flags([1], [b"\\Seen"])
    client.logout()
    dovecot.append(folder, mail(3))
    second = ImapPoller(imap_settings(dovecot, folder))
    try:
        assert second.poll_once() == 1
    finally:
        second.close()
    assert InboundMessage.select().count() == 3


def test_without_a_cursor_only_unread_mail_is_taken(dovecot: Dovecot, folder: str) -> None:
    client = dovecot.connect()
    client.append(folder, mail(1), flags=[b"\\Seen"])  # read by a person before the judge came
    client.logout()
    dovecot.append(folder, mail(2))
    poller = ImapPoller(imap_settings(dovecot, folder))
    try:
        assert poller.poll_once() == 1
        assert stored_ids() == ["<imap-2@example.test>"]
        assert MailboxCursor.get().last_uid == 2
        assert poller.poll_once() == 0
    finally:
        poller.close()


def test_delete_mode_expunges_what_it_stored(dovecot: Dovecot, folder: str) -> None:
    dovecot.append(folder, *(mail(n) for n in range(3)))
    poller = ImapPoller(imap_settings(dovecot, folder, after_read="delete"))
    try:
        assert poller.poll_once() == 3
        assert flags(dovecot, folder) == {}
        dovecot.append(folder, mail(3))
        assert poller.poll_once() == 1
    finally:
        poller.close()
    assert InboundMessage.select().count() == 4


def test_server_restart_mid_poll_loses_nothing_and_reads_nothing_twice(
    dovecot: Dovecot, folder: str
) -> None:
    dovecot.append(folder, *(mail(n) for n in range(6)))
    calls: list[int] = []

    def store_then_crash_server(*args: object) -> tuple[InboundMessage, bool]:
        result = spool.store(*args)  # type: ignore[arg-type]
        calls.append(1)
        if len(calls) == 3:  # stored, not yet marked read: the worst moment
            dovecot.crash()
        return result

    poller = ImapPoller(imap_settings(dovecot, folder), store=store_then_crash_server, batch_size=2)
    try:
        with pytest.raises(Exception):  # noqa: B017 - whatever the dropped connection raises
            poller.poll_once()
        poller.close()
        assert InboundMessage.select().count() == 4  # mails 0-3 stored, 2 and 3 unmarked
        assert poller.poll_once() == 2  # 2 and 3 are dedup hits; 4 and 5 are new
    finally:
        poller.close()
    assert stored_ids() == sorted(f"<imap-{n}@example.test>" for n in range(6))
    assert all(b"\\Seen" in f for f in flags(dovecot, folder).values())
    assert MailboxCursor.get().last_uid == 6


def test_changed_uidvalidity_reads_again_and_dedup_keeps_it_once(
    dovecot: Dovecot, folder: str
) -> None:
    dovecot.append(folder, mail(1), mail(2))
    poller = ImapPoller(imap_settings(dovecot, folder))
    assert poller.poll_once() == 2
    old_validity = MailboxCursor.get().uidvalidity
    poller.close()
    # The mailbox is rebuilt (as after a server migration): same mail, new UIDs.
    client = dovecot.connect()
    client.delete_folder(folder)
    client.create_folder(folder)
    client.logout()
    dovecot.append(folder, mail(1), mail(2), mail(3))
    try:
        assert poller.poll_once() == 1  # only mail 3 is new
    finally:
        poller.close()
    cursor = MailboxCursor.get()
    assert cursor.uidvalidity != old_validity and cursor.last_uid == 3
    assert InboundMessage.select().count() == 3


def test_run_waits_with_idle_and_stops_promptly(dovecot: Dovecot, folder: str) -> None:
    # Neither the poll nor a new IDLE comes within the test's wait: only IDLE's word of
    # the new mail can bring it.
    poller = ImapPoller(imap_settings(dovecot, folder, idle_seconds=3600, poll_seconds=3600))
    stop = threading.Event()
    thread = threading.Thread(target=poller.run, args=(stop,))
    thread.start()
    try:
        time.sleep(0.3)  # the poller is idling by now
        dovecot.append(folder, mail(1))
        wait_until(lambda: InboundMessage.select().count() == 1)  # IDLE woke it
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()


def test_run_polls_when_idle_is_off(dovecot: Dovecot, folder: str) -> None:
    poller = ImapPoller(imap_settings(dovecot, folder, idle=False, poll_seconds=1))
    stop = threading.Event()
    thread = threading.Thread(target=poller.run, args=(stop,))
    thread.start()
    try:
        dovecot.append(folder, mail(1), mail(2))
        wait_until(lambda: InboundMessage.select().count() == 2)
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()


def test_run_reconnects_after_the_server_comes_back(dovecot: Dovecot, folder: str) -> None:
    poller = ImapPoller(imap_settings(dovecot, folder), backoff=(0.1, 0.5))
    stop = threading.Event()
    thread = threading.Thread(target=poller.run, args=(stop,))
    thread.start()
    try:
        dovecot.append(folder, mail(1))
        wait_until(lambda: InboundMessage.select().count() == 1)
        dovecot.crash()
        dovecot.append(folder, mail(2))
        wait_until(lambda: InboundMessage.select().count() == 2)
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()


def test_imaps_with_the_servers_certificate(dovecot: Dovecot, folder: str) -> None:
    if dovecot.imaps_port is None or dovecot.cafile is None:
        pytest.skip("openssl is missing, so the test Dovecot has no TLS port")
    dovecot.append(folder, mail(1))
    settings = imap_settings(
        dovecot, folder, port=dovecot.imaps_port, ssl=True, cafile=str(dovecot.cafile)
    )
    poller = ImapPoller(settings)
    try:
        assert poller.poll_once() == 1
    finally:
        poller.close()


def test_bad_password_is_an_error_not_a_hang(dovecot: Dovecot, folder: str) -> None:
    poller = ImapPoller(imap_settings(dovecot, folder, password="wrong"))
    with pytest.raises(Exception, match=r"(?i)auth|login"):
        poller.poll_once()
    assert poller._client is None


def test_poller_needs_host_user_and_password() -> None:
    with pytest.raises(ValueError, match=r"imap\.host"):
        ImapPoller(ImapSettings())

"""The IMAP poller: reads new mail from one mailbox into the spool.

The mailbox's UIDVALIDITY and the last UID read are kept in MailboxCursor. Each mail
is stored before it is marked \\Seen (or deleted), and the cursor moves after that:
a crash in between only means a dedup hit next time, never a lost or doubled mail.
When UIDVALIDITY changes (the mailbox was rebuilt) the cursor means nothing any more;
the poller reads again every unread mail and lets the spool's dedup sort it out.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

from imapclient import DELETED, SEEN, IMAPClient  # type: ignore[import-untyped]

from mailjudge.config.settings import ImapSettings
from mailjudge.inbound import spool
from mailjudge.inbound.parse import return_path_header
from mailjudge.inbound.smtp import StoreFunction
from mailjudge.store.models import MailboxCursor, utcnow

log = logging.getLogger(__name__)


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class ImapPoller:
    def __init__(
        self,
        settings: ImapSettings,
        *,
        store: StoreFunction = spool.store,
        batch_size: int = 50,
        backoff: tuple[float, float] = (1.0, 300.0),
    ) -> None:
        """`backoff`: the first and the longest wait after a failure, in seconds."""
        if not settings.host or settings.user is None or settings.password is None:
            raise ValueError("the IMAP poller needs imap.host, imap.user and imap.password")
        self.settings = settings
        self.store = store
        self.batch_size = batch_size
        self.backoff = backoff
        self.key = f"{settings.user}@{settings.host}:{settings.port}/{settings.mailbox}"[:255]
        self._client: Any = None
        self._uidvalidity = 0

    # -- connection -------------------------------------------------------------------

    def _connect(self) -> Any:
        s = self.settings
        context = ssl.create_default_context(cafile=s.cafile) if s.ssl else None
        client = IMAPClient(
            s.host, port=s.port, ssl=s.ssl, ssl_context=context, timeout=s.timeout_seconds
        )
        try:
            client.login(s.user, s.password)
            selected = client.select_folder(s.mailbox)
        except BaseException:
            self._drop(client)
            raise
        self._uidvalidity = int(selected[b"UIDVALIDITY"])
        self._client = client
        log.info("IMAP: reading %s (UIDVALIDITY %s)", self.key, self._uidvalidity)
        return client

    @staticmethod
    def _drop(client: Any) -> None:
        try:
            client.logout()
        except Exception:
            with contextlib.suppress(Exception):
                client.shutdown()

    def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            self._drop(client)

    # -- reading ----------------------------------------------------------------------

    def _cursor(self) -> MailboxCursor | None:
        """The saved cursor, or None when reading must start from scratch."""
        cursor = MailboxCursor.get_or_none(MailboxCursor.mailbox == self.key)
        if cursor is not None and cursor.uidvalidity == self._uidvalidity:
            return cursor
        if cursor is not None:
            log.warning(
                "IMAP: UIDVALIDITY of %s changed from %s to %s; reading it again",
                self.key,
                cursor.uidvalidity,
                self._uidvalidity,
            )
        return None

    def _save_cursor(self, last_uid: int) -> None:
        updated = (
            MailboxCursor.update(
                uidvalidity=self._uidvalidity, last_uid=last_uid, updated_at=utcnow()
            )
            .where(MailboxCursor.mailbox == self.key)
            .execute()
        )
        if not updated:
            MailboxCursor.create(mailbox=self.key, uidvalidity=self._uidvalidity, last_uid=last_uid)

    def _new_uids(self, client: Any) -> tuple[list[int], int, bool]:
        """(UIDs to read, the UID a fresh start's cursor moves to, whether this is a
        fresh start without a valid cursor)."""
        cursor = self._cursor()
        if cursor is not None:
            # n:* always matches the last mail, even below n: filter.
            found = client.search(["UID", f"{cursor.last_uid + 1}:*"])
            uids = sorted(uid for uid in found if uid > cursor.last_uid)
            return uids, cursor.last_uid, False
        everything = client.search(["ALL"])
        if self.settings.after_read == "delete":
            uids = sorted(everything)
        else:
            uids = sorted(client.search(["UNSEEN"]))
        # Mail already marked read before the cursor existed is not the judge's to read.
        return uids, max([*everything, *uids], default=0), True

    def _done(self, client: Any, uids: list[int]) -> None:
        if self.settings.after_read == "delete":
            client.add_flags(uids, [DELETED], silent=True)
            if client.has_capability("UIDPLUS"):
                client.uid_expunge(uids)
            else:
                client.expunge()
        else:
            client.add_flags(uids, [SEEN], silent=True)

    def poll_once(self) -> int:
        """Read every new mail into the spool; returns how many were new to it."""
        client = self._client or self._connect()
        client.noop()  # lets the server tell this session about mail that came meanwhile
        uids, last_uid, fresh = self._new_uids(client)
        stored = 0
        for batch in _chunks(uids, self.batch_size):
            fetched = client.fetch(batch, ["BODY.PEEK[]"])
            for uid in batch:
                raw = fetched.get(uid, {}).get(b"BODY[]")
                if raw is None:  # expunged by someone else meanwhile
                    continue
                _, new = self.store(
                    raw, return_path_header(raw) or "", [self.settings.user or ""], "imap"
                )
                stored += new
            self._done(client, batch)
            if not fresh:
                # A fresh start saves its cursor only at the end: stopped halfway, it
                # starts afresh and lets dedup skip what it had stored.
                self._save_cursor(batch[-1])
        if fresh:
            self._save_cursor(last_uid)
        return stored

    # -- running ----------------------------------------------------------------------

    def _wait(self, stop: threading.Event) -> None:
        """Until new mail, the IDLE renewal time or `stop`; a plain sleep without IDLE."""
        client = self._client
        if client is None or not (self.settings.idle and client.has_capability("IDLE")):
            stop.wait(self.settings.poll_seconds)
            return
        deadline = time.monotonic() + self.settings.idle_seconds
        client.idle()
        quick_empty = 0
        while not stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            # Short checks, so that `stop` is honoured within a second.
            wait = min(1.0, left)
            started = time.monotonic()
            responses = client.idle_check(timeout=wait)
            if any(len(r) > 1 and r[1] in (b"EXISTS", b"RECENT") for r in responses):
                break
            # idle_check hides a closed connection: it reports "nothing" at once, again
            # and again, where a live one waits for the timeout.
            quick = not responses and time.monotonic() - started < wait / 2
            quick_empty = quick_empty + 1 if quick else 0
            if quick_empty >= 3:
                raise ConnectionError("the IMAP server closed the connection during IDLE")
        client.idle_done()

    def run(self, stop: threading.Event) -> None:
        """Poll until `stop` is set, waiting with IDLE where the server offers it. Any
        failure (network, server, database) drops the connection and retries after a
        wait that doubles up to the longest backoff."""
        first, longest = self.backoff
        delay = first
        while not stop.is_set():
            try:
                self.poll_once()
                self._wait(stop)
                delay = first
            except Exception as exc:
                log.warning("IMAP %s: %s; retrying in %.1f s", self.key, exc, delay)
                self.close()
                stop.wait(delay)
                delay = min(delay * 2, longest)
        self.close()

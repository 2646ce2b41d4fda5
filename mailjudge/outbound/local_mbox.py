"""The judge's outgoing mail kept in a local mbox file instead of handed to a relay: a first
game on a laptop, where nothing listens on port 25, still gets its answers, and any mail
reader opens them (``mutt -f FILE``, Thunderbird's ImportExportTools, Python's mailbox).

The file is written with Python's mailbox module (its locking: fcntl and a dot-lock file),
one mail after the other, each with its envelope sender on the ``From `` line.
"""

from __future__ import annotations

import mailbox
import threading
import time
from pathlib import Path

from mailjudge.outbound.send import Handed


class MboxSender:
    """A sender (outbound.send.Sender) that appends each mail to ``path``."""

    def __init__(self, path: Path, envelope_from: str) -> None:
        self.path = path
        self.envelope_from = envelope_from
        self._turn = threading.Lock()  # the file's lock is per process; threads take turns

    def send(self, raw: bytes, to_addrs: list[str], envelope_from: str | None = None) -> Handed:
        message = mailbox.mboxMessage(raw)
        message.set_from(envelope_from or self.envelope_from, time.gmtime())
        with self._turn:
            box = mailbox.mbox(self.path, create=True)
            box.lock()
            try:
                box.add(message)
                box.flush()
            finally:
                box.unlock()
                box.close()
        return Handed(f"250 kept in {self.path} for {', '.join(to_addrs)}")

    def close(self) -> None:
        """Nothing is held open between mails."""

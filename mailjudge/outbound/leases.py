"""Who holds the lease of a mail being sent, and whether that sender is gone.

A sender leases the mails it is about to send (outbox.claim_due): another sender leaves
them alone until the lease runs out (outbound.lease_seconds, ten minutes), in case the
first is slow. A sender killed with mails in hand (its judge killed, then started again)
left them waiting that long: 66 answers in a soak of 100 kills. The lease now names its
sender's process on its machine; a sender of the same machine whose process is gone is
known to be gone, and its mails are sent again at once. A sender on another machine is
never judged from here (its process cannot be seen): its leases run out as before.

Not the PostgreSQL session, as a stored mail's claim is named (inbound.claims): a sender
keeps sending the mails in hand when its session is lost (outbox._send_batch), and a
second sender must not take them meanwhile.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable


def holder() -> str:
    """This process's name on the leases it takes: machine, process id, start time."""
    return f"{_machine()}:{os.getpid()}:{_process_start(os.getpid())}"[:64]


def gone(holders: Iterable[str]) -> set[str]:
    """Those of ``holders`` that are processes of this machine no longer running."""
    here = _machine() + ":"
    found = set()
    for name in holders:
        if not name.startswith(here):
            continue
        pid, _, start = name[len(here) :].partition(":")
        if pid.isdigit() and not _alive(int(pid), start):
            found.add(name)
    return found


def _machine() -> str:
    # Short: the name, the pid and the start time fit the column's 64 characters.
    return socket.gethostname()[:32]


def _alive(pid: int, start: str) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    fields = _stat(pid)
    if fields[:1] == [b"Z"]:
        return False  # dead, not yet reaped
    return _process_start(pid) == start


def _process_start(pid: int) -> str:
    """When process ``pid`` started, in the kernel's ticks since boot ("" where /proc
    cannot tell): a pid used again by a later process is not the same holder."""
    fields = _stat(pid)
    return fields[19].decode() if len(fields) > 19 else ""


def _stat(pid: int) -> list[bytes]:
    """The fields of /proc/PID/stat after the command's name (the state first)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()
    except OSError:
        return []

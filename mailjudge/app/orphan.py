"""A child of the judge dies with it.

`mailjudge serve` runs its workers, sender and web pages in processes of their own. When
the judge's own process is killed outright (SIGKILL, the OOM killer), nothing it runs can
stop them, and they lived on with parent 1: the web process kept its port, so the next
judge could not start, and a worker claimed mail it never answered. Linux sends a chosen
signal to a process whose parent dies (prctl PR_SET_PDEATHSIG); elsewhere, and for the
moment before the request is made, the child compares its parent with the judge's pid.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, signum: int = signal.SIGTERM) -> None:
    """Ask to be sent ``signum`` when the process ``parent`` (this process's parent when
    it started) dies; exit at once if it already has."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    if os.getppid() != parent:  # it died before the request: nobody would send it
        os.kill(os.getpid(), signum)


def parent_gone(parent: int) -> bool:
    """Whether the judge that started this process has died (a check for the loops of
    systems without PR_SET_PDEATHSIG)."""
    return os.getppid() != parent

"""Every mail the judge sends, but the answers (app/replies.py), into the outbox within
the hour's caps of each mailbox it goes to (game/guard.may_mail): the mail a mail's
commands cause, a phase's results, a list's copies, the clock's reminders and notices.

Issue 52: a phase's results once went uncounted, so forged JOINs and 39 PROCESS! in one
mail sent 312 mails (9.8 MB) to seven strangers. Now each recipient's mail is counted in
one of three ledgers, kept apart so that no one spends another's allowance:

- "own": what a mail causes to its sender's own address (or, signed on, to its seat's);
- "seat": a game's mail to a person seated in it (it names their role), and what a phase
  sends (results, a list's copies, digests);
- "others": anything else a mail causes, at the small caps of unasked-for mail.

An address that never answered the judge gets the small caps in each; one that did, the
generous ones. A recipient beyond its cap is left out of the mail (the rest still get
it), and an address the judge cannot write to is never queued.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime

from mailjudge.config.settings import Settings
from mailjudge.game import guard
from mailjudge.outbound.answered import picture_bytes
from mailjudge.outbound.draft import Outgoing
from mailjudge.outbound.mailbox import mailbox, writable
from mailjudge.outbound.queue import queue_outgoing

log = logging.getLogger(__name__)

# What a phase sends is the game's mail to the people in it, whoever caused it.
GAME_KINDS = ("results", "list", "digest")


def queue_within_caps(
    items: Iterable[Outgoing],
    settings: Settings,
    now: datetime,
    own: Callable[[str], bool] = lambda address: False,
) -> list[str]:
    """Queue each mail to those of its recipients whose caps allow it; ``own`` says which
    addresses are the causing mail's own. Returns the addresses left out, one per mail."""
    items = list(items)
    recipients = {a.lower() for item in items for a in (item.bcc or item.to)}
    proven = guard.proven_among(sorted(recipients)) if recipients else set()
    sizes: dict[int, int] = {}
    held: list[str] = []
    for item in items:
        size = _size(item, sizes)
        kept = []
        for address in item.bcc or item.to:
            lower = address.lower()
            if not writable(address):
                log.warning("a mail to %r not queued: the judge cannot write to it", address)
                held.append(address)
                continue
            ledger = "own" if own(lower) else "seat" if _game_mail(item) else "others"
            if guard.may_mail(lower, size, now, lower in proven, ledger, settings.security):
                kept.append(address)
            else:
                held.append(address)
        if not kept:
            continue
        if len(kept) < len(item.bcc or item.to):
            item = replace(item, bcc=kept) if item.bcc else replace(item, to=kept)
        queue_outgoing(item, settings, now)
    if held:
        log.info("mail to %s not sent: the hour's caps of their mailboxes",
                 ", ".join(sorted({mailbox(a) for a in held})))  # fmt: skip
    return held


def _game_mail(item: Outgoing) -> bool:
    return bool(item.role) or item.kind in GAME_KINDS


def _size(item: Outgoing, pictures: dict[int, int]) -> int:
    """About how many bytes a mail comes to (its picture included, read once a call)."""
    size = len(item.body) + len(item.html or "") + sum(len(a[2]) for a in item.attachments)
    size += len(item.calendar or "") + sum(len(m.as_bytes()) for m in item.digest)
    if item.board is not None:
        if item.board not in pictures:
            pictures[item.board] = picture_bytes(item.board)
        size += pictures[item.board]
    return size + 1024  # headers

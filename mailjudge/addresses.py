"""The judge's own addresses: judge@domain and its judge+DETAIL@domain sub-addresses.

Every mail the judge sends has the envelope sender judge+bounce-ID-CHECK@domain (VERP),
where ID is its outbox row and CHECK a digest of its random Message-ID, so a bounce says
which mail failed and a forged one cannot name a mail it never saw."""

from __future__ import annotations

import hashlib

from mailjudge.remembered import remembered


# Remembered: a mail's few addresses are each compared with the judge's several times
# (its bounce address, its game's address, loop checks), and senders come back.
@remembered(4096)
def split_address(address: str) -> tuple[str, str]:
    """(local part, lower-cased domain); the domain is "" when there is no @."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    if not at:
        return address.strip().strip("<>"), ""
    return local, domain.lower()


def kept_case(address: str) -> str:
    """An address as its owner wrote it, the domain lower-cased: domains know no case, but
    a mail server may tell local parts apart by theirs (Jean.Dupont@ is not jean.dupont@
    everywhere). The judge compares addresses lower-cased, and sends to this."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    return f"{local}@{domain.lower()}" if at else address.strip()


def judge_detail(address: str, judge_address: str) -> str | None:
    """ "" for the judge's own address, "GAME" for judge+GAME@ (lower-cased), None otherwise.

    Local parts are compared without regard to case: mail systems treat them so in
    practice, and a player typing Judge@ should not be refused.
    """
    local, domain = split_address(address)
    judge_local, judge_domain = split_address(judge_address)
    if not domain or domain != judge_domain:
        return None
    local = local.lower()
    judge_local = judge_local.lower()
    if local == judge_local:
        return ""
    prefix = judge_local + "+"
    if local.startswith(prefix) and len(local) > len(prefix):
        return local[len(prefix) :]
    return None


def is_judge_address(address: str, judge_address: str) -> bool:
    return judge_detail(address, judge_address) is not None


def press_reply_target(detail: str) -> tuple[str, list[str]] | None:
    """(game, the writer's powers) for the detail of judge+GAME-press-FRANCE@, where a
    Reply to press arrives; None for any other detail."""
    game, sep, who = detail.rpartition("-press-")
    if not sep or not game or not who:
        return None
    return game, [w.upper() for w in who.split(".") if w]


_PREFIX = "bounce-"


def bounce_address(judge: str, outbox_id: int, message_id: str) -> str:
    """The envelope sender of one outbox mail."""
    local, _, domain = judge.rpartition("@")
    return f"{local}+{_PREFIX}{outbox_id}-{_check(message_id)}@{domain}"


def _check(message_id: str) -> str:
    return hashlib.sha256(message_id.encode()).hexdigest()[:10]


def bounced_outbox(address: str, judge: str) -> tuple[int, str] | None:
    """(outbox id, check) from a VERP address of the judge's; None for any other."""
    detail = judge_detail(address, judge)
    if not detail or not detail.startswith(_PREFIX):
        return None
    number, _, check = detail[len(_PREFIX) :].partition("-")
    # An outbox id has at most 18 digits (a database's integer); anything else is no VERP
    # address of the judge's, whatever digits it holds.
    plain = number.isascii() and number.isdigit() and len(number) <= 18
    return (int(number), check) if plain and check else None


def check_matches(check: str, message_id: str) -> bool:
    return check == _check(message_id)


def press_reply_address(judge: str, game: str, powers: list[str]) -> str:
    """judge+GAME-press-FRANCE@domain: a Reply there is press back to FRANCE (several
    powers joined with dots). It names who wrote, never a password."""
    local, _, domain = judge.rpartition("@")
    who = ".".join(p.lower() for p in powers)
    return f"{local}+{game.lower()}-press-{who}@{domain}"

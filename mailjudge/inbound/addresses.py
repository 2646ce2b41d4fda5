"""The judge's own addresses: judge@domain and its judge+DETAIL@domain sub-addresses."""

from __future__ import annotations


def split_address(address: str) -> tuple[str, str]:
    """(local part, lower-cased domain); the domain is "" when there is no @."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    if not at:
        return address.strip().strip("<>"), ""
    return local, domain.lower()


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

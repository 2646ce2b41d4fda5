"""Bounces: delivery status notifications (RFC 3464) and the judge's VERP addresses.

Every mail the judge sends has the envelope sender judge+bounce-ID-CHECK@domain, where ID
is its outbox row and CHECK a digest of its random Message-ID, so a bounce says which mail
failed and a forged one cannot name a mail it never saw.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesParser

from mailjudge.inbound.addresses import judge_detail

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
    return (int(number), check) if number.isdigit() and check else None


def check_matches(check: str, message_id: str) -> bool:
    return check == _check(message_id)


@dataclass(frozen=True)
class Failure:
    recipient: str
    status: str  # 5.1.1
    diagnostic: str


def failures(raw: bytes) -> list[Failure]:
    """The failed recipients a delivery status notification reports (Action: failed);
    delayed or delivered ones are not failures. [] for any other mail."""
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        return []
    found: list[Failure] = []
    for part in message.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        for fields in _recipient_fields(part):
            if fields.get("action", "").lower() != "failed":
                continue
            recipient = fields.get("final-recipient") or fields.get("original-recipient", "")
            address = recipient.partition(";")[2].strip().strip("<>").lower()
            diagnostic = " ".join(fields.get("diagnostic-code", "").split())
            if "@" in address:
                found.append(Failure(address, fields.get("status", ""), diagnostic))
    return found


def _recipient_fields(part: Message) -> list[dict[str, str]]:
    """The per-recipient field groups of a message/delivery-status part (the first group
    is the per-message one)."""
    payload = part.get_payload()
    groups = [g for g in payload if isinstance(g, Message)] if isinstance(payload, list) else []
    if not groups and isinstance(payload, str):  # some parsers leave the groups as text
        groups = [BytesParser(policy=policy.compat32).parsebytes(block.encode())
                  for block in payload.strip().split("\n\n")]  # fmt: skip
    return [{k.lower(): str(v) for k, v in group.items()} for group in groups[1:]]

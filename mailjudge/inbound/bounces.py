"""Bounces: the failed recipients a delivery status notification (RFC 3464) reports. The
VERP address that says which mail came back is in mailjudge/addresses.py."""

from __future__ import annotations

from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesParser


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

"""How a mail from the judge reads in a person's mail client, checked after every
end-to-end test (conftest): it parses with no defect (email.policy.strict would refuse
it), its text parts are 7bit or quoted-printable (never base64), no line of them passes 78
characters, and a picture the HTML shows is inline, not listed as an attachment."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

MAX_LINE = 78


def parsed(raw: bytes) -> EmailMessage:
    """``raw`` as the sink parses it (email.policy.default)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def format_problems(message: EmailMessage, name: str) -> list[str]:
    """What reads badly in ``message``, parsed under email.policy.default (the sink's own
    parse, shared with the secrecy check: parsing is most of the check's time). That
    policy notes on each part the defects email.policy.strict would raise at."""
    defects = [defect for part in message.walk() for defect in part.defects]
    if defects:
        return [f"{name}: does not parse under email.policy.strict: {defects[0]!r}"]
    problems = []
    for part in message.walk():
        kind = part.get_content_type()
        if kind == "text/plain" or kind == "text/html":
            encoding = str(part.get("Content-Transfer-Encoding", "7bit")).lower()
            if encoding == "base64":
                problems.append(f"{name}: a base64 {kind} part")
        if kind == "text/plain" and part.get_content_disposition() != "attachment":
            for line in str(part.get_content()).splitlines():
                if len(line) > MAX_LINE and " " in line.strip():
                    problems.append(f"{name}: a line of {len(line)} characters: {line[:60]!r}")
        if kind == "image/png" and part.get_content_disposition() != "inline":
            problems.append(f"{name}: the board picture is not inline")
    return problems

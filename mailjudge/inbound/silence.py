"""Loop safety (RFC 3834): whether the judge may answer a mail at all. Automatic mail,
list traffic, bounces and reports, a calendar's answer to an invitation and mail from the
judge's own address get no answer; nor does a mail without a From the judge can write to."""

from __future__ import annotations

import re

from mailjudge.addresses import is_judge_address
from mailjudge.inbound.parse import ParsedMail
from mailjudge.outbound.mailbox import writable

# What a player's calendar sends back about an invitation to a deadline (RFC 5546 1.4):
# accepted or declined, another time proposed, a fresh copy asked for. The deadline is the
# judge's to set, and the invitation asks for no answer (RSVP=FALSE): these get none,
# unless the player wrote commands in it (a SIGNON line): then it is read as any mail.
CALENDAR_ANSWERS = ("REPLY", "COUNTER", "REFRESH")
_SIGNON_LINE = re.compile(r"^\s*SIGNON\s", re.IGNORECASE | re.MULTILINE)


def carries_commands(mail: ParsedMail) -> bool:
    """Whether a mail's text signs on (a calendar's answer with orders typed into it is
    read as any mail)."""
    return _SIGNON_LINE.search(mail.text) is not None


def silence_reason(mail: ParsedMail, judge_address: str) -> str | None:
    """Why the judge must not answer this mail, or None when it may."""
    auto = mail.auto_submitted.split(";")[0].strip()
    if auto and auto != "no":
        return f"it is automatic (Auto-Submitted: {auto})"
    if mail.precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"it is bulk or automatic mail (Precedence: {mail.precedence})"
    if mail.autoreply:
        return "it is an automatic reply (X-Autoreply)"
    suppressed = {word.strip() for word in mail.suppress.split(",")}
    if suppressed & {"all", "autoreply"}:
        return (
            f"its sender asks for no automatic answer (X-Auto-Response-Suppress: {mail.suppress})"
        )
    if mail.list_id:
        return f"it came through a mailing list (List-Id: {mail.list_id})"
    if mail.return_path == "":
        return "its return path is empty (<>), as for bounces"
    if mail.content_type == "multipart/report":
        return "it is a delivery or read report"
    if (
        mail.calendar_method in CALENDAR_ANSWERS
        and not carries_commands(mail)
        and not mail.calendar_note
    ):
        return f"it is a calendar's answer to an invitation (METHOD:{mail.calendar_method})"
    if mail.sender and is_judge_address(mail.sender, judge_address):
        return "it comes from the judge's own address"
    if mail.reply_to and is_judge_address(mail.reply_to, judge_address):
        return "its answer would go to the judge's own address"
    if mail.sender.partition("@")[0] in ("mailer-daemon", "postmaster"):
        return f"it comes from {mail.sender}"
    if not mail.sender:
        # A Reply-To alone is no sender: answering it would aim the judge at anyone.
        return "it has no From address (a Reply-To alone is not answered)"
    if not writable(mail.sender):
        return f"its From address {mail.sender!r} is not one the judge can write to (ASCII only)"
    return None

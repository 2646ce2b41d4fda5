"""The mailbox an address reaches, as the judge counts it, and whether the judge can write
to an address at all.

Every cap on the mail the judge sends (and on the mail it answers) counts per mailbox, not
per spelling: ``Box+1@Example.org`` and ``box+2@example.org`` reach the same person, so
five plus-address variants must not get five times an address's hour of mail (issue 52).
The mail itself still goes to the address as it was written.
"""

from __future__ import annotations


def mailbox(address: str) -> str:
    """The key every cap counts ``address`` under: lower case, the local part without its
    ``+tag``."""
    local, at, domain = address.strip().rpartition("@")
    if not at:
        return address.strip().lower()
    base = local.split("+", 1)[0] or local
    return f"{base}@{domain}".lower()


def writable(address: str) -> bool:
    """Whether the judge can send to ``address``: one plain ASCII address. The judge's
    relay takes no SMTPUTF8 (an address such as ``user@exämple.org`` would sit in the
    outbox for ever, retried and failed), so such an address is never queued."""
    local, at, domain = address.rpartition("@")
    return (
        bool(at and local and domain)
        and address.isascii()
        and address.isprintable()
        and not any(c.isspace() for c in address)
    )

"""What a mail's headers tell of where and how it was written, for the master's signals
that two seats may be one person (service/multiseat.py): the DKIM signing domain, the
Message-ID's host, the mail client and its version, and the network of the first server
that names the sending machine. What a large mail provider stamps on millions of its
users' mail (its signing domain, its Message-ID host, its own servers' networks) tells
nothing of a person and is left out.
"""

from __future__ import annotations

import ipaddress
import re
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32

# Providers whose domains and servers millions share (and their own infrastructure's).
LARGE_PROVIDERS = (
    "gmail.com", "googlemail.com", "google.com", "1e100.net", "outlook.com", "hotmail.com",
    "live.com", "msn.com", "office365.com", "microsoft.com", "yahoo.com", "ymail.com",
    "yahoo.co.uk", "yahoodns.net", "aol.com", "icloud.com", "me.com", "mac.com",
    "apple.com", "gmx.net", "gmx.de", "gmx.com", "web.de", "proton.me", "protonmail.com",
    "protonmail.ch", "mail.ru", "yandex.ru", "yandex.net", "qq.com", "163.com", "126.com",
    "fastmail.com", "messagingengine.com", "zoho.com", "orange.fr", "free.fr",
    "t-online.de", "mail.com", "comcast.net", "laposte.net", "libero.it",
)  # fmt: skip
_DKIM_DOMAIN = re.compile(r"(?:^|;)\s*d\s*=\s*([A-Za-z0-9.-]+)")
_FROM_CLAUSE = re.compile(r"^\s*from\s(.*?)(?:\sby\s|$)", re.DOTALL | re.IGNORECASE)
_BRACKETED = re.compile(r"\[(?:IPv6:)?([0-9A-Fa-f:.]+)\]")


def large(domain: str) -> bool:
    domain = domain.lower().strip(".")
    return any(domain == p or domain.endswith("." + p) for p in LARGE_PROVIDERS)


def _network(text: str) -> str | None:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if not ip.is_global:
        return None
    prefix = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def _received_network(head: Message) -> str | None:
    """The network of the earliest Received header that names a sending machine's address
    (the bottom-most: the first server the mail reached)."""
    for header in reversed(head.get_all("Received") or []):
        clause = _FROM_CLAUSE.match(str(header))
        for address in _BRACKETED.findall(clause.group(1) if clause else ""):
            network = _network(address)
            if network is not None:  # the first public one: a home's, not its LAN's
                return network
    return None


def signals(raw: bytes, sender: str) -> list[tuple[str, str]]:
    """The (kind, value) pairs the mail's headers show: "dkim", "msgid", "client",
    "network"; none from a large provider's own."""
    head = BytesHeaderParser(policy=compat32).parsebytes(raw, headersonly=True)
    found: list[tuple[str, str]] = []
    for dkim in head.get_all("DKIM-Signature") or []:
        domain = _DKIM_DOMAIN.search(" ".join(str(dkim).split()))
        if domain and not large(domain.group(1)):
            found.append(("dkim", domain.group(1).lower()))
    message_id = str(head.get("Message-ID", "")).strip().strip("<>")
    host = message_id.rpartition("@")[2].lower()
    if "@" in message_id and host and not large(host):
        found.append(("msgid", host))
    client = " ".join(str(head.get("User-Agent") or head.get("X-Mailer") or "").split())
    if client:
        found.append(("client", client[:255]))
    network = _received_network(head)
    if network and not large(sender.rpartition("@")[2]):
        found.append(("network", network))
    return found

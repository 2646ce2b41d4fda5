"""What the receiving MTA says of a mail's sender: the Authentication-Results header
(RFC 8601) that a milter such as OpenDKIM or OpenDMARC adds.

Anyone may write such a header into the mail they send, so only the ones stamped with the
authserv-id the operator names (security.trusted_authserv_id) count, and of those only the
ones above the first Received header: a milter of the judge's MTA inserts its header at the
top, above the MTA's own Received line, while whatever the sender wrote stands below it.

That Received line says where the MTA had the mail from. From its own host (a client on
loopback, or a local submission through sendmail), an SPF pass proves nothing: OpenDMARC's
SPF check passes any sender connecting from loopback, so anyone with a login on the
judge's host could file a seat's orders with its token alone (issue 52). Then only a DKIM
signature counts: it proves the sender's domain wherever the mail came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import Message


@dataclass(frozen=True)
class Result:
    """One resinfo: ``dkim=pass header.d=example.org`` -> method dkim, result pass,
    props {"header.d": "example.org"}."""

    method: str
    result: str
    props: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AuthResults:
    authserv_id: str
    results: tuple[Result, ...]
    # The MTA's Received line below it says the mail came from the MTA's own host.
    local_client: bool = False


def _segments(value: str) -> list[list[str]]:
    """The header's words, split at ';', without comments (nested parentheses) and with
    quoted strings unquoted; ``a = b`` is joined into ``a=b``."""
    segments: list[list[str]] = [[]]
    word: list[str] = []
    depth = 0
    quoted = False
    n = 0

    def close() -> None:
        if word:
            segments[-1].append("".join(word))
            word.clear()

    while n < len(value):
        ch = value[n]
        if quoted:
            if ch == "\\" and n + 1 < len(value):
                word.append(value[n + 1])
                n += 1
            elif ch == '"':
                quoted = False
            else:
                word.append(ch)
        elif depth:
            if ch == "\\":
                n += 1
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
        elif ch == '"':
            quoted = True
        elif ch == "(":
            close()
            depth = 1
        elif ch == ";":
            close()
            segments.append([])
        elif ch.isspace():
            close()
        else:
            word.append(ch)
        n += 1
    close()
    return [_joined(words) for words in segments]


def _joined(words: list[str]) -> list[str]:
    """['dkim', '=', 'pass'] and ['dkim=', 'pass'] -> ['dkim=pass']."""
    out: list[str] = []
    for word in words:
        if out and (word.startswith("=") or out[-1].endswith("=")):
            out[-1] += word
        else:
            out.append(word)
    return out


def parse(value: str) -> AuthResults | None:
    """One header's value; None when it has no authserv-id."""
    segments = _segments(value)
    if not segments[0]:
        return None
    results = []
    for words in segments[1:]:
        if not words or "=" not in words[0]:
            continue
        method, _, result = words[0].partition("=")
        props = {}
        for word in words[1:]:
            key, sep, val = word.partition("=")
            if sep and key.lower() != "reason":
                props[key.lower()] = val
        results.append(Result(method.split("/")[0].lower(), result.lower(), props))
    return AuthResults(segments[0][0].lower(), tuple(results))


def results_on_top(message: Message) -> tuple[AuthResults, ...]:
    """The Authentication-Results headers of ``message`` above its first Received header,
    topmost first, whoever stamped them; each marked local_client when that Received
    header (the MTA's own) says the mail came from the MTA's own host."""
    found = []
    local = False
    for name, value in message.items():
        lower = name.lower()
        if lower == "received":
            local = from_local_client(str(value))
            break
        if lower == "authentication-results":
            parsed = parse(str(value))
            if parsed is not None:
                found.append(parsed)
    if local:
        return tuple(AuthResults(r.authserv_id, r.results, True) for r in found)
    return tuple(found)


# "from host (host [127.0.0.1])", "[IPv6:::1]", "[::1]": the client's address as Postfix,
# Exim and Sendmail write it in their Received line.
_CLIENT_IP = re.compile(r"\[(?:IPv6:)?([0-9A-Fa-f:.]+)\]")


def from_local_client(received: str) -> bool:
    """Whether an MTA's Received line says it took the mail from its own host: a client on
    loopback, or no client at all (a local submission: "by mx (Postfix, from userid 1000)",
    no "from" clause)."""
    text = " ".join(received.split())
    head = text.split(";")[0]
    if not re.match(r"from\s", head, re.IGNORECASE):
        return True  # no client named: a local submission
    found = _CLIENT_IP.search(head.split(" by ")[0] if " by " in head else head)
    if found is None:
        return bool(re.match(r"from\s+localhost\b", head, re.IGNORECASE))
    address = found.group(1).lower()
    return address.startswith("127.") or address in ("::1", "0:0:0:0:0:0:0:1")


def _domain(address: str) -> str:
    return address.rpartition("@")[2].lower()


def _aligned(signer: str, domain: str) -> bool:
    """A DKIM signing domain speaks for ``domain`` when it is it or a parent of it (relaxed
    alignment), never a bare top-level name."""
    signer = signer.lower().lstrip("@")
    return "." in signer and (domain == signer or domain.endswith("." + signer))


def vouches_for(result: Result, address: str, local_client: bool = False) -> bool:
    """Whether ``result`` proves that ``address`` sent the mail: DKIM passed for its
    domain, DMARC passed for it, or SPF passed for it (or its domain) as envelope sender.
    From a ``local_client`` only DKIM counts (SPF, and a DMARC pass that may rest on it,
    say nothing of a mail from the MTA's own host)."""
    if result.result != "pass" or (local_client and result.method != "dkim"):
        return False
    domain = _domain(address)
    if result.method == "dkim":
        signer = result.props.get("header.d") or _domain(result.props.get("header.i", ""))
        return bool(signer) and _aligned(signer, domain)
    if result.method == "dmarc":  # a DMARC pass is an aligned DKIM or SPF pass
        return result.props.get("header.from", "").lower() == domain
    if result.method == "spf":
        mailfrom = result.props.get("smtp.mailfrom", "").lower()
        return mailfrom in (address.lower(), domain) and bool(mailfrom)
    return False


def sender_proven(on_top: tuple[AuthResults, ...], authserv_id: str | None, address: str) -> bool:
    """Whether the operator's MTA (its headers among ``on_top``, see results_on_top) vouches
    that ``address`` sent the mail; False when no authserv-id is trusted."""
    if not authserv_id or not address or "@" not in address:
        return False
    return any(
        vouches_for(result, address, header.local_client)
        for header in on_top
        if header.authserv_id == authserv_id.lower()
        for result in header.results
    )

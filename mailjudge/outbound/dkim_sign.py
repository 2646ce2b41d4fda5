"""DKIM signatures (RFC 6376) on everything the judge sends, when the operator gives a key:
large mailbox providers junk or refuse unsigned mail. dkimpy does the signing; the judge
signs each mail as it hands it to the relay, so the signature's time is the sending time."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dkim

from mailjudge.config.settings import DkimSettings

# The headers a signature covers: those a reader sees and a forger would change.
SIGNED_HEADERS = [
    b"from", b"to", b"cc", b"reply-to", b"subject", b"date", b"message-id", b"in-reply-to",
    b"references", b"mime-version", b"content-type", b"content-transfer-encoding",
    b"list-id", b"list-post", b"auto-submitted",
]  # fmt: skip


class DkimError(ValueError):
    """The DKIM settings cannot sign; the message says what to fix."""


@dataclass(frozen=True)
class DkimSigner:
    selector: str
    domain: str
    key: bytes  # the private key, PEM

    @classmethod
    def from_settings(cls, settings: DkimSettings, judge_domain: str) -> DkimSigner | None:
        """None when DKIM is off (no selector or no key file)."""
        if not settings.selector or not settings.key_file:
            return None
        path = Path(settings.key_file)
        try:
            key = path.read_bytes()
        except OSError as err:
            raise DkimError(f"dkim.key_file {path}: {err.strerror}") from None
        if b"PRIVATE KEY" not in key:
            raise DkimError(f"dkim.key_file {path} holds no PEM private key")
        return cls(settings.selector, settings.domain or judge_domain, key)

    def sign(self, raw: bytes) -> bytes:
        """The mail with a DKIM-Signature header in front."""
        signature = dkim.sign(
            raw, self.selector.encode(), self.domain.encode(), self.key,
            canonicalize=(b"relaxed", b"relaxed"), include_headers=SIGNED_HEADERS,
        )  # fmt: skip
        return bytes(signature) + raw

"""Secrecy across the end-to-end tests: what the players mailed the judge (passwords,
ballots) against what the judge mailed out.

A password is one a player wrote in a command that carries one, where the judge's own
list says (mailjudge/secrecy/secret_words.py, read by masking.line_secrets: SIGNON and SIGN ON,
CREATE, JOIN, OBSERVE, TAKEOVER, SET PASSWORD, RESET PASSWORD, ...), wherever the line
stands (inside a press too: such a press is refused); no mail out may carry it. A ballot
is a VOTE line with its choices (VOTE OUT TURKEY 3, VOTE ORDERS 2 1, VOTE DIPLOMAT ann); a
mail out may show it only when every recipient cast that very ballot (a voter's own reply
echoes it). A ballot written inside PRESS ... ENDPRESS is press, published by that
player's choice, and is not checked.
"""

from __future__ import annotations

import email
import email.policy
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses

from helpers.mailstack import Received
from mailjudge.game.openings import PASSWORD_WORD
from mailjudge.game.reply_tokens import is_token
from mailjudge.secrecy.masking import MASK, line_secrets
from mailjudge.secrecy.passwords import PLACEHOLDER

_PRESS_START = ("PRESS", "BROADCAST")
_PRESS_END = ("ENDPRESS", "END PRESS", "END")


def _parse(raw: bytes) -> EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _texts(message: EmailMessage) -> list[str]:
    texts = []
    for part in message.walk():
        if part.get_content_maintype() == "text":
            try:
                texts.append(str(part.get_content()))
            except (LookupError, ValueError):
                texts.append(part.get_payload(decode=True).decode("utf-8", "replace"))
    return texts


def _norm(line: str) -> str:
    return " ".join(line.lstrip("> \t").split()).upper()


@dataclass
class Secrets:
    passwords: set[str] = field(default_factory=set)
    voters: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # ballot -> who

    def read(self, raw: bytes) -> None:
        """Note the passwords and ballots of one mail a player sent the judge."""
        message = _parse(raw)
        sender = next((a.lower() for _, a in getaddresses([str(message["From"] or "")])), "")
        in_press = False
        for text in _texts(message):
            for line in text.splitlines():
                words = line.split()
                head = words[0].upper() if words else ""
                self.passwords.update(line_secrets(line))
                if in_press:
                    in_press = _norm(line) not in _PRESS_END
                elif head in _PRESS_START:
                    in_press = True
                elif head == "VOTE" and len(words) > 2:
                    self.voters[_norm(line)].add(sender)

    def leaks(self, mails: Iterable[Received]) -> list[str]:
        """What each mail out shows that it should not."""
        found = []
        # The ready-to-send block's placeholder and Reply token, the openings' TAKEOVER
        # line's and the mask of an echoed password are the judge's own words, copied back
        # in a Reply's copy of its mail, never a password.
        patterns = {
            pw: re.compile(r"(?<![\w-])" + re.escape(pw) + r"(?![\w-])")
            for pw in self.passwords - {PLACEHOLDER, PASSWORD_WORD, MASK}
            if not is_token(pw)
        }
        for mail in mails:
            message = mail.message  # the sink's parse, kept (the format check reads it too)
            texts = [mail.raw.decode("utf-8", "replace"), *_texts(message)]
            what = f"mail {message['Subject']!r} to {', '.join(mail.rcpt_tos)}"
            for password, pattern in patterns.items():
                if _assigned(password, texts, mail.rcpt_tos):
                    continue
                # `in` first: a plain search is many times quicker than the pattern's.
                if any(password in text and pattern.search(text) for text in texts):
                    found.append(f"{what} carries the password {password!r}")
            readers = {r.lower() for r in mail.rcpt_tos}
            for text in texts[1:]:
                for line in text.splitlines():
                    voters = self.voters.get(_norm(line))
                    if voters is not None and not readers <= voters:
                        found.append(f"{what} shows the ballot {line.strip()!r}")
        return found


# The one mail that may carry a password: the answer to a SOLITAIRE game's CREATE, to its
# master alone, with the privacy password the judge made for it (seed 001: "A PRIVACY
# password will be automatically assigned"); nobody chose it, so nobody's is given away.
ASSIGNED = "its privacy password is "


def _assigned(password: str, texts: list[str], readers: list[str]) -> bool:
    return len(readers) == 1 and any(ASSIGNED + password in " ".join(t.split()) for t in texts)

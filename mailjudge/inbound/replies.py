"""What a person wrote in a reply, without the mail they were answering.

Mail clients put an attribution before the text they quote: mutt's "On Mon, ... wrote:",
Gmail's, Outlook's "-----Original Message-----" or "From: ... Sent: ..." block, in the
writer's language. Recognising them is the job of mail-parser-reply, a maintained library
that knows the wordings of many clients and languages; this module only decides what to
cut once it has found one.
"""

from __future__ import annotations

import re
from functools import cache

from mailparser_reply import EmailReplyParser

# The languages whose attributions are recognised (English is always included).
# Polish is left out: its pattern takes a single "Data:" or "Do:" line for a header block.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "sv", "da")

# A last resort for clients and languages the library does not know, and for attributions
# a client wrapped over two lines: a line holding an address, ending in a colon (on it or
# on the next line), directly followed by quoted lines, is an attribution in any language.
_ANY_ATTRIBUTION = re.compile(
    r"^[^\n>]*@[^\n]*(?:\n[^\n>]*)?:[ \t]*\n(?:[ \t]*\n)?[ \t]*>", re.MULTILINE
)

# Outlook draws a line of underscores above its header block.
_SEPARATOR_AT_END = re.compile(r"\n[ \t]*[_=-]{8,}[ \t]*\n\s*\Z")


@cache
def _attribution() -> re.Pattern[str]:
    parser = EmailReplyParser(languages=list(LANGUAGES))
    pattern: re.Pattern[str] = parser.read("").HEADER_REGEX
    return pattern


def without_quoted_reply(text: str) -> str:
    """The text up to the first attribution when what follows it is an unquoted copy
    (Outlook, Gmail's forwarded block); when the copy is quoted with '>' (mutt,
    Thunderbird, bottom posting), only the attribution goes, since the writer may have
    answered between the quoted lines and quoted lines are never read anyway."""
    out = ""
    rest = text.replace("\r\n", "\n")  # the patterns end lines at a bare newline
    while True:
        candidates = [m for m in (_attribution().search(rest), _ANY_ATTRIBUTION.search(rest)) if m]
        if not candidates:
            return out + rest
        found = min(candidates, key=lambda m: m.start())
        start = rest.rfind("\n", 0, found.start()) + 1  # the whole line it starts on
        end = _end_of_line(rest, found)
        out += rest[:start]
        rest = rest[end:]
        if not _is_quoted(rest):
            return _SEPARATOR_AT_END.sub("\n", out)


def _end_of_line(text: str, found: re.Match[str]) -> int:
    """Where the attribution ends: after its line, but before any quoted line the
    last-resort pattern reached into."""
    end = found.end()
    if text[end - 1 : end] == ">":
        return text.rfind("\n", 0, end) + 1
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline + 1


def _is_quoted(text: str) -> bool:
    """Whether the first line with something on it is quoted."""
    for line in text.splitlines():
        if line.strip():
            return line.lstrip().startswith(">")
    return True

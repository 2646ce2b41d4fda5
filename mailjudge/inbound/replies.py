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


# The line a client writes above a forwarded mail (Gmail, Outlook, Thunderbird, Apple
# Mail, in the languages of LANGUAGES), seen just above the forwarded mail's header block.
_FORWARD_LINE = re.compile(
    r"^[ \t]*(?:-{2,}[ \t]*(?:Forwarded message|Forwarded Message|"
    r"Weitergeleitete Nachricht|Message transféré|"
    r"Mensaje reenviado|Messaggio inoltrato|Doorgestuurd bericht|Vidarebefordrat meddelande|"
    r"Videresendt meddelelse)[^\n]*|Begin forwarded message:|Début du message réexpédié :|"
    r"Anfang der weitergeleiteten Nachricht:)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def without_quoted_reply(text: str) -> str:
    """The text up to the first attribution when what follows it is an unquoted copy
    (Outlook, Gmail's forwarded block); when the copy is quoted with '>' (mutt,
    Thunderbird, bottom posting), only the attribution goes, since the writer may have
    answered between the quoted lines and quoted lines are never read anyway."""
    return reply_parts(text)[0]


def reply_parts(text: str) -> tuple[str, bool]:
    """What `without_quoted_reply` keeps, and whether what it left out is a forwarded
    mail (which the writer may think the judge reads: the answer says it does not).

    A header block (Outlook's From:/Sent:/To:/Subject:, a forward's, "-----Original
    Message-----") is always followed by a copy that is not the writer's, even when the
    copy's own lines begin with '>' (the judge's answers echo commands so): everything
    after it goes. Only an attribution line ("On ... wrote:") can head a quoted copy the
    writer answered between."""
    out = ""
    rest = text.replace("\r\n", "\n")  # the patterns end lines at a bare newline
    while True:
        candidates = [m for m in (_attribution().search(rest), _ANY_ATTRIBUTION.search(rest)) if m]
        if not candidates:
            return out + rest, False
        found = min(candidates, key=lambda m: m.start())
        start = rest.rfind("\n", 0, found.start()) + 1  # the whole line it starts on
        end = _end_of_line(rest, found)
        # The line just above a block (what `start` takes in with it) says if it forwards.
        # (A bounded look back: the reader stays linear in the length of the mail.)
        above = rest[max(0, found.start() - 400) : found.start() + 1]
        above = _last_lines((out[-400:] if found.start() < 400 else "") + above)
        out += rest[:start]
        rest = rest[end:]
        block = _is_header_block(found)
        if block or not _is_quoted(rest):
            forwarded = block and _FORWARD_LINE.search(above) is not None
            kept = _FORWARD_LINE.sub("", out) if forwarded else out
            return _SEPARATOR_AT_END.sub("\n", kept).rstrip() + "\n", forwarded


# One line of a header block: "From:", "Sent:", "Betreff:", "*De :*" and the like.
_HEADER_LINE = re.compile(r"^[ \t]*\**[^\W\d_][\w \t'.-]{0,24}:", re.MULTILINE)


def _is_header_block(found: re.Match[str]) -> bool:
    """Whether the attribution is a header block (two header lines or more, or Outlook's
    "-----Original Message-----"), not an "On ... wrote:" line, even one a client wrapped
    over two lines."""
    found_text = found.group(0).strip()
    return found_text.startswith("-") or len(_HEADER_LINE.findall(found_text)) >= 2


def _last_lines(text: str) -> str:
    """The last few lines of ``text`` with something on them."""
    lines = [line for line in text.split("\n") if line.strip()]
    return "\n".join(lines[-3:])


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

"""What a person wrote in a reply, without the mail they were answering.

Mail clients put an attribution before the text they quote: mutt's "On Mon, ... wrote:",
Gmail's, Outlook's "-----Original Message-----" or "From: ... Sent: ..." block, in the
writer's language. Recognising them is the job of mail-parser-reply, a maintained library
that knows the wordings of many clients and languages; this module only decides what to
cut once it has found one.

The library's pattern is slow: a few microseconds a character on any text, and on a line
built against it, time that grows with the square of the line. So it only ever sees small
windows of the text around the lines that could be part of an attribution (short lines
with a colon, or a row of dashes), and a bounded number of them in one mail. Everything
else here reads each line once.
"""

from __future__ import annotations

import bisect
import re
from functools import cache

from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import MAIL_LANGUAGES

# The languages whose attributions are recognised (English is always included).
# Polish is left out: its pattern takes a single "Data:" or "Do:" line for a header block.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "sv", "da")

# An attribution line is never longer than this; longer lines are not shown to the library.
LONGEST_ATTRIBUTION = 250
# How many characters of one mail the library is shown, at most, counting every window:
# its time on a line built against it grows with the square of the line, so this bounds
# a mail's cost (to a few tenths of a second) whatever the mail holds.
MOST_CHARACTERS = 16_000
# A window: the line before a candidate, the candidate, and this many lines after it
# (an Outlook header block: From, Sent, To, Cc, Subject, and a line after them).
_WINDOW_AFTER = 6

# Outlook draws a line of underscores above its header block.
_SEPARATOR_AT_END = re.compile(r"\n[ \t]*[_=-]{8,}[ \t]*\n\s*\Z")


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


# The line a phone client (Samsung Email, Android mail apps) writes above the header block
# of the mail it copies, in the languages of LANGUAGES: the library knows the English one
# ("-----Original Message-----", GENERIC_MAIL_SEPARATOR), and these go beside it in the
# same form.
_ORIGINAL_MESSAGE = (
    "Original Message", "Ursprüngliche Nachricht", "Message d'origine", "Mensaje original",
    "Messaggio originale", "Oorspronkelijk bericht", "Ursprungligt meddelande",
    "Oprindelig meddelelse",
)  # fmt: skip


@cache
def _attribution() -> re.Pattern[str]:
    parser = EmailReplyParser(languages=list(LANGUAGES))
    pattern: re.Pattern[str] = parser.read("").HEADER_REGEX
    names = "|".join(re.escape(name) for name in _ORIGINAL_MESSAGE)
    separators = rf"(^-{{5,}} ?(?:{names}) ?-{{5,}}$)"
    return re.compile(f"{pattern.pattern}|{separators}", pattern.flags)


# Phone clients' lines the library's "sent_from" wordings miss: Outlook for Android's,
# Yahoo's apps', and the German and French ones that put the verb last or say "de mon".
_MORE_SENT_FROM = (
    "Download Outlook for", "Sent from Yahoo Mail", r"Von meine[mr]? .{1,40} gesendet",
    "Envoy\u00e9 de mon",
)  # fmt: skip


@cache
def _sent_from() -> re.Pattern[str]:
    """A phone client's line under the writer's text ("Sent from my iPhone", "Get Outlook
    for iOS<https://aka.ms/o0ukef>", "Gesendet von ..."): the library's own wordings in
    the languages of LANGUAGES and a few it misses, as a whole short line."""
    wordings = [MAIL_LANGUAGES[lang]["sent_from"] for lang in LANGUAGES
                if "sent_from" in MAIL_LANGUAGES.get(lang, {})]  # fmt: skip
    wordings += _MORE_SENT_FROM
    return re.compile(rf"[ \t]*(?:{'|'.join(wordings)})[^\n]{{0,80}}", re.IGNORECASE)


def without_sent_from(text: str) -> str:
    """``text`` without a phone client's signature line at its end (with the blank lines
    around it): "Get Outlook for iOS" would be read as njudge's GET."""
    lines = text.split("\n")
    while lines and (not lines[-1].strip() or _sent_from().fullmatch(lines[-1])):
        lines.pop()
    return "\n".join(lines) + ("\n" if text.endswith("\n") and lines else "")


def _library_sees(line: str) -> bool:
    """Whether the library takes ``line`` alone for an attribution (its lines stripped
    of surrounding white space, as the library reads them)."""
    return len(line) <= LONGEST_ATTRIBUTION and bool(_attribution().search(line.strip()))


class _Lines:
    """The text cut into lines at bare newlines (as the patterns see it), with where each
    begins."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        at = 0
        for line in self.lines:
            self.starts.append(at)
            at += len(line) + 1

    def index(self, offset: int) -> int:
        """The line the offset is on."""
        return bisect.bisect_right(self.starts, offset) - 1


class _LibraryFinder:
    """The library's first match at or after an offset, found window by window."""

    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.budget = MOST_CHARACTERS
        self.next_line = 0  # candidates before this line were looked at already
        self.found: tuple[int, int] | None = None

    def first_from(self, offset: int) -> tuple[int, int] | None:
        if self.found is not None and self.found[0] >= offset:
            return self.found
        self.found = None
        lines = self.lines.lines
        n = max(self.next_line, self.lines.index(offset))
        while n < len(lines) and self.budget > 0:
            line = lines[n]
            n += 1
            if len(line) > LONGEST_ATTRIBUTION or (":" not in line and "-----" not in line):
                continue
            found = self._in_window(n - 1, offset)
            if found is not None:
                self.next_line = n
                self.found = found
                return found
        self.next_line = n
        return None

    def _in_window(self, candidate: int, offset: int) -> tuple[int, int] | None:
        lines, starts = self.lines.lines, self.lines.starts
        first = candidate
        if first > 0 and len(lines[first - 1]) <= LONGEST_ATTRIBUTION:
            first -= 1
        if starts[first] < offset:
            first = candidate
        last = candidate + 1
        while last < min(len(lines), candidate + 1 + _WINDOW_AFTER):
            if len(lines[last]) > LONGEST_ATTRIBUTION:
                break
            last += 1
        # The library reads each line stripped of the white space around it (its
        # _normalize_text): Yahoo indents its attribution and ends it with a space.
        stripped = [line.strip() for line in lines[first:last]]
        window = "\n".join(stripped)
        self.budget -= len(window)
        found = _attribution().search(window)
        if found is None or not found.group(0).strip():
            return None
        return self._offset(first, stripped, found.start()), self._offset(
            first, stripped, found.end()
        )

    def _offset(self, first: int, stripped: list[str], at: int) -> int:
        """The offset in the text of offset ``at`` in the stripped window."""
        lines, starts = self.lines.lines, self.lines.starts
        for n, line in enumerate(stripped):
            if at <= len(line):
                original = lines[first + n]
                return starts[first + n] + (len(original) - len(original.lstrip())) + at
            at -= len(line) + 1
        return starts[first + len(stripped) - 1] + len(lines[first + len(stripped) - 1])


def _any_attribution(lines: _Lines, from_line: int) -> tuple[int, int] | None:
    """A last resort for clients and languages the library does not know, and for
    attributions a client wrapped over two lines: a line holding an address, ending in a
    colon (on it or on the next line), directly followed by quoted lines (one blank line
    may come between), is an attribution in any language. (start, end) of the first from
    ``from_line``, the end just after the '>' of the first quoted line."""
    texts = lines.lines
    for n in range(from_line, len(texts)):
        line = texts[n]
        at = line.find("@")
        if at < 0 or ">" in line[:at]:
            continue
        ends: list[int] = []  # the line after the colon's, as the old pattern tried them
        # A line the library reads as a whole attribution ("On ... wrote:") has no first
        # half above it: the line there is the writer's own (a SIGNON, say).
        if (n + 1 < len(texts) and ">" not in texts[n + 1] and _ends_with_colon(texts[n + 1])
                and not _library_sees(texts[n + 1])):  # fmt: skip
            ends.append(n + 2)
        if _ends_with_colon(line[at + 1 :]):
            ends.append(n + 1)
        for after in ends:
            quote = _quoted_at(texts, after)
            if quote is not None:
                return lines.starts[n], lines.starts[quote] + texts[quote].index(">") + 1
    return None


def _ends_with_colon(text: str) -> bool:
    return text.rstrip(" \t").endswith(":")


def _quoted_at(texts: list[str], n: int) -> int | None:
    """The line at n (or after one blank line there) when it starts with '>'."""
    for k in (n, n + 1):
        if k >= len(texts):
            return None
        stripped = texts[k].lstrip(" \t")
        if stripped.startswith(">"):
            return k
        if stripped or k == n + 1:
            return None
    return None


class _AnyFinder:
    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.found: tuple[int, int] | None = None
        self.searched_from = -1  # nothing found from this offset on (when found is None)

    def first_from(self, offset: int) -> tuple[int, int] | None:
        if self.found is not None and self.found[0] >= offset:
            return self.found
        if self.found is None and 0 <= self.searched_from <= offset:
            return None
        self.found = _any_attribution(self.lines, self.lines.index(offset))
        self.searched_from = offset
        return self.found


# Where the mail's first line runs on after an attribution, on the same line: a colon and
# then at least two spaces before more text (Yahoo Mail for Android: "... wrote:   Hello").
_RUN_ON = re.compile(r":[ \t]{2,}\S")


class _RunOnFinder:
    """An attribution the mail's first line runs on after: the library's attribution,
    ending at a colon, and the copy after it on the same line. (start, end) of the first
    at or after an offset, the end just after the colon; a bounded number of lines
    looked at, as for the library."""

    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.budget = MOST_CHARACTERS
        self.found: tuple[int, int] | None = None
        self.next_line = 0

    def first_from(self, offset: int) -> tuple[int, int] | None:
        if self.found is not None and self.found[0] >= offset:
            return self.found
        self.found = None
        texts, starts = self.lines.lines, self.lines.starts
        n = max(self.next_line, self.lines.index(offset))
        while n < len(texts) and self.budget > 0:
            line = texts[n]
            n += 1
            if len(line) > LONGEST_ATTRIBUTION:
                continue
            for run_on in _RUN_ON.finditer(line):
                self.budget -= run_on.start() + 1
                if _library_sees(line[: run_on.start() + 1]):
                    self.next_line = n
                    start = starts[n - 1] + len(line) - len(line.lstrip())
                    self.found = (start, starts[n - 1] + run_on.start() + 1)
                    return self.found
        self.next_line = n
        return None


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
    kept, forwarded, _ = _read(text)
    return kept, forwarded


def unquoted_copy_at(text: str) -> int | None:
    """Where (an offset in ``text`` with its line ends made bare newlines) the unquoted
    copy of the mail answered begins: the line of its header block or attribution. None
    when there is none (no attribution, or only a quoted copy)."""
    return _read(text)[2]


def _read(text: str) -> tuple[str, bool, int | None]:
    text = text.replace("\r\n", "\n")  # the patterns end lines at a bare newline
    lines = _Lines(text)
    finders = (_LibraryFinder(lines), _AnyFinder(lines), _RunOnFinder(lines))
    out: list[str] = []
    at = 0
    while True:
        candidates = [f for f in (finder.first_from(at) for finder in finders) if f]
        if not candidates:
            return without_sent_from("".join(out) + text[at:]), False, None
        start, end = min(candidates)
        block = _is_header_block(text[start:end])
        # The lines just above a block say if it forwards (a bounded look back: the
        # reader stays linear in the length of the mail).
        above = _last_lines(text[max(0, start - 400) : start + 1])
        line_start = text.rfind("\n", 0, start) + 1  # the whole line it starts on
        out.append(text[at:line_start])
        at = _end_of_line(text, end)
        if block or not _is_quoted(lines, at):
            kept = "".join(out)
            forwarded = block and _FORWARD_LINE.search(above) is not None
            kept = _FORWARD_LINE.sub("", kept) if forwarded else kept
            kept = without_sent_from(_SEPARATOR_AT_END.sub("\n", kept).rstrip())
            return kept.rstrip() + "\n", forwarded, line_start


# One line of a header block: "From:", "Sent:", "Betreff:", "*De :*" and the like.
_HEADER_LINE = re.compile(r"^[ \t]*\**[^\W\d_][\w \t'.-]{0,24}:", re.MULTILINE)


def _is_header_block(found_text: str) -> bool:
    """Whether the attribution is a header block (two header lines or more, or Outlook's
    "-----Original Message-----"), not an "On ... wrote:" line, even one a client wrapped
    over two lines."""
    found_text = found_text.strip()
    return found_text.startswith("-") or len(_HEADER_LINE.findall(found_text)) >= 2


def _last_lines(text: str) -> str:
    """The last few lines of ``text`` with something on them."""
    kept = [line for line in text.split("\n") if line.strip()]
    return "\n".join(kept[-3:])


def _end_of_line(text: str, end: int) -> int:
    """Where the attribution ends: after its line, but before any quoted line the
    last-resort pattern reached into."""
    if text[end - 1 : end] == ">":
        return text.rfind("\n", 0, end) + 1
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline + 1


def _is_quoted(lines: _Lines, offset: int) -> bool:
    """Whether the first line with something on it, from ``offset`` on, is quoted."""
    if offset >= len(lines.text):
        return True
    texts = lines.lines
    for n in range(lines.index(offset), len(texts)):
        if texts[n].strip():
            return texts[n].lstrip().startswith(">")
    return True

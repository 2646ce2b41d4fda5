"""Passwords out of sight: in what the judge echoes back, and in the stored copy of a mail
once it is parsed; and the lines a press or a post may not carry. The commands that carry
a password, and where, are secret_words.SECRET_COMMANDS (the commands' own specs): each
is read however it is spelt (SIGN ON or SIGNON, SIGNON= or SIGNON: with the password
after it), after white space, quote marks and invisible (format) characters, with its
password on a later line, and with extra words after it. A word after a seat's
name@game is hidden too, wherever the line stands (a mistyped command).

The text is read a line at a time and each line once, so masking costs time in proportion
to the mail's length whatever its shape (a mail of blank lines once took minutes).
"""

from __future__ import annotations

import codecs
import html
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from email import policy
from email.header import Header, decode_header, make_header
from email.message import Message
from email.parser import BytesParser

from mailjudge.inbound.html2text import html_to_text
from mailjudge.remembered import remembered
from mailjudge.secrecy.secret_words import SECRET_COMMANDS, SECRET_FOLLOWERS, SecretPlace

MASK = "****"
_WORD = re.compile(r"\S+")
# A seat name@game (a game has no dot, a mail domain has): the word after it is read as a
# password wherever the line stands (RESIGN russia@game pw, mistyped).
_SEAT_AT_GAME = re.compile(r"[\w.+-]@[\w-]+$")


def _run_together(table: Mapping[str, SecretPlace]) -> dict[str, tuple[str, SecretPlace]]:
    """Each name as the masking matches it, its words run together: name, place."""
    return {name.replace(" ", ""): (name, place) for name, place in table.items()}


_COMMANDS = _run_together(SECRET_COMMANDS)
_FOLLOWERS = {name: _run_together(followers) for name, followers in SECRET_FOLLOWERS.items()}
# Words a line must hold (upper case, format characters out) before it is looked at closer:
# the longest word of each name, which a line naming the command holds however it spaces it.
_HINTS = tuple(
    sorted(
        {max(name.split(), key=len) for name in SECRET_COMMANDS}
        | {max(name.split(), key=len) for f in SECRET_FOLLOWERS.values() for name in f}
        | {"@"}
    )
)


class _Pending:
    """A command whose password is on a later line: skip ``skip`` words, mask the next."""

    __slots__ = ("skip",)

    def __init__(self, skip: int) -> None:
        self.skip = skip


@dataclass(frozen=True)
class _Found:
    """A line that opens a command with a password: its name, where its passwords stand on
    the line, and how many words after its name are still to come before the first when
    the line holds none."""

    name: str
    passwords: list[tuple[int, int]]  # the words its spec calls passwords
    after: list[tuple[int, int]]  # the words after them, hidden when the spec ends there
    still: int

    @property
    def places(self) -> list[tuple[int, int]]:
        return self.passwords + self.after


def _visible(word: str) -> str:
    """A word without format characters (zero-width spaces, joiners, marks of direction):
    the reader does not see them, so neither may the masking be fooled by them."""
    if word.isascii():
        return word
    return "".join(ch for ch in word if unicodedata.category(ch) != "Cf")


def _command(
    words: list[str],
    spans: list[tuple[int, int]],
    table: Mapping[str, tuple[str, SecretPlace]] = _COMMANDS,
) -> _Found | None:
    """The command with a password a line opens (``table``: SECRET_COMMANDS, or the lines
    that follow one), or None. ``words`` are upper case and visible."""
    first = 0
    while first < len(words) and not words[first].strip(">"):
        first += 1  # quote marks standing alone
    named = _name(words, first, table)
    if named is None:
        return None
    (name, place), rest, sep, attached = named
    arguments: list[tuple[int, int]] = []
    if attached:  # SIGNON=france@g pw: the rest of the word counts as a word
        start, end = spans[rest - 1]
        # The word as written may hold characters its visible form has not: all of it then.
        exact = end - start == len(words[rest - 1])
        arguments.append((end - len(attached) if exact else start, end))
    elif not sep and rest < len(words) and words[rest] in ("=", ":"):
        rest += 1  # SIGNON = france@g pw
    arguments += spans[rest:]
    passwords = [arguments[n] for n in place.words if n < len(arguments)]
    after = arguments[place.words[-1] + 1 :] if place.to_end else []
    return _Found(name, passwords, after, max(0, place.words[0] - len(arguments)))


def _name(
    words: list[str], first: int, table: Mapping[str, tuple[str, SecretPlace]]
) -> tuple[tuple[str, SecretPlace], int, str, str] | None:
    """The longest name of ``table`` the words from ``first`` spell (SIGN ON, SIGNON,
    SIGNON=...): its entry, the index of the word after it, and the = or : that ended it
    with what was attached to it; None when they spell none."""
    found = None
    joined = ""
    for at in range(first, min(first + 3, len(words))):
        word = words[at].lstrip(">") if at == first else words[at]
        name, sep, attached = _split_head(word)
        joined += name
        if joined in table:
            found = (table[joined], at + 1, sep, attached)
        if sep:
            break
    return found


def _split_head(head: str) -> tuple[str, str, str]:
    """'SIGNON=FRANCE@G' -> ('SIGNON', '=', 'FRANCE@G'); 'JOIN' -> ('JOIN', '', '')."""
    for n, ch in enumerate(head):
        if ch in "=:":
            return head[:n], ch, head[n + 1 :]
    return head, "", ""


def _line_words(line: str) -> tuple[list[str], list[tuple[int, int]]]:
    """A line's words, upper case and visible, and where each stands on it."""
    spans = [m.span() for m in _WORD.finditer(line)]
    words = [_visible(line[a:b]).upper() for a, b in spans]
    keep = [n for n, word in enumerate(words) if word]
    return [words[n] for n in keep], [spans[n] for n in keep]


def password_command(line: str) -> str | None:
    """The command with a password that ``line`` opens, however it is written (SIGN ON,
    SIGNON=, quoted, invisible characters), as SECRET_COMMANDS names it; None when it
    opens none. Whether its password is on the line or not: a press or a post holding
    such a line would show one."""
    if not _may_hold_password(line):
        return None
    found = _command(*_line_words(line))
    return found.name if found is not None else None


def line_secrets(line: str) -> list[str]:
    """The passwords a command line carries on the line itself, where SECRET_COMMANDS
    puts them (not the words after them, nor after a seat@game, which masking hides in
    case; nor another line's)."""
    words, spans = _line_words(line)
    found = _command(words, spans)
    return [line[a:b] for a, b in found.passwords] if found is not None else []


def _may_hold_password(text: str) -> bool:
    """False when no line of ``text`` can be a command with a password: most mail of any
    size, found in a few passes over it in C."""
    if not text.isascii():
        return True  # format characters may hide a command's letters
    upper = text.upper()
    return any(hint in upper for hint in _HINTS)


def _mask_lines(text: str, after: str | None = None) -> str:
    """The text with its passwords masked; ``after``: the command the text follows (its
    lines may be that command's followers: DPjudge's PRIVATE line after CREATE)."""
    if not _may_hold_password(text):
        return text
    out: list[str] = []
    pending: _Pending | None = None
    # The lines that may follow a command seen above, once one was (kept to the end of
    # the text: a word too many hidden costs nothing, one too few shows a password).
    followers = _FOLLOWERS.get(after or "", {})
    changed = False
    for line in text.split("\n"):
        if not line or line.isspace():
            out.append(line)  # no words: the pending password is on a later line
            continue
        if pending is None:
            upper = line.upper()
            if not any(hint in upper for hint in _HINTS) and line.isascii():
                out.append(line)
                continue
        words, spans = _line_words(line)
        hidden: list[tuple[int, int]] = []
        if pending is not None:
            if pending.skip < len(spans):
                hidden.append(spans[pending.skip])
                pending = None
            else:
                pending.skip -= len(spans)
        found = _command(words, spans)
        if found is not None:
            hidden += found.places
            if not found.places:  # SIGNON\nfrance@g pw: the password is on a later line
                pending = _Pending(found.still)
            followers = _FOLLOWERS.get(found.name, followers)
        elif followers:  # a follower's password is on its own line (PRIVATE alone: none)
            follower = _command(words, spans, followers)
            hidden += follower.places if follower is not None else []
        for n, word in enumerate(words):
            if _SEAT_AT_GAME.search(word):
                if n + 1 < len(spans):
                    hidden.append(spans[n + 1])
                elif pending is None:
                    pending = _Pending(0)
                break
        if hidden:
            masked = _replaced(line, hidden)
            changed |= masked != line
            line = masked
        out.append(line)
    return "\n".join(out) if changed else text


def _replaced(line: str, spans: list[tuple[int, int]]) -> str:
    parts: list[str] = []
    at = 0
    for start, end in sorted(set(spans)):
        if start < at:
            continue
        parts += [line[at:start], MASK]
        at = end
    parts.append(line[at:])
    return "".join(parts)


def mask_text(text: str, after: str | None = None) -> str:
    """The text with every password a command line carries replaced by ****; ``after``:
    the command whose lines follow it, if any (SECRET_FOLLOWERS: a CREATE's setup lines)."""
    return _mask_lines(text, after)


def secrets_in(text: str) -> set[str]:
    """The words of ``text`` that mask_text hides."""
    found: set[str] = set()
    masked = mask_text(text)
    if masked == text:
        return found
    for old, new in zip(text.split("\n"), masked.split("\n"), strict=True):
        if old != new:
            found.update(set(old.split()) - set(new.split()))
    return found


# A Reply token as the judge writes it in a ready-to-send block (game/reply_tokens.py).
_TOKEN = re.compile(r"TOKEN:[A-Z2-7]{16}")


def mask_tokens(text: str) -> str:
    """The text with every Reply token replaced by TOKEN:****: a copy of the judge's sent
    mail (a backup) gives nobody a token that files orders."""
    return _TOKEN.sub("TOKEN:****", text)


def mask_mail(raw: bytes) -> bytes:
    """A stored mail with the passwords in its Subject and its text parts masked;
    unchanged (byte for byte) when it carries none."""
    raw = _mask_subject(raw)
    fast = _mask_plain(raw)
    if fast is not None:
        return fast
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        return raw
    parts = [
        part
        for part in message.walk()
        if part.get_content_maintype() == "text" and not part.is_multipart()
    ]
    texts = [_part_text(part) for part in parts]
    # An HTML part is read as the text it shows; what that hides is hidden in its markup.
    secrets: set[str] = set()
    for part, text in zip(parts, texts, strict=True):
        if text is not None and part.get_content_subtype() == "html" and _may_hold_password(text):
            secrets |= secrets_in(html_to_text(text))
    changed = False
    for part, text in zip(parts, texts, strict=True):
        if text is None:
            continue
        masked = mask_text(text)
        if secrets and part.get_content_subtype() == "html":
            masked = _without_secrets(masked, secrets)
        if masked != text:
            _set_text(part, masked)
            changed = True
    if not changed:
        return raw
    try:
        return message.as_bytes()
    except Exception:  # a mail too broken to write back: keep its headers only
        return raw.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n(body removed: it held a password)\r\n"


def _mask_subject(raw: bytes) -> bytes:
    """The mail with a password in its Subject masked (the Subject then unfolded, and
    encoded as RFC 2047 asks when it is not ASCII)."""
    end = min((i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0), default=-1)
    if end < 0:
        return raw
    lines = raw[:end].split(b"\n")
    for n, line in enumerate(lines):
        if line[:8].lower() != b"subject:":
            continue
        last = n + 1
        while last < len(lines) and lines[last][:1] in (b" ", b"\t"):
            last += 1
        value = b"".join(part.rstrip(b"\r") for part in lines[n:last])[8:].decode("latin-1")
        if value.isascii() and "=?" not in value:
            text = value  # no encoded word: decode_header and make_header give it back
        else:
            try:
                text = str(make_header(decode_header(value)))
            except Exception:  # a broken encoded word: read as it stands
                text = value
        masked = mask_text(" ".join(text.split()))
        if masked == " ".join(text.split()):
            return raw
        encoded = masked if masked.isascii() else Header(masked, "utf-8").encode()
        eol = b"\r" if line.endswith(b"\r") else b""
        lines[n:last] = [b"Subject: " + encoded.encode("ascii") + eol]
        return b"\n".join(lines) + raw[end:]
    return raw


_MARKUP = re.compile(r"(&nbsp;|&#160;|&#xa0;|[\s<>]+)", re.IGNORECASE)


def _without_secrets(markup: str, secrets: set[str]) -> str:
    """HTML with every word that is a known password replaced by ****."""
    pieces = _MARKUP.split(markup)
    for n in range(0, len(pieces), 2):
        piece = pieces[n]
        if piece and (piece in secrets or html.unescape(piece) in secrets):
            pieces[n] = MASK
    return "".join(pieces)


# Charsets in which ASCII text is its own bytes: a plain mail in one of them is masked on
# its bytes. (UTF-16 and the like are not: they take the slow way.) Remembered: a few
# charsets come again and again.
@remembered(64)
def _ascii_compatible(charset: str) -> bool:
    try:
        codec = codecs.lookup(charset)
    except LookupError:
        return False
    sample = "SIGNON france@game pw\r\n"
    try:
        return codec.encode(sample)[0] == sample.encode("ascii") and codec.name != "utf-7"
    except Exception:
        return False


_CHARSET = re.compile(rb"charset\s*=\s*\"?([\w.:-]+)", re.IGNORECASE)


def _mask_plain(raw: bytes) -> bytes | None:
    """The common case done on the bytes, without parsing and writing back the mail: one
    text part in 7bit or 8bit (what a player's order mail is). None for anything else."""
    for end in (b"\r\n\r\n", b"\n\n"):
        head, sep, body = raw.partition(end)
        if sep:
            break
    else:
        return None
    lowered = head.lower()
    if any(word in lowered for word in (b"multipart", b"base64", b"quoted-printable", b"html")):
        return None
    declared = _CHARSET.search(head)
    charset = declared.group(1).decode("ascii").lower() if declared else "utf-8"
    if charset in ("us-ascii", "ascii", "unknown-8bit", "x-unknown"):
        charset = "utf-8"
    if not _ascii_compatible(charset):
        return None
    try:
        # surrogateescape keeps any byte the charset does not know, so the rest of the
        # mail stays byte for byte; checked, since not every codec round-trips.
        text = body.decode(charset, "surrogateescape")
        if text.encode(charset, "surrogateescape") != body:
            return None
        masked = mask_text(text)
        return raw if masked == text else head + sep + masked.encode(charset, "surrogateescape")
    except (UnicodeError, LookupError):
        return None


def _part_text(part: Message) -> str | None:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return None
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, "replace")
    except LookupError:
        return payload.decode("utf-8", "replace")


def _set_text(part: Message, text: str) -> None:
    del part["Content-Transfer-Encoding"]
    part.set_payload(text.encode("utf-8"))
    part.set_charset("utf-8")  # encodes the payload again (base64 for utf-8)

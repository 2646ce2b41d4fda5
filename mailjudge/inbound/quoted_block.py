"""A ready-to-send block the player filled in inside the copy of the judge's mail.

A player who Replies to a results mail or a reminder may fill in the password and change
the orders right where the block stands, in the copy of the mail below their text: quoted
with '>' (mutt, Gmail, Thunderbird, Apple Mail, iPhone), or unquoted below a header block
or an attribution line (Outlook desktop, web and mobile, Samsung Email, Yahoo). The copy
is never read otherwise, so this module finds the blocks in it: from a SIGNON line to the
last END of the ORDERS ... END blocks that follow it, quoted once (the judge's own mail,
not a mail quoted in it) or, in an unquoted copy, not quoted at all. What stands for the
password in the SIGNON line says whose hand it shows (inbound/own_words.py decides which
to read): a password typed in, the judge's placeholder, a Reply token, or the mask of an
echo in one of the judge's answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from mailjudge.secrecy.passwords import PLACEHOLDER

TYPED = "password"  # the player wrote a password in
PLACEHOLDER_LEFT = "placeholder"  # the judge's YOUR-PASSWORD is still there
TOKEN = "token"  # the judge's Reply token (game/reply_tokens), as it sent it
MASKED = "mask"  # "****": an echo in one of the judge's answers


@dataclass(frozen=True)
class CopiedBlock:
    """A block found in a copy: its lines unquoted, from its SIGNON to its last END."""

    lines: tuple[str, ...]
    signed: str  # TYPED, PLACEHOLDER_LEFT, TOKEN or MASKED

    @property
    def name(self) -> str:
        """The SIGNON line's name (``france@g1``), lower case."""
        return self.lines[0].split()[1].lower()

    @property
    def orders(self) -> tuple[str, ...]:
        """The order lines of its ORDERS blocks, spaces and letter case evened out: what
        a player changes when they edit the block."""
        return tuple(
            " ".join(line.split()).upper()
            for line in self.lines[1:]
            if line.strip() and not line.lstrip().startswith("//")
        )


def copied_blocks(body: str, copy_from: int | None) -> list[CopiedBlock]:
    """The blocks in the copy of a mail in ``body``: those quoted once anywhere, and from
    offset ``copy_from`` on (where an unquoted copy begins; None: there is none) those
    not quoted."""
    lines = body.replace("\r\n", "\n").split("\n")
    copy_line = body[:copy_from].count("\n") if copy_from is not None else len(lines)
    found: list[CopiedBlock] = []
    at = 0
    while at < len(lines):
        quoted = _quoted_once(lines[at]) is not None
        inner = _inner(lines[at], quoted)
        if (quoted or at >= copy_line) and inner is not None and _signon(inner):
            block, at = _block_from(lines, at, quoted)
            if block:
                found.append(CopiedBlock(tuple(block), _how_signed(block[0])))
            continue
        at += 1
    return found


def edited_quoted_block(body: str) -> list[str]:
    """The lines of a block quoted once in ``body`` whose SIGNON line holds a password
    the player wrote in, unquoted (from its SIGNON to its last END); [] when there is
    none."""
    for block in copied_blocks(body, None):
        if block.signed == TYPED:
            return list(block.lines)
    return []


def _block_from(lines: list[str], start: int, quoted: bool) -> tuple[list[str], int]:
    """The block whose SIGNON line is at ``start`` (quoted once, or not quoted), up to its
    last END: its lines ([] without one), and the line after where it was read."""
    block: list[str] = []
    end = 0
    inside = False  # between an ORDERS line and its END
    at = start
    while at < len(lines):
        text = _inner(lines[at], quoted)
        if text is None:
            break
        word = text.strip().upper()
        if at > start and not inside and word and not word.startswith(("ORDERS", "//")):
            break  # after an END (or the SIGNON line) only another ORDERS block goes on
        block.append(text.strip())
        inside = (inside or word.startswith("ORDERS")) and word != "END"
        if word == "END":
            end = len(block)
        at += 1
    ordered = any(line.upper().startswith("ORDERS") for line in block[:end])
    return (block[:end] if ordered else []), max(at, start + 1)


def _inner(line: str, quoted: bool) -> str | None:
    """The line without its one level of quote (``quoted``), or as it stands when it is
    not quoted; None when it is not in the form asked for."""
    if quoted:
        return _quoted_once(line)
    return None if line.lstrip().startswith(">") else line


def _quoted_once(line: str) -> str | None:
    """The line without its one level of quote; None unless quoted exactly once."""
    stripped = line.lstrip()
    if not stripped.startswith(">"):
        return None
    rest = stripped[1:]
    if rest.lstrip().startswith(">"):
        return None
    return rest[1:] if rest.startswith(" ") else rest


def _signon(line: str) -> bool:
    words = line.split()
    return len(words) == 3 and words[0].upper() == "SIGNON"


def _how_signed(line: str) -> str:
    word = line.split()[2]
    if word == PLACEHOLDER:
        return PLACEHOLDER_LEFT
    if set(word) == {"*"}:
        return MASKED
    # A Reply token (game/reply_tokens) is the judge's own word, not the player's.
    return TOKEN if word.upper().startswith("TOKEN:") else TYPED

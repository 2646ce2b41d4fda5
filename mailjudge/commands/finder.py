"""A mail body cut into command blocks, in order.

A line that starts with a command's name is that command; a command with a block takes the
lines up to its closing word (END; ENDPRESS for press, or njudge's and DPjudge's
ENDBROADCAST, or a SIGNOFF, which also ends the mail as their test mails do; ENDDIARY for a
diary entry). Any other line is an order line (bare orders after a SIGNON count as orders).
"""

from __future__ import annotations

from mailjudge.commands.base import Block
from mailjudge.commands.registry import lookup

BARE = "ORDER-LINE"  # the pseudo-name of a bare order line


def _wireless(lines: list[str]) -> list[str]:
    """DPjudge's lines for devices that cannot send a newline: a line opening with two
    backslashes, then (after any spaces) a character that is no letter or digit, which
    stands for a newline in the rest of it (``\\\\: signon Egame pw:list:signoff``)."""
    out: list[str] = []
    for line in lines:
        rest = line.lstrip()[2:].lstrip() if line.lstrip().startswith("\\\\") else ""
        mark = rest[:1]
        out += rest[1:].split(mark) if mark and not mark.isalnum() else [line]
    return out


def find_blocks(text: str) -> list[Block]:
    lines = _wireless(text.splitlines()) if "\\\\" in text else text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        words = tuple(line.split())
        found = lookup(list(words[:3]))  # a command's name is three words at most
        if found is None or not found[0].claims(list(words[found[1] :])):
            blocks.append(Block(i, (BARE, *words)))
            continue
        command, _ = found
        if command.block_end is None:
            blocks.append(Block(i, words))
            continue
        body: list[str] = []
        closed = False
        while i < len(lines):
            inner = lines[i]
            if command.block_end == "ENDPRESS" and _is_signoff(inner):
                closed = True  # the SIGNOFF line is read next, as the command it is
                break
            i += 1
            if _closes(inner, command.block_end):
                closed = True
                break
            body.append(inner.rstrip())
        blocks.append(Block(i, words, tuple(body), unterminated=not closed))
    return blocks


def _closes(line: str, end: str) -> bool:
    """END closes a block (END ORDERS too); press also closes with ENDPRESS or END PRESS,
    and ENDBROADCAST (njudge, DPjudge); a diary entry with ENDDIARY (or, as njudge's DIARY
    RECORD, ENDPRESS and ENDBROADCAST)."""
    words = line.strip().upper().split()
    if not words or len(words) > 2:
        return False
    if end == "ENDPRESS":
        return "".join(words) in ("ENDPRESS", "END", "ENDBROADCAST")
    if end == "ENDDIARY":  # njudge's DIARY RECORD ends as press does
        return "".join(words) in ("ENDDIARY", "END", "ENDPRESS", "ENDBROADCAST")
    return words[0] == "END"


def _is_signoff(line: str) -> bool:
    return line.strip().upper() == "SIGNOFF"

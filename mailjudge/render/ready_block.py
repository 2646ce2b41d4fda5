"""The ready-to-send block: a seat's orders as a mail it can send back as it stands.

Each phase-start mail, reminder and results mail to a player ends with it: a SIGNON line
whose password the player writes in (or that carries a Reply token standing for it),
then for each power an ORDERS ... END block (its ORDERS line names the power and the
phase) holding the orders on file (or what the judge enters when there are none, marked
so) and, under each unit, a `//` comment line with its legal orders. The reader skips
`//` lines, so the player edits the orders and sends the block. Every line is at most
`WIDTH` characters, so the refilling of mail text (outbound/message.wrapped) leaves the
block as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from mailjudge.secrecy.passwords import PLACEHOLDER

WIDTH = 78
# What stands in the SIGNON line for the password: never the password itself (the judge
# keeps only its hash).
PASSWORD_PLACEHOLDER = PLACEHOLDER
# Under a unit with nothing on file: its lines are what the judge enters by itself.
DEFAULT_NOTE = "(no order on file: the judge's default)"


@dataclass(frozen=True)
class UnitLines:
    """One unit's (or build site's, or the power's adjustment's) part of a block."""

    orders: tuple[str, ...]  # the order lines, on file or by default (none: left unordered)
    default: bool  # nothing on file: the lines are what the judge enters
    choices: str  # engine/legal.comment_line's "A PAR: H, - BUR, ..."; "" for none


@dataclass(frozen=True)
class PowerBlock:
    power: str
    units: tuple[UnitLines, ...]
    notes: tuple[str, ...] = ()  # the builds or removals due, the default of the phase
    default_note: str = DEFAULT_NOTE  # said under a unit with nothing on file


def comment(text: str, width: int = WIDTH) -> list[str]:
    """``text`` as `//` lines of at most ``width`` characters, broken after a comma (so an
    order is never split) or, in prose without commas, at a space; a continuation line is
    indented so it reads as one."""
    items = text.split(", ")
    pieces = [f"{item}," for item in items[:-1]] + items[-1:]
    if len(items) == 1 or max(map(len, pieces)) > width - 8:
        pieces = text.split(" ")
    lines: list[str] = []
    head = "// "
    current = ""
    for piece in pieces:
        candidate = f"{current} {piece}" if current else piece
        if current and len(head) + len(candidate) > width:
            lines.append(head + current)
            head, current = "//     ", piece
        else:
            current = candidate
    if current:
        lines.append(head + current)
    return lines


def ready_block(
    signon: str,
    phase: str,
    blocks: list[PowerBlock],
    token: str | None = None,
    phase_code: str = "",
) -> list[str]:
    """The block's lines: ``signon`` is ``france@g1``, the name the SIGNON line takes;
    ``token`` the Reply token that stands for the password (game/reply_tokens), if any;
    ``phase_code`` (S1901M) the phase each ORDERS line names, so that a block sent back
    in a later phase is refused rather than filed there."""
    if not blocks:
        return []
    if token is None:
        how = "write your password in the SIGNON line, change"
    else:
        how = (
            "the token in the SIGNON line stands for your password for these orders and "
            "this phase only, from your own address; change"
        )
    lines = comment(
        f"Ready to send for {phase}: {how} the orders you want to change and send these "
        "lines to the judge (Reply, with them above the quoted mail, or a new mail). Lines "
        "that begin with // are not read: each lists a unit's legal orders."
    )
    lines.append(f"SIGNON {signon} {token or PASSWORD_PLACEHOLDER}")
    for block in blocks:
        lines.append(f"ORDERS {block.power} {phase_code}".rstrip())
        for note in block.notes:
            lines += comment(note)
        for unit in block.units:
            lines += unit.orders
            if unit.default:
                lines += comment(block.default_note)
            if unit.choices:
                lines += comment(unit.choices)
        lines.append("END")
    return lines

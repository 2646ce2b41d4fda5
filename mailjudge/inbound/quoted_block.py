"""A ready-to-send block the player edited inside the quote of a Reply.

mutt, Gmail and Thunderbird quote the judge's mail with '>', and a player who Replies to a
results mail or a reminder may fill in the password and change the orders right there in
the quoted block rather than copy it up. Quoted lines are never read otherwise, so such a
block is taken out of the quote when, and only when, it shows the player's hand: it is
quoted once (the judge's own mail, not a mail quoted in it), its SIGNON line holds a
password where the judge wrote the placeholder or a Reply token (an unedited block never
counts, so a Reply that only quotes it puts back nothing), and an ORDERS line and an END
follow it. The caller checks that the mail answers one of the judge's mails with a block in it.
"""

from __future__ import annotations

from mailjudge.passwords import PLACEHOLDER


def edited_quoted_block(body: str) -> list[str]:
    """The lines of an edited block quoted once in ``body``, unquoted (from its SIGNON to
    its last END); [] when there is none."""
    lines = body.replace("\r\n", "\n").split("\n")
    for at, line in enumerate(lines):
        inner = _quoted_once(line)
        if inner is None or not _signed(inner):
            continue
        block: list[str] = []
        end = 0
        for following in lines[at:]:
            text = _quoted_once(following)
            if text is None:
                break
            block.append(text)
            if text.strip().upper() == "END":
                end = len(block)
        if any(b.strip().upper().startswith("ORDERS") for b in block[:end]):
            return block[:end]
    return []


def _quoted_once(line: str) -> str | None:
    """The line without its one level of quote; None unless quoted exactly once."""
    stripped = line.lstrip()
    if not stripped.startswith(">"):
        return None
    rest = stripped[1:]
    if rest.lstrip().startswith(">"):
        return None
    return rest[1:] if rest.startswith(" ") else rest


def _signed(line: str) -> bool:
    """A SIGNON line whose password the player wrote in (not the placeholder, nor the
    judge's mask of an echoed one)."""
    words = line.split()
    if len(words) != 3 or words[0].upper() != "SIGNON":
        return False
    # A Reply token (game/reply_tokens) is the judge's own word, not the player's: a Reply
    # that only quotes a block carrying one must not file its orders.
    typed = not words[2].upper().startswith("TOKEN:")
    return typed and words[2] != PLACEHOLDER and set(words[2]) != {"*"}

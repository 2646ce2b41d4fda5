"""A mail's text as the lines of its HTML part, so that it reads on a phone.

A ``<pre>`` keeps every line as long as it was written: the Known World's centre line ran
1,693 px wide, and a phone scrolled sideways for it. Here each line is a block of its own
that wraps at the reader's width: its spaces kept where a client knows ``pre-wrap`` (the
columns of a table line up), its indent a margin (a wrapped order stays under its power),
a word longer than the screen (a web address) broken anywhere, and every address a link
of its own, never run into the sentence after it.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_LINK = re.compile(r"https?://[^\s<>\"]+[^\s<>\".,;:!?)]")
# Monospace letters are 0.6 em wide in the common fonts: an indent of n spaces is 0.6n em.
_LETTER_EM = 0.6
# On the block once: its lines inherit the wrapping (a style a line would cost the Known
# World's mail 30 KB).
BLOCK_STYLE = (
    "font-family: Menlo, Consolas, monospace; font-size: 13px; line-height: 1.35; "
    "max-width: 100%; white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;"
)


def _linked(text: str) -> Markup:
    """``text`` escaped, each web address in it a link."""
    out, at = [], 0
    for match in _LINK.finditer(text):
        url = match.group(0)
        out += [escape(text[at : match.start()]), Markup('<a href="{0}">{0}</a>').format(url)]
        at = match.end()
    out.append(escape(text[at:]))
    return Markup("").join(out)


def _line(line: str) -> Markup:
    words = line.lstrip(" ")
    if not words:
        return Markup("<div>&nbsp;</div>")
    indent = len(line) - len(words)
    opening = f'<div style="padding-left: {indent * _LETTER_EM:g}em;">' if indent else "<div>"
    return Markup(opening) + _linked(words) + Markup("</div>")


def text_as_html(text: str) -> Markup:
    """The whole text, one block a line, in a block that is never wider than the mail."""
    lines = text.rstrip("\n").split("\n")
    inner = Markup("\n").join(_line(line) for line in lines)
    return Markup(f'<div style="{BLOCK_STYLE}">\n') + inner + Markup("\n</div>")

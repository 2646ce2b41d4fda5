"""HTML-only mail to plain text, with the standard library's parser.

Block elements and <br> end lines; whitespace inside a line collapses as a browser
would show it; scripts and styles are left out. A <blockquote> (the quoted mail in an HTML
reply: Gmail's, Apple Mail's) comes out as a plain text client quotes: each of its lines
begins with `> `, once for each blockquote it is in. So the reader leaves it out as it does
`>` lines, and a ready-to-send block the player filled in there is found as in a quote.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# fmt: off
_BLOCKS = frozenset({
    "p", "div", "pre", "li", "ul", "ol", "dl", "dt", "dd", "hr", "tr", "table", "tbody",
    "thead", "tfoot", "h1", "h2", "h3", "h4", "h5", "h6", "address", "article", "aside",
    "section", "header", "footer", "main", "nav", "form", "fieldset", "figure",
})
# fmt: on
_HIDDEN = frozenset(("script", "style", "head", "title", "template"))


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.hidden = 0
        self.pre = 0
        self.quotes = 0  # the <blockquote>s the text is in

    def _break(self) -> None:
        line = "".join(self.current)
        self.lines.append("> " * self.quotes + line if self.quotes else line)
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "blockquote" and not self.hidden:
            if self.current:
                self._break()
            self.quotes += 1
        elif tag == "br" and not self.hidden:
            self._break()
        elif tag in _BLOCKS and not self.hidden:
            if self.current:
                self._break()
            self.pre += tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and not self.hidden:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote" and not self.hidden:
            if self.current:
                self._break()
            self.quotes = max(0, self.quotes - 1)
        elif tag in _BLOCKS and not self.hidden:
            if self.current:
                self._break()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
        elif tag in ("td", "th") and not self.hidden:
            self.current.append(" ")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:
            first, *rest = data.split("\n")
            self.current.append(first)
            for line in rest:
                self._break()
                self.current.append(line)
            return
        text = " ".join(data.split())
        if not text:
            if data and self.current:
                self.current.append(" ")
            return
        if data[:1].isspace() and self.current:
            text = " " + text
        if data[-1:].isspace():
            text += " "
        self.current.append(text)


# A "<" that no ">" closes before the next "<": text, not the start of a tag.
_LONE_LT = re.compile(r"<(?![^<>]*>)")
# Marked sections (<![CDATA[, Outlook's <![if !mso]>): the parser looks for their end
# through the rest of the mail each time; they show nothing.
_MARKED = re.compile(r"<!\[[^<>]*>")


def _parseable(html: str) -> str:
    """The HTML with comments taken out and every "<" that starts no complete tag written
    as "&lt;". The standard library's parser takes time that grows with the square of the
    input on unclosed tags and comments ("<a <a <a ...", "<!--x>" repeated): what is left
    for it here has none, and every step of this reads each character once or twice."""
    pieces: list[str] = []
    at = 0
    while True:
        start = html.find("<!--", at)
        if start < 0:
            pieces.append(html[at:])
            break
        pieces.append(html[at:start])
        end = html.find("-->", start + 4)
        if end < 0:
            break  # a comment never closed runs to the end, as in a browser
        at = end + 3
    return _MARKED.sub("", _LONE_LT.sub("&lt;", "".join(pieces)))


def html_to_text(html: str) -> str:
    """The text an HTML mail shows, a line for each block (see the module's docstring).
    Time in proportion to the HTML's length."""
    extractor = _Extractor()
    try:
        extractor.feed(_parseable(html))
        extractor.close()
    except Exception:  # the parser is lenient; this is only a last guard
        pass
    if extractor.current:
        extractor._break()
    lines = [
        " ".join(line.split()) if line.strip(" >") else line.strip() for line in extractor.lines
    ]
    return "\n".join(lines)

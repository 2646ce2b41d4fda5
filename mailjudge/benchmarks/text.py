"""`mailjudge bench text`: how the time of each text function on the mail path grows with
its input, for the worst shapes of input known (issue 38). For each function and shape, the
CPU time for 10n bytes over the time for n bytes: near 10 is linear, near 100 quadratic.
tests/ops/test_linear_time.py holds every ratio to at most 20."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime

from mailjudge.commands.finder import find_blocks
from mailjudge.commands.press import as_press_reply
from mailjudge.engine.maps import load_map
from mailjudge.engine.reader import reads_as_order
from mailjudge.inbound.game_key import game_key
from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.parse import command_lines, parse_mail, unflow
from mailjudge.inbound.replies import without_quoted_reply
from mailjudge.inbound.spool import identity
from mailjudge.outbound.message import wrapped
from mailjudge.render.digest import DigestHeading, DigestItem, rfc1153
from mailjudge.secrecy.masking import mask_mail, mask_text

N = 50_000  # bytes of the smaller input; the larger is 10 times as long
RATIO = 20.0


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


# name -> input text of about ``size`` characters
SHAPES: dict[str, Callable[[int], str]] = {
    "blank lines": lambda n: "\n" * n,
    "blank lines, then text": lambda n: "\n" * n + "A PAR H",
    "blank CRLF lines": lambda n: "\r\n" * (n // 2),
    "whitespace lines": lambda n: _repeat(" \t \n", n),
    "one long line": lambda n: "a" * n,
    "one line of spaces": lambda n: "A" + " " * n + "x",
    "one long paragraph": lambda n: _repeat("word ", n),
    "long paragraph lines": lambda n: _repeat("word " * 20 + "\n", n),
    "short lines": lambda n: _repeat("A PAR H\n", n),
    "quote levels": lambda n: ">" * n,
    "quoted lines": lambda n: _repeat("> > > quoted\n", n),
    "name@game words": lambda n: _repeat("a@b ", n),
    "name@game lines": lambda n: _repeat("RESIGN a@b\n", n),
    "@ without colon": lambda n: _repeat("a@", n),
    "attributions": lambda n: _repeat("On Mon, bob@x wrote:\n> q\n", n),
    "wrote lines": lambda n: _repeat("On " + "a " * 40 + "wrote: x\n", n),
    "header lines": lambda n: _repeat("From: a\nSent: b\n> q\n", n),
    "signon lines": lambda n: _repeat("SIGNON france@g pw\n", n),
    "signon alone": lambda n: _repeat("SIGNON\n", n),
    "sign on words": lambda n: _repeat("SIGN ON ", n),
    "zero width": lambda n: _repeat("\u200b", n),
    "separators": lambda n: _repeat("________\n\n\n", n),
    "long word lines": lambda n: _repeat("x" * 5000 + "\n", n),
    "html tags": lambda n: _repeat("<p>", n),
    "html open": lambda n: "<a " * (n // 3),
    "html entities": lambda n: _repeat("&amp;", n),
    "html comments": lambda n: _repeat("<!--x>", n),
    "html marked sections": lambda n: _repeat("<![CDATA[x>", n),
    "html unclosed": lambda n: _repeat("<a b='x", n),
    "lone CR": lambda n: "\r" * n,
    "brackets": lambda n: "(" * n + "x",
}


def _best(run: Callable[[], object], tries: int = 3) -> float:
    """The least CPU time of a few runs: the process's own time, which other work on the
    machine does not lengthen as it does the time on the clock."""
    best = float("inf")
    for _ in range(tries):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def _ratio(function: Callable[[str], object], shape: Callable[[int], str], size: int = N) -> float:
    small, large = shape(size), shape(10 * size)
    function(small)  # warm caches (regular expressions, maps)
    ratio = float("inf")
    # A ratio over the bound is measured once more, with more runs, before it counts: a
    # quadratic function stays near 100, a linear one's noise does not repeat itself.
    for tries in (2, 4):
        t_small = max(_best(lambda: function(small), tries + 1), 1e-3)
        t_large = _best(lambda: function(large), tries)
        ratio = min(ratio, t_large / t_small)
        if ratio <= RATIO:
            break
    return ratio


def _mail(text: str, kind: str = "plain") -> bytes:
    head = (
        "From: a@example.org\r\nTo: judge@example.org\r\nSubject: x\r\n"
        f"Content-Type: text/{kind}; charset=utf-8\r\n\r\n"
    )
    return head.encode() + text.encode("utf-8", "surrogatepass")


def _head_mail(text: str) -> bytes:
    """A mail whose header block carries the text (as a header's value and whatever
    lines it makes): the plain reading of the head (inbound/plain_head.py) and the email
    package's are both on a mail's path."""
    head = f"From: a@example.org\r\nTo: judge@example.org\r\nX-Note: {text}\r\n\r\nA PAR H\r\n"
    return head.encode("utf-8", "surrogatepass")


_MAP = load_map("standard")
_NOW = datetime(2026, 11, 25, tzinfo=UTC)
_HEADING = DigestHeading("g-france", 1, "g-france@example.org", _NOW)

FUNCTIONS: dict[str, Callable[[str], object]] = {
    "parse_mail": lambda t: parse_mail(_mail(t), max_bytes=1 << 30, max_lines=1 << 30),
    "parse_mail html": lambda t: parse_mail(_mail(t, "html"), max_bytes=1 << 30, max_lines=1 << 30),
    "parse_mail head": lambda t: parse_mail(_head_mail(t), max_bytes=1 << 30, max_lines=1 << 30),
    "html_to_text": html_to_text,
    "unflow": unflow,
    "command_lines": command_lines,
    "without_quoted_reply": without_quoted_reply,
    "mask_text": mask_text,
    "mask_mail": lambda t: mask_mail(_mail(t)),
    "mask_mail html": lambda t: mask_mail(_mail(t, "html")),
    "identity": lambda t: identity(_mail(t)),
    "game_key": lambda t: game_key(_mail(t), ["judge+game@example.org"]),
    "find_blocks": find_blocks,
    "as_press_reply": lambda t: as_press_reply("SIGNON france@g pw\n" + t, ["GERMANY"]),
    "reads_as_order": lambda t: reads_as_order(t, _MAP),
    "wrapped": wrapped,
    "rfc1153": lambda t: rfc1153(_HEADING, [DigestItem("FRANCE", _NOW, "x", t)]),
}


def growth(function: str, size: int = N) -> dict[str, float]:
    """Each shape's ratio time(10n)/time(n) for one function."""
    return {name: _ratio(FUNCTIONS[function], shape, size) for name, shape in SHAPES.items()}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench text", description=__doc__)
    ap.add_argument("--bytes", type=int, default=N, help="n, the smaller input's size")
    ap.add_argument("--function", choices=sorted(FUNCTIONS), action="append",
                    help="only this function (again for more); all by default")  # fmt: skip
    args = ap.parse_args(argv)
    for function in args.function or sorted(FUNCTIONS):
        ratios = growth(function, args.bytes)
        worst = sorted(ratios.items(), key=lambda kv: -kv[1])[:5]
        shown = ", ".join(f"{name} {ratio:.1f}" for name, ratio in worst)
        print(f"{function:22} worst time(10n)/time(n): {shown}", flush=True)
    return 0

"""A command's arguments, declared once: ``game password [power] [AS name]``.

From that one spec the judge writes the usage line HELP shows, masks the passwords in
every echo, and refuses a command with the wrong words before it runs ("write JOIN game
password [power] [AS name]"). The grammar:

- a word with a lower-case letter (``game``, ``name@game``, ``address|JUDGE``) is one
  value; ``password`` and ``newpassword`` are secret;
- a word of upper-case letters only (``AS``, ``TO``) must be written as it stands (any
  case); ``YYYY-MM-DD`` or ``PLAIN|MIME`` is a value;
- ``[...]`` may be left out; ``name...`` takes one or more words (``[name...]``: any).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

SECRET_NAMES = frozenset({"password", "newpassword"})


@dataclass(frozen=True)
class Token:
    text: str
    keyword: bool  # written as it stands
    many: bool = False  # takes one or more words


@dataclass(frozen=True)
class Group:
    """A run of tokens and groups; an optional one may be left out."""

    items: tuple[Token | Group, ...]
    optional: bool = False


class SpecError(ValueError):
    """A command's spec that cannot be read (a bug in the command, not in a mail)."""


def _tokens(spec: str) -> list[str]:
    return spec.replace("[", " [ ").replace("]", " ] ").split()


def _group(words: list[str], at: int, optional: bool) -> tuple[Group, int]:
    items: list[Token | Group] = []
    while at < len(words):
        word = words[at]
        if word == "[":
            inner, at = _group(words, at + 1, optional=True)
            items.append(inner)
            continue
        if word == "]":
            if not optional:
                raise SpecError("a ']' closes no '['")
            return Group(tuple(items), optional), at + 1
        many = word.endswith("...")
        name = word.removesuffix("...")
        keyword = name.isalpha() and name.isupper() and not many
        items.append(Token(name, keyword, many))
        at += 1
    if optional:
        raise SpecError("a '[' is not closed")
    return Group(tuple(items), optional), at


@cache
def parse(spec: str) -> Group:
    group, _ = _group(_tokens(spec), 0, optional=False)
    return group


def _match(items: tuple[Token | Group, ...], words: list[str], at: int) -> list[int]:
    """Every position the items can end at, starting from ``at`` (backtracking)."""
    if not items:
        return [at]
    first, rest = items[0], items[1:]
    ends: list[int] = []
    if isinstance(first, Group):
        starts = _match(first.items, words, at) + ([at] if first.optional else [])
    elif first.keyword:
        ok = at < len(words) and words[at].upper() == first.text
        starts = [at + 1] if ok else []
    elif first.many:
        starts = list(range(at + 1, len(words) + 1))
    else:
        starts = [at + 1] if at < len(words) else []
    for start in starts:
        ends += _match(rest, words, start)
    return ends


def fits(spec: str, words: list[str]) -> bool:
    """Whether ``words`` (the arguments after the command's name) are of the spec's form."""
    return len(words) in _match(parse(spec).items, words, 0)


def secret_positions(spec: str) -> tuple[int, ...]:
    """Where the passwords stand among the arguments, for the echo's masking. Only the
    fixed words before any optional or repeated one count (the passwords come first)."""
    found: list[int] = []
    for n, item in enumerate(parse(spec).items):
        if isinstance(item, Group) or item.many:
            break
        if item.text in SECRET_NAMES:
            found.append(n)
    return tuple(found)

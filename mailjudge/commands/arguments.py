"""A command's arguments, declared once: ``game password [power] [AS name]``.

From that one spec the judge writes the usage line HELP shows, says where its passwords
stand (secret_place: the registry holds secret_words.SECRET_COMMANDS, which the masking
of every echo, stored mail and press goes by, to it), and refuses a command with the
wrong words before it runs ("write JOIN game password [power] [AS name]"). The grammar:

- a word with a lower-case letter (``game``, ``name@game``, ``address|JUDGE``) is one
  value; ``password`` and ``newpassword`` are secret;
- a word of upper-case letters only (``AS``, ``TO``) must be written as it stands (any
  case); ``YYYY-MM-DD`` or ``PLAIN|MIME`` is a value;
- ``[...]`` may be left out; ``name...`` takes one or more words (``[name...]``: any).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from mailjudge.secrecy.secret_words import SecretPlace

SECRET_NAMES = frozenset({"password", "newpassword"})
# The most digits a number written in a command may have: every count, rank, version or
# entry a mail names is far below a billion, and int() of thousands of digits raises (as a
# database does at a number past 2**63), which would shunt the mail unanswered.
MOST_DIGITS = 9


def is_number(word: str) -> bool:
    """Whether ``word`` is a number a command may read: ASCII digits ("²" is a digit to
    str.isdigit, not to int()), at most MOST_DIGITS of them."""
    return 0 < len(word) <= MOST_DIGITS and word.isascii() and word.isdigit()


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


def secret_place(spec: str) -> SecretPlace | None:
    """Where the spec's passwords stand among the arguments (secret_words.SecretPlace), or
    None when it has none. They stand among the fixed words before any optional or
    repeated one, so that their places are the same in every form written; every word
    after the last is secret too when the spec ends with it."""
    items = parse(spec).items
    found: list[int] = []
    fixed = True
    for n, item in enumerate(items):
        if isinstance(item, Group) or item.many:
            fixed = False
            if _names_secret(item):
                raise SpecError(f"{spec!r}: a password after an optional or repeated word")
        elif item.text in SECRET_NAMES:
            if not fixed:
                raise SpecError(f"{spec!r}: a password after an optional or repeated word")
            found.append(n)
    if not found:
        return None
    return SecretPlace(tuple(found), to_end=found[-1] == len(items) - 1)


def _names_secret(item: Token | Group) -> bool:
    if isinstance(item, Token):
        return item.text in SECRET_NAMES
    return any(_names_secret(inner) for inner in item.items)

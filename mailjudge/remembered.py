"""Remembering a pure function's answers for short inputs only.

Text from mail (an address, a Content-Type, an order line) repeats from mail to mail, so
a few functions remember their answers. But a mail may also carry one header or line of a
quarter of a megabyte, and a cache of thousands of those would keep gigabytes alive for
as long as the judge runs: answers for long inputs are worked out and not kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

LONGEST = 1024  # characters in all of a call's text arguments, at most, to be kept

_Function = TypeVar("_Function", bound=Callable[..., Any])


def remembered(maxsize: int, longest: int = LONGEST) -> Callable[[_Function], _Function]:
    """functools.lru_cache(maxsize) for calls whose text arguments (str, bytes, and
    tuples of them) are ``longest`` characters or fewer in all; longer calls run as they
    are. ``forget`` empties the cache; ``kept`` tells its size."""

    def decorate(function: _Function) -> _Function:
        cached = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def call(*args: Any) -> Any:
            if sum(map(_size, args)) <= longest:
                return cached(*args)
            return function(*args)

        call.cached = cached  # type: ignore[attr-defined]  # for forget and kept
        return cast(_Function, call)

    return decorate


def _size(argument: object) -> int:
    if isinstance(argument, str | bytes):
        return len(argument)
    if isinstance(argument, tuple):
        return sum(map(_size, argument))
    return 0


def forget(function: Callable[..., Any]) -> None:
    """Empty the answers a ``remembered`` function keeps."""
    function.cached.cache_clear()  # type: ignore[attr-defined]


def kept(function: Callable[..., Any]) -> int:
    """How many answers a ``remembered`` function keeps now."""
    return int(function.cached.cache_info().currsize)  # type: ignore[attr-defined]

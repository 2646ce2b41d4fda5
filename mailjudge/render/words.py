"""Small words the judge's sentences need right: "1 unit" and "2 units"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``3 units``, ``1 unit``, ``0 centres``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"

"""Functions that remember answers keep them for short inputs only: a mail's quarter
megabyte header or line is worked out each time, never held for the judge's lifetime."""

from __future__ import annotations

from mailjudge.remembered import LONGEST, forget, kept, remembered


def test_short_calls_are_kept_and_long_ones_are_not() -> None:
    calls: list[object] = []

    @remembered(8)
    def length(text: str, parts: tuple[str, ...] = ()) -> int:
        calls.append(text)
        return len(text) + sum(map(len, parts))

    short, long = "a" * 10, "b" * (LONGEST + 1)
    assert [length(short), length(short)] == [10, 10] and len(calls) == 1
    assert [length(long), length(long)] == [LONGEST + 1] * 2 and len(calls) == 3
    # A tuple of texts counts by its texts' lengths.
    assert length("c", ("x" * LONGEST,)) == LONGEST + 1 and length("c", ("x" * LONGEST,))
    assert len(calls) == 5
    assert kept(length) == 1
    forget(length)
    length(short)
    assert len(calls) == 6


def test_the_mail_path_s_caches_keep_no_long_input() -> None:
    from mailjudge.addresses import split_address

    forget(split_address)
    split_address("player@example.org")
    split_address("x" * 300_000 + "@example.org")
    assert kept(split_address) == 1

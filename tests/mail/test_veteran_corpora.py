"""Issue 53 point 7: players and masters coming from njudge and DPjudge, measured on two
corpora of their own lines, taken from those judges' documents: tests/data/veterans.txt
(the earlier rounds') and tests/data/veterans_fresh.txt (njudge's data/ help files and
DPjudge's e-mail pages, none of its lines in the first). tests/helpers/veteran_measure.py runs each
line after a SIGNON in a running game and counts it same / answered / unhelpful /
different / crash (its docstring says how). The goal: nothing different, nothing crashes,
and under 5 % of each corpus unhelpful. The counts are printed (pytest -s shows them)."""

from __future__ import annotations

import pytest
from helpers.veteran_measure import KINDS, corpus, measure, set_up, summary

pytestmark = pytest.mark.usefixtures("sqlite_db")
CORPORA = ("veterans.txt", "veterans_fresh.txt")


@pytest.mark.parametrize("name", CORPORA)
def test_each_corpus_is_their_own_lines(name: str) -> None:
    lines = corpus(name)
    assert len(lines) >= 200
    sources = {line.source.split()[0] for line in lines}
    assert {"njudge", "DPjudge"} <= sources
    assert len({(line.who, line.mail) for line in lines}) >= 0.9 * len(lines)


def test_the_fresh_corpus_shares_no_line_with_the_first() -> None:
    first = {(line.who, line.mail) for line in corpus("veterans.txt")}
    fresh = [line for line in corpus("veterans_fresh.txt") if (line.who, line.mail) in first]
    assert not fresh, [line.mail for line in fresh]


@pytest.mark.parametrize("name", CORPORA)
def test_veterans_are_answered_or_done_as_on_their_judge(name: str) -> None:
    set_up()
    counts, verdicts = measure(name)
    print("\n" + summary(name, counts))
    shown = [
        f"{v.kind}: {v.line.source}: {v.line.mail!r} ({v.why})\n{v.reply}"
        for v in verdicts
        if v.kind in ("unhelpful", "different", "crash")
    ]
    assert set(counts) <= set(KINDS)
    assert counts["different"] == 0 and counts["crash"] == 0, "\n\n".join(shown)
    assert counts["unhelpful"] < 0.05 * len(verdicts), "\n\n".join(shown)

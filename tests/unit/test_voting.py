"""Ranked voting by instant runoff: seed 000's worked examples, the tie rules, and properties
checked against a plain ballot-by-ballot count written from the rules."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailjudge.benchmarks import voting as bench
from mailjudge.voting import Count, Draw, Tie, count, count_grouped

Ranking = list[str]


def votes(result: Count[str]) -> list[dict[str, int]]:
    return [dict(stage) for stage in result.stages]


def ballots_of(*groups: tuple[int, Ranking]) -> list[Ranking]:
    return [list(ranking) for times, ranking in groups for _ in range(times)]


# --- seed 000's worked examples (its diplomat example misorders one elimination) ----


def test_seed_diplomat_example_bob_goes_first_and_chuck_wins() -> None:
    ballots = [
        ["Alice", "Bob"],  # Alice
        ["Bob", "Chuck"],  # Bob
        ["Chuck", "Alice"],  # Chuck
        ["Chuck", "Bob"],  # Dan
        ["Alice", "Chuck", "Bob"],  # Eve
    ]
    result = count(ballots, ["Alice", "Bob", "Chuck"], "demo:S1901M:diplomat:TURKEY")
    assert votes(result) == [{"Alice": 2, "Bob": 1, "Chuck": 2}, {"Alice": 2, "Chuck": 3}]
    assert result.eliminated == ("Bob",)
    assert result.winner == "Chuck"
    assert result.ties == ()
    assert (result.ballots, result.abstentions) == (5, 0)


def test_seed_order_set_example_set_3_goes_first_and_set_1_wins() -> None:
    # Alice 1,3; Bob 3,1,2; Chuck 2,1,3; Dan 2,1,3; Eve 1.
    ballots = [[1, 3], [3, 1, 2], [2, 1, 3], [2, 1, 3], [1]]
    result = count(ballots, [1, 2, 3], "demo:S1901M:orders:TURKEY")
    assert [dict(s) for s in result.stages] == [{1: 2, 2: 2, 3: 1}, {1: 3, 2: 2}]
    assert result.eliminated == (3,)
    assert result.winner == 1


# --- the rules -------------------------------------------------------------------------


def test_exhausted_ballots_leave_the_count() -> None:
    # C's voters name nobody else: A then holds 4 of the 7 ballots left, though 4 of 9 cast.
    ballots = ballots_of((4, ["A"]), (3, ["B"]), (2, ["C"]))
    result = count(ballots, "ABC", "s")
    assert votes(result) == [{"A": 4, "B": 3, "C": 2}, {"A": 4, "B": 3}]
    assert result.winner == "A"
    assert result.ballots == 9
    assert (result.in_count(2), result.exhausted(2)) == (7, 2)


def test_abstentions_are_not_counted() -> None:
    ballots = [["A"], ["A"], ["B"], [], [], [], ["Z"], ["Z", "Y"]]
    result = count(ballots, ["A", "B"], "s")
    # 2 of 3 counted ballots; 2 of 8 had the abstentions counted.
    assert votes(result) == [{"A": 2, "B": 1}]
    assert result.winner == "A"
    assert (result.ballots, result.abstentions) == (3, 5)


def test_no_counting_ballot_means_no_winner() -> None:
    for ballots in ([], [[], ["Z"]]):
        result = count(ballots, ["A", "B"], "s")
        assert (result.winner, result.stages, result.eliminated) == (None, (), ())
        assert result.ballots == 0
    assert count([["A"]], [], "s").winner is None


def test_unknown_options_are_skipped_and_a_repeat_counts_at_its_first_place() -> None:
    ballots = [["Z", "A"], ["Z", "A"], ["B", "B", "C"], ["C", "Z", "C", "B"], ["C"]]
    result = count(ballots, ["A", "B", "C", "A"], "s")
    assert votes(result) == [{"A": 2, "B": 1, "C": 2}, {"A": 2, "C": 3}]
    assert result.winner == "C"


def test_the_only_option_left_wins() -> None:
    result = count([["A"], ["B", "A"], ["C", "A"]], ["A", "B", "C"], "s")
    assert result.winner == "A"
    assert count([["A"]], ["A"], "s").stages == ({"A": 1},)


def test_win_tie_at_50_50_is_settled_by_an_earlier_stage() -> None:
    ballots = ballots_of((4, ["A"]), (3, ["B"]), (1, ["C", "B"]), (1, ["C"]))
    result = count(ballots, "ABC", "s")
    assert votes(result) == [{"A": 4, "B": 3, "C": 2}, {"A": 4, "B": 4}]
    assert result.winner == "A"
    assert result.ties == (Tie(2, "win", ("A", "B"), ((1, ("A",)),), None, "A"),)


def test_elimination_tie_is_settled_by_an_earlier_stage() -> None:
    ballots = ballots_of((5, ["A"]), (4, ["B"]), (3, ["C"]), (1, ["D", "C"]), (1, ["D", "A"]))
    result = count(ballots, "ABCD", "s")
    assert votes(result) == [
        {"A": 5, "B": 4, "C": 3, "D": 2},
        {"A": 6, "B": 4, "C": 4},
        {"A": 6, "B": 4},
    ]
    assert result.eliminated == ("D", "C")
    assert result.ties == (Tie(2, "elimination", ("B", "C"), ((1, ("C",)),), None, "C"),)
    assert result.winner == "A"


def test_look_back_passes_over_stages_where_the_tied_options_were_level() -> None:
    ballots = ballots_of(
        (8, ["W"]), (4, ["X"]), (3, ["Y"]), (1, ["P", "Y"]), (1, ["Q", "X"]), (1, ["Q", "Y"])
    )
    result = count(ballots, "WXYPQ", "s")
    assert [dict(s) for s in result.stages][1:3] == [
        {"W": 8, "X": 4, "Y": 4, "Q": 2},
        {"W": 8, "X": 5, "Y": 5},
    ]
    # Level at stage 2; at stage 1 Y had fewer.
    assert result.ties == (Tie(3, "elimination", ("X", "Y"), ((1, ("Y",)),), None, "Y"),)
    assert result.eliminated == ("P", "Q", "Y")
    assert result.winner == "W"


def test_a_three_way_tie_is_narrowed_stage_by_stage() -> None:
    ballots = ballots_of(
        (6, ["W"]),
        (3, ["X"]),
        (2, ["Y"]),
        (4, ["Z"]),
        (1, ["P", "Y"]),
        (1, ["Q", "X"]),
        (1, ["Q", "Y"]),
    )
    result = count(ballots, "WXYZPQ", "s")
    assert votes(result)[2] == {"W": 6, "X": 4, "Y": 4, "Z": 4}
    assert result.ties == (
        Tie(3, "elimination", ("X", "Y", "Z"), ((2, ("X", "Y")), (1, ("Y",))), None, "Y"),
        Tie(4, "elimination", ("X", "Z"), ((2, ("X",)),), None, "X"),
    )
    assert result.eliminated == ("P", "Q", "Y", "X")
    assert votes(result)[-1] == {"W": 6, "Z": 4}
    assert result.winner == "W"


def repeat_draw(seed: str, stage: int, tied: Sequence[Hashable]) -> Hashable:
    """The draw exactly as the module docstring tells a reader to repeat it."""
    candidates = sorted(tied, key=str)
    text = "\n".join([seed, str(stage), *map(str, candidates)])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return candidates[int(digest, 16) % len(candidates)]


THREE_LEVEL = [["A", "C"], ["B", "C"], ["C"]]


def test_a_tie_the_stages_never_break_goes_to_a_repeatable_draw() -> None:
    seed = "game:S1901M:orders:FRANCE"
    result = count(THREE_LEVEL, ["C", "B", "A"], seed)
    assert count(THREE_LEVEL, ["C", "B", "A"], seed) == result
    (tie,) = result.ties
    assert (tie.stage, tie.kind, tie.tied, tie.looked_back) == (
        1,
        "elimination",
        ("C", "B", "A"),
        (),
    )
    assert tie.draw == Draw(
        ("A", "B", "C"),
        f"{seed}\n1\nA\nB\nC",
        hashlib.sha256(f"{seed}\n1\nA\nB\nC".encode()).hexdigest(),
        tie.result,
    )
    assert tie.result == repeat_draw(seed, 1, ["A", "B", "C"])
    assert result.eliminated[0] == tie.result
    assert result.draws == (tie,)


def test_the_draw_depends_on_the_seed() -> None:
    drawn = {s: count(THREE_LEVEL, "ABC", f"seed-{s}").eliminated[0] for s in range(12)}
    assert len(set(drawn.values())) > 1
    first = drawn[0]
    other = next(s for s, option in drawn.items() if option != first)
    assert repeat_draw(f"seed-{other}", 1, "ABC") == drawn[other] != first


def test_options_without_first_preferences_tie_at_zero_and_draws_are_recorded() -> None:
    ballots = ballots_of((2, ["A"]), (2, ["B"]), (1, ["C"]))
    seed = "g:F1901M:diplomat:ITALY"
    result = count(ballots, "ABCDE", seed)
    first_out = str(repeat_draw(seed, 1, "DE"))
    assert result.eliminated == (first_out, "DE".replace(first_out, ""), "C")
    assert votes(result)[-1] == {"A": 2, "B": 2}
    drop, win = result.ties
    assert (drop.stage, drop.kind, drop.tied, drop.looked_back) == (
        1,
        "elimination",
        ("D", "E"),
        (),
    )
    # A and B were level at every stage: the win goes to a draw too.
    assert (win.stage, win.kind, win.tied, win.looked_back) == (4, "win", ("A", "B"), ())
    assert result.winner == win.result == repeat_draw(seed, 4, "AB")
    assert result.draws == (drop, win)


# --- input forms -----------------------------------------------------------------------


def test_weighted_tuple_and_list_ballots_mix() -> None:
    mixed: list[Any] = [(["A"], 3), ["B"], ("B",), (("C", "A"), 2), ("C", "B")]
    plain = [["A"]] * 3 + [["B"], ["B"], ["C", "A"], ["C", "A"], ["C", "B"]]
    assert count(mixed, "ABC", "s") == count(plain, "ABC", "s")
    assert count(iter(plain), iter("ABC"), "s") == count(plain, "ABC", "s")


@pytest.mark.parametrize("weight", [0, -1, True, 1.5, "2"])
def test_weights_must_be_positive_ints(weight: object) -> None:
    with pytest.raises(ValueError):
        count([(["A"], weight)], "AB", "s")
    with pytest.raises(ValueError):
        count_grouped({("A",): weight}, "AB", "s")  # type: ignore[dict-item]


def test_a_string_is_not_a_ranking() -> None:
    with pytest.raises(TypeError):
        count(["AB"], "AB", "s")


def test_grouped_rankings_with_unknown_ids_and_abstentions() -> None:
    groups = {("Z", "A"): 2, ("A", "Z"): 1, (): 4, ("Z",): 1, ("B",): 2}
    result = count_grouped(groups, "AB", "s")
    assert votes(result) == [{"A": 3, "B": 2}]
    assert (result.ballots, result.abstentions, result.winner) == (5, 5, "A")


# --- properties ------------------------------------------------------------------------

OPTIONS = ["A", "B", "C", "D", "E"]
rankings = st.lists(st.sampled_from([*OPTIONS, "Z"]), max_size=7)
option_lists = st.lists(st.sampled_from(OPTIONS), max_size=5, unique=True)
seeds = st.text(max_size=12)


TieRow = tuple[int, str, tuple[str, ...], tuple[tuple[int, tuple[str, ...]], ...], str]


def reference(
    ballots: list[tuple[Ranking, int]], options: list[str], seed: str
) -> tuple[str | None, list[dict[str, int]], list[str], list[TieRow]]:
    """Section 10 read literally: every stage recounts every ballot."""
    stages: list[dict[str, int]] = []
    out: list[str] = []
    ties: list[TieRow] = []
    while True:
        tally = {o: 0 for o in options if o not in out}
        for ranking, weight in ballots:
            top = next((o for o in ranking if o in tally), None)
            if top is not None:
                tally[top] += weight
        total = sum(tally.values())
        if total == 0:
            return None, stages, out, ties
        stages.append(tally)
        leaders = [o for o, v in tally.items() if 2 * v >= total]
        kind = "win" if leaders else "elimination"
        tied = leaders or [o for o, v in tally.items() if v == min(tally.values())]
        still, steps = list(tied), []
        for earlier in range(len(stages) - 1, 0, -1):
            if len(still) == 1:
                break
            level = [stages[earlier - 1][o] for o in still]
            best = max(level) if kind == "win" else min(level)
            narrowed = [o for o, v in zip(still, level, strict=True) if v == best]
            if narrowed != still:
                steps.append((earlier, tuple(narrowed)))
                still = narrowed
        chosen = still[0] if len(still) == 1 else str(repeat_draw(seed, len(stages), still))
        if len(tied) > 1:
            ties.append((len(stages), kind, tuple(tied), tuple(steps), chosen))
        if kind == "win":
            return chosen, stages, out, ties
        out.append(chosen)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(rankings, st.integers(1, 4)), max_size=25), option_lists, seeds)
def test_the_count_agrees_with_a_literal_reading_of_the_rules(
    ballots: list[tuple[Ranking, int]], options: list[str], seed: str
) -> None:
    result = count(ballots, options, seed)
    winner, stages, out, ties = reference(ballots, options, seed)
    assert result.winner == winner
    assert votes(result) == stages
    assert list(result.eliminated) == out
    assert [(t.stage, t.kind, t.tied, t.looked_back, t.result) for t in result.ties] == ties
    assert all(
        (t.draw is None) == (len(t.looked_back) > 0 and len(t.looked_back[-1][1]) == 1)
        for t in result.ties
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(rankings, st.integers(1, 4)), max_size=20), option_lists, seeds)
def test_a_weight_is_the_same_as_repeated_ballots(
    ballots: list[tuple[Ranking, int]], options: list[str], seed: str
) -> None:
    repeated = [list(ranking) for ranking, weight in ballots for _ in range(weight)]
    assert count(ballots, options, seed) == count(repeated, options, seed)


@settings(max_examples=200, deadline=None)
@given(st.lists(rankings, max_size=40), option_lists, seeds)
def test_grouped_counts_equal_ballot_counts(
    ballots: list[Ranking], options: list[str], seed: str
) -> None:
    groups = Counter(map(tuple, ballots))
    assert count_grouped(groups, options, seed) == count(ballots, options, seed)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(rankings, st.integers(1, 9)), max_size=40), option_lists, seeds)
def test_invariants(ballots: list[tuple[Ranking, int]], options: list[str], seed: str) -> None:
    result = count(ballots, options, seed)
    counted = sum(w for r, w in ballots if set(r) & set(options))
    assert result.ballots == counted
    assert result.abstentions == sum(w for r, w in ballots) - counted
    if counted == 0:
        assert (result.winner, result.stages) == (None, ())
        return
    assert result.winner in options
    assert len(result.stages) == len(result.eliminated) + 1
    in_count = [sum(stage.values()) for stage in result.stages]
    assert in_count[0] == counted
    assert all(later <= earlier for earlier, later in pairwise(in_count))
    for n, stage in enumerate(result.stages, 1):
        assert list(stage) == [o for o in options if o not in result.eliminated[: n - 1]]
        assert result.in_count(n) + result.exhausted(n) == counted
    for stage, loser in zip(result.stages[:-1], result.eliminated, strict=True):
        assert stage[loser] == min(stage.values())
        assert all(2 * v < sum(stage.values()) for v in stage.values())
    last = result.stages[-1]
    assert 2 * last[result.winner] >= sum(last.values())


# --- the benchmark ---------------------------------------------------------------------


def test_the_benchmark_runs_on_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--ballots", "300", "--options", "4", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["ballots: 300", "options: 4"]
    assert [line.split(":")[0] for line in lines[2:]] == [
        "distinct rankings",
        "count seconds (best of 1)",
        "count_grouped seconds (best of 1)",
    ]


def test_equal_rankings_given_as_different_sequence_types_are_merged() -> None:
    groups: dict[Any, int] = {("A",): 2, "A": 3, ("B",): 4}
    assert votes(count_grouped(groups, "AB", "s")) == [{"A": 5, "B": 4}]

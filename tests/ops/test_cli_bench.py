"""`mailjudge bench NAME --help` shows the benchmark's own options, as the top help says."""

from __future__ import annotations

import pytest

from mailjudge.tools.cli import main


def test_a_benchmarks_help_is_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "adjudicate", "--help"])
    assert stop.value.code == 0
    shown = capsys.readouterr().out
    assert "mailjudge bench adjudicate" in shown and "--rounds" in shown


def test_an_unknown_benchmark_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "nosuch"])
    assert stop.value.code == 2
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_the_adjudication_bench_runs_on_another_map(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "adjudicate", "--map", "ancmed", "--games", "1", "--phases", "6"]
    assert main([*args, "--rounds", "1"]) == 0
    shown = capsys.readouterr().out
    assert "map ancmed" in shown and "movement_phases_per_s" in shown
    with pytest.raises(SystemExit) as stop:
        main(["bench", "adjudicate", "--map", "nosuchmap"])
    assert stop.value.code == 2
    assert "no map called 'nosuchmap'" in capsys.readouterr().err

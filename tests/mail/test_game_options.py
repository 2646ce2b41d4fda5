"""A game's options (game/options.py): values read and refused with a way to write them,
defaults where the master set nothing, and SET OPTION / HELP OPTIONS by mail."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from helpers.e2e import MASTER, running_judge

from mailjudge.demo.sink import MailSink
from mailjudge.game import options
from mailjudge.game.options import OptionError
from mailjudge.store.models import Game


@pytest.mark.parametrize(
    ("name", "text", "stored"),
    [
        ("EXTEND_MAX", "48h", "2D"),
        ("EXTEND_MAX", "1d 12h", "1D12H"),
        ("TAKEOVER_EXTENSION", "phase", "PHASE"),
        ("TAKEOVER_EXTENSION", "0", "OFF"),
        ("EXTEND_QUORUM", "0.75", "3/4"),
        ("EXTEND_QUORUM", "50%", "1/2"),
        ("EXTEND_QUORUM", "2/3", "2/3"),
        ("EXTENSIONS", "3", "3"),
        ("EXTENSIONS", "off", "OFF"),
        ("MIN_RECORD", "0.9 over 20", "0.9 OVER 20"),
        ("MIN_RECORD", "85% OVER 10", "0.85 OVER 10"),
        ("STALEMATE_DRAW", "2", "2"),
    ],
)
def test_values_are_read_into_one_form(name: str, text: str, stored: str) -> None:
    assert options.canonical(options.option_named(name), text) == stored


@pytest.mark.parametrize(
    ("name", "text", "hint"),
    [
        ("EXTEND_MAX", "soon", "like 48H"),
        ("EXTEND_QUORUM", "1.5", "at most 1"),
        ("EXTEND_QUORUM", "0", "above 0"),
        ("EXTENSIONS", "-1", "whole number"),
        ("MIN_RECORD", "0.9", "0.9 OVER 20"),
    ],
)
def test_a_bad_value_says_how_to_write_one(name: str, text: str, hint: str) -> None:
    with pytest.raises(OptionError, match=hint):
        options.canonical(options.option_named(name), text)


def test_an_unknown_name_lists_the_options() -> None:
    with pytest.raises(OptionError, match="EXTEND_MAX"):
        options.option_named("EXTEND_FOREVER")


def test_defaults_and_values_in_time() -> None:
    game = Game(name="g", options={})
    day = timedelta(days=1)
    assert options.length_option(game, "TAKEOVER_EXTENSION", day) == day
    assert options.length_option(game, "EXTEND_MAX", day) == timedelta(hours=72)
    assert options.share_option(game, "EXTEND_QUORUM") == Fraction(2, 3)
    assert options.count_option(game, "EXTENSIONS") == 2
    assert options.count_option(game, "STALEMATE_DRAW") == 0
    assert options.record_option(game, "MIN_RECORD") is None
    game.options = {"MIN_RECORD": "0.9 OVER 20", "TAKEOVER_EXTENSION": "OFF"}
    assert options.record_option(game, "MIN_RECORD") == (0.9, 20)
    assert options.length_option(game, "TAKEOVER_EXTENSION", day) is None


def test_the_master_sets_an_option_by_mail(tmp_path: Path) -> None:
    with MailSink() as sink, running_judge(tmp_path / "judge.db", sink) as h:
        h.command(MASTER, "CREATE optgame masterpw")
        answer = h.command(MASTER, "SIGNON Moptgame masterpw\nSET OPTION EXTEND_MAX 36h")
        assert "EXTEND_MAX is now 1D12H" in answer
        answer = h.command(MASTER, "SIGNON Moptgame masterpw\nSET OPTION EXTEND_QUORUM lots")
        assert "like 2/3, 0.75 or 75%" in answer
        answer = h.command(MASTER, "SIGNON Moptgame masterpw\nHELP OPTIONS")
        assert "EXTEND_MAX 1D12H (in optgame)" in answer
        assert "EXTEND_QUORUM 2/3 (in optgame)" in answer
        answer = h.command("someone@players.test", "SET EXTEND_MAX 12H")
        assert "SET OPTION EXTEND_MAX" in answer
        # Only the master sets options.
        h.command("player@players.test", "JOIN optgame pw-player-7")
        answer = h.command(
            "player@players.test", "SIGNON player@optgame pw-player-7\nSET OPTION EXTEND_MAX 1H"
        )
        assert "only the game's master" in answer
        assert Game.get(Game.name == "optgame").options == {"EXTEND_MAX": "1D12H"}

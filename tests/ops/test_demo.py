"""`mailjudge demo`: a game played by mail end to end, its transcript and its folder of mails."""

from __future__ import annotations

import email
import email.policy
import random
from pathlib import Path

import pytest

from mailjudge.demo.greedy import greedy_orders
from mailjudge.demo.run import people
from mailjudge.engine.maps import load_map
from mailjudge.engine.phases import process_phase
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import initial_position
from mailjudge.tools.cli import main


def saved_mails(folder: Path) -> list[email.message.EmailMessage]:
    found = []
    for path in sorted(folder.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(msg, email.message.EmailMessage)
        found.append(msg)
    return found


def test_short_demo_ends_in_a_voted_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mail"
    (out).mkdir()
    (out / "0001-stale@old.eml").write_text("from an earlier run")
    (out / "notes.eml").write_text("the operator's own file")
    assert main(["demo", "--years", "1", "--seed", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # What FRANCE's player sees: the replies to its mails and its results, phase by phase.
    assert "france@players.test mailed orders for S1901M; the judge answered:" in text
    assert "ok: orders for FRANCE in S1901M" in text
    assert "Results of demo, F1901M:" in text
    assert any(line.startswith("F1901M   centres: AUS") for line in text.splitlines())
    assert "vote for a draw" in text and "Game over after" in text and "DRAW" in text
    mails = saved_mails(out)
    assert (out / "notes.eml").exists() and not (out / "0001-stale@old.eml").exists()
    mails = [m for m in mails if m["Message-ID"]]  # the operator's own file has none
    subjects = [str(m["Subject"]) for m in mails]
    assert sum(s == "[demo] results S1901M" for s in subjects) == 8  # seven players, master
    over = [m for m in mails if "the game is over: draw" in str(m["Subject"])]
    assert {str(m["To"]) for m in over} >= {"france@players.test", "master@players.test"}
    for mail in mails:
        assert mail["From"] and "judge@judge.test" in str(mail["From"])
        assert mail["Auto-Submitted"] in ("auto-replied", "auto-generated")
    # No password went out in any mail (the transcript masks the ones players typed).
    # No mail carries a password, and the transcript masks the ones the players typed.
    master, players = people(load_map("standard").power_names, random.Random(4))
    secrets = [master.password] + [p.password for p in players.values()]
    for mail in mails:
        raw = mail.as_string()
        assert not [pw for pw in secrets if pw in raw]
    assert not [pw for pw in secrets if pw in text] and "JOIN demo **** FRANCE" in text


@pytest.mark.soak  # the default demo, played to its end; the short one runs in CI
def test_a_whole_game_ends_in_a_solo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "1", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "The game is won by FRANCE." in text and "WIN FRANCE" in text
    files = list(tmp_path.glob("*.eml"))
    assert len(files) > 100 and any(
        "the game is over: win france" in str(m["Subject"]) for m in saved_mails(tmp_path)
    )


def test_the_greedy_player_only_writes_legal_orders() -> None:
    gmap = load_map("standard")
    rng = random.Random(9)
    pos = initial_position(gmap)
    for _ in range(60):
        orders = random_orders(gmap, pos, rng)
        orders["TURKEY"] = greedy_orders(gmap, pos, "TURKEY", rng)
        outcome = process_phase(gmap, pos, orders)
        assert not [r for r in outcome.results if r.power == "TURKEY" and r.outcome == "invalid"]
        if outcome.winners:
            break
        pos = outcome.next


def test_demo_refuses_an_unknown_power(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--power", "Narnia", "--out", str(tmp_path)]) == 2
    assert "--power must be one of AUSTRIA" in capsys.readouterr().out

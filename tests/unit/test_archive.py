"""The game archive: `mailjudge export` writes a finished game as JSON that the engine
plays again phase by phase, and a page with every phase's picture."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.game.state import current_position, finish_game, get_game
from mailjudge.service import archive, processing
from mailjudge.service.games import create_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.press import send_press
from mailjudge.service.seats import join, seat_for_power
from mailjudge.tools.cli import main

MAP = load_map("standard")


def finished_game(url: str) -> str:
    """Three years of random legal orders, a broadcast, a private note, then a draw."""
    game = create_game("arch", "master@example.org", "master-pw", rules="BUILD_ANY")
    rng = random.Random(7)
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", rng=rng)
    game = get_game("arch")
    france = seat_for_power(game, "FRANCE")
    send_press(game, france, sorted(MAP.power_names), "Peace in our time, says Paris.")
    send_press(game, france, ["ENGLAND"], "A word for London only.")
    while current_position(game).phase.year < 1904:
        for power, lines in random_orders(MAP, current_position(game), rng).items():
            submit_orders(game, seat_for_power(game, power), power, lines)
        processing.process(game, force=True)
    finish_game(game, "DRAW " + " ".join(MAP.power_names))
    game.save()
    return url


def test_export_replays_every_phase(sqlite_db: str, tmp_path: Path) -> None:
    finished_game(sqlite_db)
    doc = archive.export_game(get_game("arch"))
    assert doc["game"]["state"] == "finished" and doc["game"]["rules"] == ["BUILD_ANY"]
    phases = [p["phase"] for p in doc["phases"]]
    assert phases[0] == "S1901M" and "W1901A" in phases and len(phases) >= 9
    assert archive.replay(json.loads(json.dumps(doc))) == []
    # Public press only, and nothing else leaks: no password, no private note.
    assert [p["body"] for p in doc["press"]] == ["Peace in our time, says Paris."]
    assert doc["press"][0]["from"] == "france"
    text = json.dumps(doc)
    assert "London only" not in text and "pw3" not in text and "master-pw" not in text


def test_replay_finds_a_changed_result(sqlite_db: str) -> None:
    finished_game(sqlite_db)
    doc = archive.export_game(get_game("arch"))
    moves = next(p for p in doc["phases"][1:] if p["phase"].endswith("M"))
    first = moves["result"]["results"][0]
    first["outcome"] = "bounces" if first["outcome"] != "bounces" else "succeeds"
    assert archive.replay(doc) == [f"{moves['phase']}: the orders' outcomes differ"]


def test_export_command_writes_json_and_a_page(
    sqlite_db: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    finished_game(sqlite_db)
    monkeypatch.setenv("MAILJUDGE_DATABASE_URL", sqlite_db)
    out, page = tmp_path / "arch.json", tmp_path / "arch.html"
    assert main(["export", "arch", "--out", str(out), "--html", str(page)]) == 0
    assert main(["replay", str(out)]) == 0
    assert "0 differences" in capsys.readouterr().out
    html = page.read_text(encoding="utf-8")
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert html.count("<svg ") == len(doc["phases"])  # finished: no board of "now"
    for entry in doc["phases"]:
        assert f'id="{entry["phase"]}"' in html
    assert main(["export", "nosuch"]) == 2
    assert "no game called 'nosuch'" in capsys.readouterr().err

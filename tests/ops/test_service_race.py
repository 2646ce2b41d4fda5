"""Two judge processes told to process the same phase at the same moment: it happens once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from unit.test_service_game import new_game

from mailjudge.game.state import get_game
from mailjudge.store.models import PhaseRecord

WORKER = Path(__file__).parents[1] / "workers" / "process_worker.py"


def race(url: str, name: str, rounds: int) -> None:
    for _ in range(rounds):
        game = get_game(name)
        seq = game.sequence
        start_at = time.time() + 1.5  # both are started and connected by then
        procs = [
            subprocess.Popen(
                [sys.executable, str(WORKER), url, name, str(seq), str(start_at)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outputs = []
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            outputs.append(out.strip())
        assert sorted(outputs) == ["processed", "skipped"]
        game = get_game(name)
        assert game.sequence == seq + 1
        assert PhaseRecord.select().where(PhaseRecord.game == game).count() == seq + 1


def test_race_on_postgresql(postgres_url: str, cheap_scrypt: None) -> None:
    from mailjudge.store import db
    from mailjudge.tools import migrations

    db.connect(postgres_url)
    migrations.upgrade()
    new_game("race")
    db.close()
    db.connect(postgres_url)
    race(postgres_url, "race", rounds=3)
    db.close()


def test_race_on_sqlite(sqlite_db: str) -> None:
    new_game("race")
    race(sqlite_db, "race", rounds=2)

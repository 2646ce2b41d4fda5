"""`mailjudge bench democratic`: a Democratic game with 100,000 citizens processes a phase.

Setup (not timed): the citizens are written in bulk (what JOIN does, with one real scrypt
hash shared, since hashing a hundred thousand passwords takes hours), the game starts,
three order sets are proposed in each country, and every citizen ranks the order sets and
the diplomat nominees through the service layer (vote_orders, vote_diplomat). Timed: one
movement phase processed at its deadline, with the seven order counts, the engine, and the
seven diplomat elections of the next phase. Peak memory is the whole process's.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import cast

from mailjudge import db, migrations
from mailjudge.engine.randomplay import movement_orders
from mailjudge.models import Person, Seat, utcnow
from mailjudge.passwords import hash_password
from mailjudge.service import processing
from mailjudge.service.games import create_game, start_game
from mailjudge.service.state import current_position, game_map, get_game
from mailjudge.variants import democratic as dem
from mailjudge.variants.democratic.citizens import country_of


def run(citizens: int, seed: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-democratic-"))
    db.connect(f"sqlite:///{folder / 'judge.db'}")
    migrations.upgrade()
    rng = random.Random(seed)
    game = create_game("big", "gm@bench.test", "pw", variant="democratic")
    secret = hash_password("citizen")
    setup = time.perf_counter()
    with db.database_proxy.atomic():
        for start in range(0, citizens, 5000):
            chunk = range(start, min(start + 5000, citizens))
            Person.insert_many([{"email": f"c{i}@bench.test"} for i in chunk]).execute()
        ids: dict[str, int] = dict(
            cast(Iterable[tuple[str, int]], Person.select(Person.email, Person.id).tuples())
        )
        for start in range(0, citizens, 5000):
            chunk = range(start, min(start + 5000, citizens))
            Seat.insert_many(
                [
                    {"game": game.id, "person": ids[f"c{i}@bench.test"], "role": "citizen",
                     "name": f"c{i}", "password_hash": secret}
                    for i in chunk
                ]
            ).execute()  # fmt: skip
    start_game(get_game("big"), rng, now=utcnow())
    game = get_game("big")
    pos = current_position(game)
    gmap = game_map(game)
    seats_by_power: dict[str, list[Seat]] = {}
    for seat in Seat.select().where((Seat.game == game) & (Seat.role == "citizen")):
        seat.game = game
        power = country_of(seat)
        if power:
            seats_by_power.setdefault(power, []).append(seat)
    ballots = 0
    for power, seats in seats_by_power.items():
        units = [str(u) for u in pos.units_of(power)]
        sets = [[f"{u} H" for u in units]]
        sets += [movement_orders(gmap, pos, rng)[power] for _ in range(2)]
        numbers = sorted({dem.set_number(dem.propose_orders(game, seats[0], s)[0]) for s in sets})
        nominees = [seats[k].name for k in range(min(3, len(seats)))]
        for name in nominees:
            dem.nominate(game, seats[0], name)
        with db.database_proxy.atomic():
            for seat in seats:
                dem.vote_orders(game, seat, rng.sample(numbers, rng.randint(1, len(numbers))))
                dem.vote_diplomat(game, seat, rng.sample(nominees, rng.randint(1, len(nominees))))
                ballots += 2
    setup = time.perf_counter() - setup
    game = get_game("big")
    game.deadline = utcnow() - timedelta(minutes=1)
    game.save()
    began = time.perf_counter()
    done = processing.process(game, force=True)
    spent = time.perf_counter() - began
    assert done is not None
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    db.close()
    return {
        "citizens": citizens,
        "ballots": ballots,
        "setup_seconds": setup,
        "phase_seconds": spent,
        "peak_memory_mb": peak_mb,
        "notices": len(done.notices),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench democratic", description=__doc__)
    ap.add_argument("--citizens", type=int, default=100_000, help="citizens (default 100000)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    result = run(args.citizens, args.seed)
    print("mailjudge bench democratic: SQLite, one process")
    for key, value in result.items():
        print(f"  {key}: {value:.2f}" if isinstance(value, float) else f"  {key}: {value}")
    return 0

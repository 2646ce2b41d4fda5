"""The Democratic bench's game: its citizens placed round the home centres as the start
places them (written in bulk, with one real scrypt hash shared, since hashing a hundred
thousand passwords takes hours), three order sets proposed and three citizens nominated in
each country by the commands a citizen sends, every other citizen's ballots written in
bulk like the first one's; its phase processed at the deadline; and this process's memory
(Linux's /proc)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.base import Block, Context
from mailjudge.commands.registry import lookup
from mailjudge.engine.catalogue import playable_powers
from mailjudge.engine.randomplay import movement_orders
from mailjudge.game.outcomes import Processed
from mailjudge.game.state import current_position, game_map, get_game
from mailjudge.secrecy.passwords import hash_password
from mailjudge.service import processing
from mailjudge.service.games import create_game, start_game
from mailjudge.store import db, tools
from mailjudge.store.models import Ballot, BaseModel, Game, Person, Seat, utcnow


def country_of(seat: Seat) -> str | None:
    """The country a citizen belongs to: whoever owns their centre."""
    owners: dict[str, str] = (seat.game.position or {}).get("sc_owners") or {}
    return owners.get(seat.centre or "")


def command(game: Game, seat: Seat, line: str, body: tuple[str, ...] = ()) -> list[str]:
    """One command run for a seat as if it had signed on; its answer lines."""
    words = line.split()
    found = lookup(words, game.variant)
    assert found is not None, line
    cmd, size = found
    ctx = Context(sender="bench@bench.test", judge="judge@bench.test", now=utcnow(),
                  game=game, seat=seat)  # fmt: skip
    ctx.command_name, ctx.command_variant = cmd.name, cmd.variant
    return cmd.run(ctx, words[size:], Block(0, tuple(words), body))


def fill_game(citizens: int, seed: int) -> int:
    """The game "big" started, its citizens placed round the home centres as the start
    places them, three order sets proposed and three citizens nominated in each country
    (by the commands), and every citizen's two ballots written in bulk; the ballots
    written."""
    rng = random.Random(seed)
    create_game("big", "gm@bench.test", "pw", variant="democratic")
    start_game(get_game("big"), rng, now=utcnow())  # no citizens yet: nothing to place
    game = get_game("big")
    gmap = game_map(game)
    # Where the start places citizens: the home centres, round robin.
    centres = sorted(c for p in playable_powers(gmap) for c in gmap.home_centres[p])
    rng.shuffle(centres)
    secret = hash_password("citizen")
    with db.database_proxy.atomic():
        _bulk_insert(Person, ({"email": f"c{i}@bench.test"} for i in range(citizens)))
        ids = dict(cast(Iterable[tuple[str, int]], Person.select(Person.email, Person.id).tuples()))
        rows = (
            {"game": game.id, "person": ids[f"c{i}@bench.test"], "role": "citizen",
             "name": f"c{i}", "password_hash": secret, "centre": centres[i % len(centres)]}
            for i in range(citizens)
        )  # fmt: skip
        _bulk_insert(Seat, rows)
    del ids
    owners = (game.position or {}).get("sc_owners") or {}
    voters: dict[str, list[int]] = {}
    query = Seat.select(Seat.id, Seat.centre).where((Seat.game == game) & (Seat.role == "citizen"))
    for seat_id, centre in cast(Iterable[tuple[int, str]], query.tuples()):
        voters.setdefault(owners[centre], []).append(seat_id)
    firsts = {
        power: list(Seat.select().where(Seat.id.in_(seat_ids[:3])).order_by(Seat.id))
        for power, seat_ids in voters.items()
    }
    numbers = _order_sets(game, firsts, rng)
    written = 0
    with db.database_proxy.atomic():
        for power, seat_ids in voters.items():
            first, names = firsts[power][0], [s.name for s in firsts[power]]
            for name in names:
                command(game, first, f"NOMINATE {name}")
            # The first citizen votes by the commands; the others' ballots are written
            # like theirs.
            command(game, first, "VOTE ORDERS " + " ".join(map(str, numbers[power])))
            command(game, first, "VOTE DIPLOMAT " + " ".join(names))
            mine = Ballot.select().where(Ballot.voter == first.id)
            cast_like = {str(b.kind): b for b in mine}
            ballots = _ballots(cast_like, seat_ids[1:], numbers[power], names, rng)
            written += 2 + _bulk_insert(Ballot, ballots)
    return written


def _order_sets(
    game: Game, firsts: dict[str, list[Seat]], rng: random.Random
) -> dict[str, list[int]]:
    """Three order sets proposed in each country (all holds, two random); their numbers."""
    pos, gmap = current_position(game), game_map(game)
    numbers: dict[str, list[int]] = {}
    for power, seats in firsts.items():
        for seat in seats:
            seat.game = game
        sets = [[f"{u} H" for u in pos.units_of(power)]]
        sets += [movement_orders(gmap, pos, rng)[power] for _ in range(2)]
        numbers[power] = sorted({_proposed(game, seats[0], s) for s in sets})
    return numbers


def _ballots(
    cast_like: dict[str, Ballot],
    voters: list[int],
    sets: list[int],
    nominees: list[str],
    rng: random.Random,
) -> Iterator[dict[str, Any]]:
    """Each voter's VOTE ORDERS and VOTE DIPLOMAT as the commands store them (like the
    ballots in ``cast_like``, by kind): random rankings of the country's order sets and of
    its nominees."""
    orders, diplomat = cast_like["orders"], cast_like["diplomat"]
    for voter in voters:
        ranked_sets = rng.sample(sets, rng.randint(1, len(sets)))
        ranked_names = rng.sample(nominees, rng.randint(1, len(nominees)))
        for like, ranking in ((orders, ranked_sets), (diplomat, ranked_names)):
            yield {"game": like.game_id, "phase": like.phase, "kind": like.kind,
                   "subject": like.subject, "voter": voter, "content": ranking}  # fmt: skip


def _bulk_insert(model: type[BaseModel], rows: Iterable[dict[str, Any]]) -> int:
    """Write rows through the driver's executemany, thousands at a time (peewee's
    insert_many builds a statement per chunk and is several times slower); the fields a
    row leaves out take their defaults. How many rows were written."""
    fields = [f for f in model._meta.sorted_fields if not f.primary_key]
    defaults = {f.name: f.default() if callable(f.default) else f.default for f in fields}
    sql = tools.insert_text(
        model._meta.table_name, [f.column_name for f in fields], db.database_proxy.param
    )
    written = 0
    cursor = db.database_proxy.cursor()
    batch: list[tuple[Any, ...]] = []
    for row in rows:
        values = {**defaults, **row}
        batch.append(tuple(f.db_value(values[f.name]) for f in fields))
        if len(batch) == 10_000:
            cursor.executemany(sql, batch)
            written, batch = written + len(batch), []
    if batch:
        cursor.executemany(sql, batch)
        written += len(batch)
    return written


def setup_game(citizens: int, seed: int) -> tuple[dict[str, list[int]], list[str]]:
    """The game "big" with its citizens placed and three order sets in each country; the
    set numbers each country may rank, and the citizens' seat names."""
    rng = random.Random(seed)
    game = create_game("big", "gm@bench.test", "pw", variant="democratic")
    secret = hash_password("citizen")
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
    pos, gmap = current_position(game), game_map(game)
    numbers: dict[str, list[int]] = {}
    names: list[str] = []
    for seat in Seat.select().where((Seat.game == game) & (Seat.role == "citizen")):
        seat.game = game
        power = country_of(seat)
        names.append(seat.name)
        if power and power not in numbers:
            sets = [[f"{u} H" for u in pos.units_of(power)]]
            sets += [movement_orders(gmap, pos, rng)[power] for _ in range(2)]
            numbers[power] = sorted({_proposed(game, seat, s) for s in sets})
    return numbers, names


def _proposed(game: Game, seat: Seat, orders: list[str]) -> int:
    """PROPOSAL ORDERS for the seat's country: the number of the order set."""
    first = command(game, seat, "PROPOSAL ORDERS", tuple(orders))[0]  # "order set 2 for ..."
    return int(first.split()[2])


def process_at_deadline(game: Game) -> tuple[float, Processed]:
    """Let the game's deadline pass and process its phase; the seconds that took, and
    what it did."""
    game.deadline = utcnow() - timedelta(minutes=1)
    game.save()
    began = time.perf_counter()
    done = processing.process(game, force=True)
    spent = time.perf_counter() - began
    assert done is not None
    return spent, done


def memory_mb(field: str) -> float:
    """This process's resident memory (VmRSS) or its peak (VmHWM), from Linux's /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak_memory() -> None:
    """Start VmHWM afresh from the present size (Linux: clear_refs, value 5)."""
    Path("/proc/self/clear_refs").write_text("5")

"""`mailjudge bench sizes`: how many bytes a player downloads, per map: each public page
as sent plain and as sent to a client that accepts gzip, and the largest results mail.

On every map of data/maps (or --maps), a game of random orders is played for --phases
phases into a fresh SQLite database; its pages are then fetched from the site in this
process (Starlette's test client: the same application `mailjudge web` serves) and the
results mails the judge queued are written out as they go on the wire.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from mailjudge.benchmarks.random_game import play_random
from mailjudge.config.settings import Settings, WebSettings, current_settings, use_settings
from mailjudge.engine.catalogue import map_names, playable_powers
from mailjudge.game.outcomes import Processed
from mailjudge.game.state import game_map, get_game
from mailjudge.outbound.outbox import render_draft
from mailjudge.outbound.queue import queue_all
from mailjudge.service.games import create_game, start_game
from mailjudge.service.results import phase_mails
from mailjudge.service.seats import join
from mailjudge.store import db
from mailjudge.store.models import Outbox, utcnow
from mailjudge.tools import migrations

GAME = "sizes"
BASE_URL = "https://dip.example.org"  # so that results mails carry their web links


@dataclass(frozen=True)
class PageSize:
    path: str
    plain: int  # bytes of the body sent to a client that accepts no compression
    gzip: int  # bytes of the body sent to one that accepts gzip


@dataclass(frozen=True)
class MapSizes:
    map_name: str
    pages: list[PageSize]
    results_mail: int  # the largest results mail, in bytes as it goes on the wire


def played_game(map_name: str, phases: int, seed: int) -> list[str]:
    """A game of random orders on ``map_name`` in the connected database; its phases."""
    rng = random.Random(seed)
    game = create_game(GAME, "gm@sizes.test", "gm-pw", rules="POWER_CHOICE", map_name=map_name)
    for power in playable_powers(game_map(game)):
        join(game, f"{power.lower()}@sizes.test", "pw", power=power)
    if get_game(GAME).state != "active":
        start_game(get_game(GAME), rng, now=utcnow())

    def queue(done: Processed) -> None:  # the mails a phase causes, queued as by the judge
        queue_all(phase_mails(get_game(GAME), done), current_settings(), utcnow())

    return play_random(GAME, phases, rng, queue)


def page_paths(played: Sequence[str]) -> list[str]:
    """The pages a player of the game reads."""
    game = f"/games/{GAME}"
    paths = ["/", game, f"{game}/board.svg", f"{game}/feed.atom", f"{game}/press", "/openings"]
    paths += [f"{game}/phases/{phase}" for phase in played[-1:]]
    return paths


def page_sizes(client: TestClient, paths: Sequence[str]) -> Iterator[PageSize]:
    for path in paths:
        plain = client.get(path, headers={"Accept-Encoding": "identity"})
        zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
        if plain.status_code != 200 or zipped.status_code != 200:
            raise RuntimeError(f"{path}: {plain.status_code}")
        sent = zipped.headers.get("content-length")
        yield PageSize(path, len(plain.content), int(sent) if sent else len(zipped.content))


def queued_results() -> list[bytes]:
    """Every results mail queued, rendered as the sender would."""
    rows = Outbox.select().where(Outbox.subject.contains("results"))
    return [render_draft(row.draft) for row in rows if row.draft]


@contextmanager
def played_site(
    map_name: str, phases: int, seed: int, folder: Path
) -> Iterator[tuple[TestClient, list[str]]]:
    """A game on ``map_name`` played in a fresh database in ``folder``, its site, and the
    phases played; the database stays open (for ``queued_results``) until the end."""
    from mailjudge.web.app import make_app  # the site imports the service: load it late

    settings, before = Settings(web=WebSettings(base_url=BASE_URL)), current_settings()
    use_settings(settings)
    db.connect(f"sqlite:///{folder / map_name}.db")
    try:
        migrations.upgrade()
        played = played_game(map_name, phases, seed)
        with TestClient(make_app(cache_seconds=0, settings=settings)) as client:
            yield client, played
    finally:
        db.close()
        use_settings(before)


def measure(map_name: str, phases: int, seed: int, folder: Path) -> MapSizes:
    with played_site(map_name, phases, seed, folder) as (client, played):
        pages = list(page_sizes(client, page_paths(played)))
        return MapSizes(map_name, pages, max(map(len, queued_results()), default=0))


def report(sizes: MapSizes) -> list[str]:
    kb = 1024
    lines = [f"  {sizes.map_name}: results mail {sizes.results_mail / kb:.0f} KB"]
    for page in sizes.pages:
        lines.append(
            f"    {page.path:<32} {page.plain / kb:6.0f} KB, gzip {page.gzip / kb:5.0f} KB"
        )
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench sizes", description=__doc__)
    ap.add_argument("--maps", nargs="*", default=None, help="the maps (all of data/maps)")
    ap.add_argument("--phases", type=int, default=2, help="phases played on each map (2)")
    ap.add_argument("--seed", type=int, default=1, help="the random orders' seed (1)")
    args = ap.parse_args(argv)
    names = args.maps or list(map_names())
    print(f"mailjudge bench sizes: {args.phases} phases of random orders on each map")
    with tempfile.TemporaryDirectory(prefix="mailjudge-sizes-") as scratch:
        for name in names:
            print("\n".join(report(measure(name, args.phases, args.seed, Path(scratch)))))
    return 0

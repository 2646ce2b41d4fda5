"""`mailjudge bench board`: how long the board picture of a phase takes to draw, and how
big it is, on the map view (province outlines) and the graph view.

The picture is the mid-game sample (every kind of order: moves, supports, a convoy,
bounces, a dislodgement), drawn --rounds times after one warm-up; the figures are the
median time of SVG alone, and of SVG and PNG together (what a results mail needs), and
the sizes of each.
"""

from __future__ import annotations

import argparse
import statistics
import time

from mailjudge.engine.maps import load_map
from mailjudge.render.board import draw_picture
from mailjudge.render.board.samples import midgame


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench board", description=__doc__)
    ap.add_argument("--rounds", type=int, default=20, help="pictures drawn per figure")
    args = ap.parse_args(argv)
    gmap = load_map("standard")
    position, results = midgame()
    print(f"mailjudge bench board: the mid-game phase, median of {args.rounds} drawings")
    for view in ("map", "graph"):
        for png in (False, True):
            draw_picture(gmap, position, results, "bench", png=png, view=view)
            times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                picture = draw_picture(gmap, position, results, "bench", png=png, view=view)
                times.append(time.perf_counter() - start)
            what = "SVG and PNG" if png else "SVG alone  "
            size = f"SVG {len(picture.svg) / 1024:.0f} KB"
            if picture.png is not None:
                size += f", PNG {len(picture.png) / 1024:.0f} KB"
            print(f"  {view:<5} {what} {statistics.median(times) * 1000:6.1f} ms   {size}")
    return 0

"""`mailjudge bench mailsize`: how big the mail a player receives is, over a demo game.

The demo (`mailjudge demo`: a real judge on loopback, seven scripted players) plays
--years game years; every mail it sends is saved, and the figures are read from the saved
files: the results mails' mean and largest size, and the total each address received.
"""

from __future__ import annotations

import argparse
import email
import statistics
import tempfile
from collections import Counter
from email import policy
from pathlib import Path

from mailjudge.demo.run import run_demo


def sizes(folder: Path) -> tuple[list[int], Counter[str]]:
    """The size of every results mail saved in ``folder``, and the bytes each address got."""
    results: list[int] = []
    received: Counter[str] = Counter()
    for path in sorted(folder.glob("*.eml")):
        raw = path.read_bytes()
        message = email.message_from_bytes(raw, policy=policy.default)
        for address in str(message["To"]).split(","):
            received[address.strip()] += len(raw)
        if " results " in str(message["Subject"]):
            results.append(len(raw))
    return results, received


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="mailjudge bench mailsize", description=__doc__)
    ap.add_argument("--years", type=int, default=3, help="game years before a draw (3)")
    ap.add_argument("--seed", type=int, default=1, help="the players' random seed (1)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mailjudge-mailsize-") as scratch:
        folder = Path(scratch) / "mail"
        game = run_demo(folder, years=args.years, seed=args.seed, echo=lambda *_: None)
        results, received = sizes(folder)
    print(f"mailjudge bench mailsize: a demo game, {len(game.phases)} phases, "
          f"{game.mails} mails")  # fmt: skip
    if results:
        mean, top = statistics.mean(results) / 1024, max(results) / 1024
        print(f"  results mails: {len(results)}, mean {mean:.0f} KB, largest {top:.0f} KB")
    players = {a: n for a, n in received.items() if a.endswith("@players.test")}
    if players:
        per = statistics.mean(players.values()) / 1024 / 1024
        print(f"  per player over the game: {per:.2f} MB (mean of {len(players)} addresses)")
    return 0

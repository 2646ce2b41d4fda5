"""`mailjudge demo`: a whole standard game played by mail on loopback, start to end.

A judge runs with a temporary SQLite database and its SMTP listener on a free 127.0.0.1
port; its outbound relay is a `MailSink` that writes every mail it sends into a folder.
Seven scripted players sign on by mail: one plays greedily (see demo.greedy), the others
random legal orders (engine.randomplay), until a solo or, after `years` game years, a draw
they all vote for. The transcript shows what the followed player reads, and one line a phase.
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from functools import partial
from pathlib import Path

from mailjudge.demo.greedy import greedy_orders
from mailjudge.demo.mailroom import running_judge
from mailjudge.demo.sink import LOOPBACK, MailSink, text_of
from mailjudge.demo.table import Person, Table
from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import Position
from mailjudge.store.models import GameState

GAME = "demo"
JUDGE = "judge@judge.test"
SAVED_MAIL = re.compile(r"\d{4}-.*\.eml")

Echo = Callable[[str], None]


@dataclass
class DemoResult:
    outcome: str  # as the judge records it: "WIN FRANCE", "DRAW ENGLAND FRANCE ..."
    phases: list[str]
    mails: int  # mails the judge sent, each saved in the folder
    seconds: float


def people(powers: tuple[str, ...], rng: random.Random) -> tuple[Person, dict[str, Person]]:
    def password() -> str:
        return "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))

    master = Person("master@players.test", password())
    return master, {p: Person(f"{p.lower()}@players.test", password()) for p in powers}


def _summary(phase: str, pos: Position) -> str:
    counts = pos.centre_counts()
    board = " ".join(f"{p[:3]} {counts[p]:2d}" for p in sorted(counts))
    return f"{phase:8s} centres: {board}"


def _show(echo: Echo, heading: str, text: str) -> None:
    echo(heading)
    echo(textwrap.indent(text.rstrip("\n"), "    | ", lambda line: True))


def _clear(folder: Path) -> None:
    """Remove the mails an earlier demo saved here (and nothing else)."""
    for old in folder.glob("*.eml"):
        if SAVED_MAIL.fullmatch(old.name):
            old.unlink()


def run_demo(
    folder: Path, years: int = 30, seed: int = 1, follow: str = "FRANCE", echo: Echo = print
) -> DemoResult:
    """Play the game; `follow` is the greedy power whose mail the transcript shows."""
    started = time.monotonic()
    gmap = load_map("standard")
    follow = follow.upper()
    if follow not in gmap.power_names:
        raise ValueError(f"--power must be one of {', '.join(gmap.power_names)}, not {follow}")
    rng = random.Random(seed)
    master, players = people(gmap.power_names, rng)
    folder.mkdir(parents=True, exist_ok=True)
    _clear(folder)
    phases: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="mailjudge-demo-") as scratch,
        MailSink(folder) as sink,
        running_judge(Path(scratch) / "judge.db", sink, JUDGE) as harness,
    ):
        echo(
            f"mailjudge demo: judge {JUDGE} listening on SMTP {LOOPBACK}:"
            f"{harness.judge.listener.smtp_port}, relaying to {LOOPBACK}:{sink.port}, "
            f"which saves each mail in {folder}/"
        )
        table = Table(harness, GAME, master, players)
        table.sign_on()
        me = players[follow]
        echo(f"Seven players joined game {GAME}; following {follow} ({me.address}).\n")
        for who, text, reply in table.log:
            if who in (master.address, me.address):
                _show(
                    echo,
                    f"{who} wrote:",
                    text.replace(master.password, "****").replace(me.password, "****"),
                )
                _show(echo, "and the judge answered:", reply)
        first_year = table.position().phase.year
        while table.state().state == GameState.ACTIVE:
            pos = table.position()
            if pos.phase.year >= first_year + years:
                voters = sorted({u.power for u in pos.units.values()})
                echo(f"\nAfter {years} game years {', '.join(voters)} vote for a draw.")
                table.vote_draw(voters)
                break
            orders = {p: o for p, o in random_orders(gmap, pos, rng).items() if p != follow}
            mine = greedy_orders(gmap, pos, follow, rng)
            if mine:
                orders[follow] = mine
            before = len(table.log)
            phase = table.play_phase(orders)
            phases.append(phase)
            for _, text, reply in table.log[before:]:
                if text.startswith(table.signon(follow)):
                    _show(
                        echo,
                        f"\n{me.address} mailed orders for {phase}; the judge answered:",
                        reply,
                    )
            harness.wait_until(partial(_results_to, table, phase, me.address))
            _show(echo, f"{follow}'s results mail:", _results_to(table, phase, me.address))
            echo(_summary(phase, table.position()))
        outcome = table.state().outcome or ""
        harness.wait_until(lambda: bool(_endings(table, me.address)), what="the end-of-game mail")
        for ending in _endings(table, me.address):
            _show(echo, f"\n{me.address} received: {ending['Subject']}", text_of(ending))
        sent = len(sink.mails)
    result = DemoResult(outcome, phases, sent, time.monotonic() - started)
    echo(
        f"\nGame over after {len(phases)} phases: {outcome}. The judge sent {sent} mails "
        f"(in {folder}/); {result.seconds:.1f} s."
    )
    return result


def _results_to(table: Table, phase: str, address: str) -> str:
    for mail in table.results(phase):
        if mail.rcpt_tos == [address]:
            return text_of(mail.message)
    return ""


def _endings(table: Table, address: str) -> list[EmailMessage]:
    return [
        m.message for m in table.mails_to(address) if "the game is over" in m.message["Subject"]
    ]


def main(argv: list[str] | None = None) -> int:
    ap = build_parser(argparse.ArgumentParser(prog="mailjudge demo", description=__doc__))
    args = ap.parse_args(argv)
    return run_from_args(args)


def build_parser(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    ap.add_argument(
        "--out",
        metavar="DIR",
        default="demo-mail",
        help="where the judge's mails are saved as .eml files (default ./demo-mail)",
    )
    ap.add_argument(
        "--years",
        type=int,
        default=30,
        help="game years before the players vote for a draw, if nobody has won (default 30)",
    )
    ap.add_argument("--seed", type=int, default=1, help="the players' random seed (default 1)")
    ap.add_argument(
        "--power", default="FRANCE", help="the greedy power the transcript follows (FRANCE)"
    )
    return ap


def run_from_args(args: argparse.Namespace) -> int:
    if args.years < 1:
        print("mailjudge demo: --years must be 1 or more")
        return 2
    try:
        run_demo(Path(args.out), years=args.years, seed=args.seed, follow=args.power)
    except ValueError as err:
        print(f"mailjudge demo: {err}")
        return 2
    return 0

"""The judge's missed-turn figures, in public (/stats, `mailjudge stats`), counted from the
seat-phases service/seat_phases.py notes as phases are processed. The definitions, close to
Diplicity's so that the numbers compare (DEFINITIONS is what the page and the command say):

- a seat-phase: one seat in one processed phase in which its powers owed orders (units to
  move, dislodged units to retreat, builds or removals due), held by a player. Dummies and
  vacant powers owe nothing; in Double each of a power's two players is a seat; a
  Democratic game's citizens vote rather than order, and have none. Phases of a game rolled
  back and not played again do not count;
- NMR (no moves received): a seat-phase that ended with no order line from a person: the
  stand-in's orders or the civil-disorder defaults played it. Incomplete orders from the
  player are not an NMR (Diplicity counts the same way: some orders received);
- covered by the stand-in: an NMR the game's stand-in ordered for; covered by a
  replacement: orders from a player who took the power over (TAKEOVER) in that phase;
- abandoned: a game whose last processed phase had orders from nobody (every seat-phase an
  NMR), whether it then ended or still runs;
- reliable: a player with at most 10 % NMR over the seat-phases of their last 10 games
  (fewer if they played fewer);
- the levers, of the seat-phases whose orders came from a person: orders by Reply token,
  by a ready-to-send block, after a reminder, after a deadline extension (VOTE EXTEND), in
  the deadline's grace. One seat-phase may use several.

Nobody's address or own figures are here: players are counted, never named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from mailjudge.service.seat_phases import LEVER_NAMES
from mailjudge.store.models import Game
from mailjudge.store.stats_models import SeatPhase

RELIABLE_GAMES = 10
RELIABLE_NMR = Fraction(1, 10)

DEFINITIONS = (
    ("seat-phase", "one seat in one processed phase in which its powers owed orders (units to "
     "move, dislodged units to retreat, builds or removals due), held by a player; dummies, "
     "vacant powers and Democratic citizens owe none; phases rolled back do not count"),
    ("NMR", "no moves received: a seat-phase that ended with no order line from a person (the "
     "stand-in or the civil-disorder defaults played it); incomplete orders are not an NMR"),
    ("stand-in", "an NMR the game's stand-in (rule STANDIN) ordered for"),
    ("replacement", "orders from a player who took the power over in that very phase"),
    ("abandoned", "a game whose last processed phase had orders from nobody: every "
     "seat-phase an NMR, whether the game then ended or still runs"),
    ("reliable", "a player with at most 10 % NMR over the seat-phases of their last 10 games"),
    ("levers", "of the seat-phases with orders from a person: by Reply token, by a "
     "ready-to-send block, after a reminder, after a VOTE EXTEND, in the grace"),
)  # fmt: skip


class Counted(Protocol):
    """What a seat-phase is counted by (a SeatPhase row, or a simulation's own)."""

    ordered_by: str
    replacement: bool
    levers: str


@dataclass
class Figures:
    """The counts of a set of seat-phases."""

    owed: int = 0
    nmr: int = 0
    standin: int = 0
    replacement: int = 0
    levers: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEVER_NAMES, 0))

    def add(self, row: Counted) -> None:
        self.owed += 1
        if row.ordered_by != "person":
            self.nmr += 1
        self.standin += row.ordered_by == "standin"
        self.replacement += bool(row.replacement)
        for lever in str(row.levers).split():
            self.levers[lever] = self.levers.get(lever, 0) + 1

    @property
    def nmr_share(self) -> Fraction | None:
        return Fraction(self.nmr, self.owed) if self.owed else None

    def as_json(self) -> dict[str, Any]:
        share = self.nmr_share
        return {
            "seat_phases": self.owed, "nmr": self.nmr,
            "nmr_percent": None if share is None else round(float(share) * 100, 1),
            "standin": self.standin, "replacement": self.replacement,
            "levers": dict(self.levers),
        }  # fmt: skip


@dataclass
class GameFigures:
    figures: Figures = field(default_factory=Figures)
    abandoned: bool = False

    def as_json(self) -> dict[str, Any]:
        return {**self.figures.as_json(), "abandoned": self.abandoned}


@dataclass
class Stats:
    total: Figures = field(default_factory=Figures)
    by_kind: dict[str, Figures] = field(default_factory=dict)
    by_month: dict[str, Figures] = field(default_factory=dict)
    by_game: dict[str, GameFigures] = field(default_factory=dict)
    players: int = 0
    reliable: int = 0

    @property
    def games(self) -> int:
        return len(self.by_game)

    @property
    def abandoned(self) -> int:
        return sum(g.abandoned for g in self.by_game.values())

    def as_json(self) -> dict[str, Any]:
        return {
            "definitions": dict(DEFINITIONS),
            "total": self.total.as_json(),
            "games": self.games, "abandoned": self.abandoned,
            "players": self.players, "reliable": self.reliable,
            "by_kind": {k: self.by_kind[k].as_json() for k in sorted(self.by_kind)},
            "by_month": {k: self.by_month[k].as_json() for k in sorted(self.by_month)},
            "by_game": {name: self.by_game[name].as_json() for name in sorted(self.by_game)},
        }  # fmt: skip


def standing_rows() -> list[tuple[SeatPhase, str]]:
    """Every seat-phase of a phase that stands (not rolled back), with its game's name,
    in the order processed."""
    rows = (
        SeatPhase.select(SeatPhase, Game.name)
        .join(Game, on=(SeatPhase.game == Game.id))
        .where(SeatPhase.sequence < Game.sequence)
        .order_by(SeatPhase.at, SeatPhase.id)
    )
    return [(row, str(row.game.name)) for row in rows]


def _abandoned(rows: list[SeatPhase]) -> bool:
    last = max(r.sequence for r in rows)
    return all(r.ordered_by != "person" for r in rows if r.sequence == last)


def _reliable(per_game: dict[str, list[SeatPhase]]) -> tuple[int, int]:
    """How many players, and how many of them reliable (see DEFINITIONS)."""
    by_person: dict[int, dict[str, list[SeatPhase]]] = {}
    for name, rows in per_game.items():
        for row in rows:
            if row.person_id is not None:
                by_person.setdefault(int(row.person_id), {}).setdefault(name, []).append(row)
    reliable = 0
    for games in by_person.values():
        latest = sorted(games.values(), key=lambda rs: max(r.id for r in rs))[-RELIABLE_GAMES:]
        mine = Figures()
        for row in (r for game_rows in latest for r in game_rows):
            mine.add(row)
        share = mine.nmr_share
        reliable += share is not None and share <= RELIABLE_NMR
    return len(by_person), reliable


def stats() -> Stats:
    """The figures over every game, by phase kind, by month (of processing, UTC) and by
    game."""
    found = Stats()
    per_game: dict[str, list[SeatPhase]] = {}
    for row, name in standing_rows():
        found.total.add(row)
        found.by_kind.setdefault(str(row.kind), Figures()).add(row)
        found.by_month.setdefault(row.at.strftime("%Y-%m"), Figures()).add(row)
        found.by_game.setdefault(name, GameFigures()).figures.add(row)
        per_game.setdefault(name, []).append(row)
    for name, rows in per_game.items():
        found.by_game[name].abandoned = _abandoned(rows)
    found.players, found.reliable = _reliable(per_game)
    return found

"""A player's diary (njudge's DIARY): notes kept with the game, read back by their writer
only while the game runs, and by anyone once it is over."""

from __future__ import annotations

from datetime import datetime

from mailjudge.game.errors import NotFound, ServiceError
from mailjudge.store.models import DiaryEntry, Game, GameState, Seat, utcnow

MAX_ENTRY = 20_000  # characters in one entry


def write(game: Game, seat: Seat, body: str, now: datetime | None = None) -> DiaryEntry:
    text = body.strip("\n")
    if not text.strip():
        raise ServiceError("the diary entry is empty; write DIARY, the lines, then ENDDIARY")
    if len(text) > MAX_ENTRY:
        raise ServiceError(f"a diary entry holds at most {MAX_ENTRY} characters")
    last = (
        DiaryEntry.select(DiaryEntry.number)
        .where((DiaryEntry.game == game) & (DiaryEntry.seat == seat))
        .order_by(DiaryEntry.number.desc())
        .first()
    )
    number = 1 if last is None else int(last.number) + 1
    return DiaryEntry.create(
        game=game, seat=seat, number=number, phase=game.phase, body=text + "\n",
        written_at=now or utcnow(),
    )  # fmt: skip


def entries(game: Game, seat: Seat) -> list[DiaryEntry]:
    return list(
        DiaryEntry.select()
        .where((DiaryEntry.game == game) & (DiaryEntry.seat == seat))
        .order_by(DiaryEntry.number)
    )


def entry(game: Game, seat: Seat, number: int) -> DiaryEntry:
    found = DiaryEntry.get_or_none(
        (DiaryEntry.game == game) & (DiaryEntry.seat == seat) & (DiaryEntry.number == number)
    )
    if found is None:
        have = ", ".join(str(e.number) for e in entries(game, seat)) or "none yet"
        raise NotFound(f"you have no diary entry {number} in {game.name}; yours: {have}")
    return found


def delete(game: Game, seat: Seat, number: int) -> None:
    entry(game, seat, number).delete_instance()


def public(game: Game) -> list[DiaryEntry]:
    """Every diary of a finished game, for everyone; none while it runs."""
    if game.state != GameState.FINISHED:
        return []
    return list(
        DiaryEntry.select().where(DiaryEntry.game == game)
        .order_by(DiaryEntry.written_at, DiaryEntry.id)
    )  # fmt: skip


def writer(entry: DiaryEntry) -> str:
    seat = entry.seat
    return " ".join(seat.powers) or seat.name

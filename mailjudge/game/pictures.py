"""Board pictures of a game's phases: drawn once, kept for the mails that carry them.

A played phase is drawn with its orders and their outcomes over the position it started
from; the current phase is drawn without orders (they are secret until it is processed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.phases import ResultRow
from mailjudge.engine.state import Phase
from mailjudge.game.state import game_map
from mailjudge.render.undrawn import picture_of
from mailjudge.store.models import BoardPicture, Game, PhaseRecord

KEEP_PHASES = 12  # pictures older than this many phases are dropped: their mail is long sent


def picture_for(
    game: Game,
    sequence: int,
    position: dict[str, Any],
    results: Sequence[ResultRow] | None = None,
) -> BoardPicture:
    """The stored picture of this position (and results), drawn now if it is not yet."""
    what = json.dumps([position, results or []], sort_keys=True)
    key = hashlib.sha256(what.encode()).hexdigest()
    found = BoardPicture.get_or_none((BoardPicture.game == game) & (BoardPicture.key == key))
    if found is not None:
        return found
    gmap = game_map(game)
    pos = position_from_dict(position, gmap)
    title = f"{game.name}: {Phase.parse(str(pos.phase)).long_name()}"
    picture = picture_of(gmap, pos, results or [], title)
    BoardPicture.delete().where(
        (BoardPicture.game == game) & (BoardPicture.sequence < sequence - KEEP_PHASES)
    ).execute()
    return BoardPicture.create(
        game=game, phase=str(pos.phase), sequence=sequence, key=key,
        svg=picture.svg, png=picture.png,
    )  # fmt: skip


def played_picture(game: Game, record: PhaseRecord) -> BoardPicture:
    """A processed phase: its orders and outcomes over the position it started from."""
    return picture_for(game, record.sequence, record.position, record.results["results"])


def current_picture(game: Game) -> BoardPicture:
    if not game.position:
        raise ValueError(f"game {game.name} has not started: there is no board yet")
    return picture_for(game, game.sequence, game.position)

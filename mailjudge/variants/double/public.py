"""What a Double game shows the public: the two seats that share each power."""

from __future__ import annotations

from mailjudge.game.state import game_map, power_title
from mailjudge.store.models import Game, Seat
from mailjudge.variants.web import PublicSection, PublicTable


def sections(game: Game, seats: list[Seat]) -> list[PublicSection]:
    rows = []
    for power in game_map(game).power_names:
        names = [s.name + ("" if s.person_id else " (vacant)") for s in seats if power in s.powers]
        rows.append([power_title(game, power), ", ".join(names) or "none"])
    table = PublicTable("Each power's two players", ["Power", "Seats"], rows)
    return [PublicSection("The seats", [table])]

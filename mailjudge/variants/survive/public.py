"""What a Survive game shows the public: who went out, when and how (the tallies of a
vote stay unpublished, as in the notices)."""

from __future__ import annotations

from mailjudge.game.state import phase_label, power_title
from mailjudge.store.models import Game
from mailjudge.variants.survive.tables import Outcast
from mailjudge.variants.web import PublicSection, PublicTable

HOW = {"voted": "voted out", "no centres": "out: no centres left"}


def sections(game: Game) -> list[PublicSection]:
    rows = [
        [power_title(game, o.power), phase_label(o.phase), HOW.get(o.reason, o.reason)]
        for o in Outcast.select()
        .where((Outcast.game == game) & (Outcast.sequence < game.sequence))
        .order_by(Outcast.sequence, Outcast.power)
        if o.reason in HOW  # "tied" marks the candidates of an open vote, not an outcome
    ]
    table = PublicTable("Powers out of the game", ["Power", "When", "How"], rows)
    return [PublicSection("Out of the game", [table])]

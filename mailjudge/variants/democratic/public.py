"""What a Democratic game shows the public: each country's elected diplomat, and the counts
the judge published (totals stage by stage, never a ballot). Citizens' own posts stay on
their country's list."""

from __future__ import annotations

from mailjudge.game.state import game_map, phase_label, power_title
from mailjudge.store.models import Game
from mailjudge.variants.democratic.citizens import diplomat_of
from mailjudge.variants.democratic.country_lists import JUDGE
from mailjudge.variants.democratic.tables import ListPost
from mailjudge.variants.web import PublicSection, PublicTable, PublicText

ELECTION_SUBJECT = "the diplomats"
ORDERS_COUNT_SUBJECT = "'s orders for "  # "FRANCE's orders for S1901M"


def sections(game: Game) -> list[PublicSection]:
    rows = []
    for power in game_map(game).power_names:
        seat = diplomat_of(game, power) if game.position else None
        # The name the citizen chose to show (JOIN ... AS name), never one made from an address.
        shown = (seat.public_name or "elected, no public name") if seat is not None else None
        rows.append([power_title(game, power), shown or "none elected"])
    section = PublicSection(
        "The diplomats", [PublicTable("Elected diplomats now", ["Country", "Diplomat"], rows)]
    )
    posts = (
        ListPost.select()
        .where((ListPost.game == game) & (ListPost.author == JUDGE))
        .order_by(ListPost.id.desc())
    )
    for post in posts:
        if post.subject == ELECTION_SUBJECT or ORDERS_COUNT_SUBJECT in post.subject:
            title = f"{power_title(game, post.power)}: {post.subject} ({phase_label(post.phase)})"
            section.texts.append(PublicText(title, post.body))
    return [section]

"""What a Diplonomic game shows the public: the rules text in force and its earlier
versions, the enacted proposals (never their authors: the rules publish them without),
and the teammates."""

from __future__ import annotations

from mailjudge.game.state import phase_label, power_title
from mailjudge.store.models import Game, Proposal, Seat
from mailjudge.variants.diplonomic.rule_changes import KIND, versions_in_force
from mailjudge.variants.web import PublicSection, PublicTable, PublicText


def sections(game: Game) -> list[PublicSection]:
    rules = PublicSection("The rules")
    for n, book in enumerate(versions_in_force(game)):
        state = "in force" if n == 0 else "earlier"
        source = f", from proposal {book.proposal.number}" if book.proposal is not None else ""
        rules.texts.append(PublicText(f"Version {book.version} ({state}{source})", book.text))
    enacted = PublicSection("Enacted proposals")
    for proposal in Proposal.select().where(
        (Proposal.game == game) & (Proposal.kind == KIND) & (Proposal.state == "enacted")
    ).order_by(Proposal.number):  # fmt: skip
        votes = f", {proposal.votes_for} for" if proposal.votes_for is not None else ""
        caption = f"Proposal {proposal.number} ({phase_label(proposal.phase)}{votes})"
        enacted.texts.append(PublicText(caption, proposal.text))
    rows = [
        # The name chosen with AS, never one made from the address.
        [
            seat.public_name or "(no public name)",
            " and ".join(power_title(game, p) for p in seat.powers),
            seat.status,
        ]
        for seat in Seat.select()
        .where((Seat.game == game) & (Seat.role == "teammate"))
        .order_by(Seat.id)
    ]
    team = PublicSection("Teammates", [PublicTable("Teammates", ["Name", "Helps", "Status"], rows)])
    return [rules, enacted, team]

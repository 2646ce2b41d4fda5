"""What of Diplonomic's rule changes a ROLLBACK puts back (its phase protocol's keep and restore).

Kept as a phase is processed: the rules version in force, each rules proposal's state
(and the turn it is voted in, its count, when it was resolved), the votes on the proposals
not yet resolved, and the settings an enacted proposal may change (rules flags, victory
count, timing). Put back: the version in force (later versions stay stored until a
proposal is enacted anew), the proposals' states (a proposal sent after the phase is
"undone" until a ROLLFORWARD brings it back), the open votes, and the settings that a
proposal enacted or undone in between had changed; a setting the master changed with his
own SET RULE or SET TIMING stays as he left it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mailjudge.store.models import Ballot, Game, Proposal
from mailjudge.variants.diplonomic import amendments as am
from mailjudge.variants.diplonomic import rule_changes as rc

OPEN = ("submitted", "published")


def keep(game: Game) -> dict[str, Any]:
    current = rc.latest(game)
    rows = Proposal.select().where((Proposal.game == game) & (Proposal.kind == rc.KIND))
    proposals = {
        str(p.id): {
            "state": p.state, "phase": p.phase, "votes_for": p.votes_for,
            "resolved_at": p.resolved_at.isoformat() if p.resolved_at else None,
        }
        for p in rows
    }  # fmt: skip
    open_numbers = [str(p.number) for p in rows if p.state in OPEN]
    ballots = Ballot.select().where(
        (Ballot.game == game) & (Ballot.kind == rc.KIND) & Ballot.subject.in_(open_numbers)
    )
    return {
        "version": current.version if current is not None else None,
        "proposals": proposals,
        "votes": [
            {"voter": b.voter_id, "subject": b.subject, "phase": b.phase, "content": b.content}
            for b in ballots
        ],
        "settings": {"rules": str(game.rules), "victory": game.victory_count,
                     "timing": game.timing},
    }  # fmt: skip


def restore(game: Game, kept: dict[str, Any]) -> None:
    if not kept:
        return
    rc.set_version(game, kept["version"])
    was = kept["proposals"]
    settings: set[str] = set()
    rows = list(Proposal.select().where((Proposal.game == game) & (Proposal.kind == rc.KIND)))
    for proposal in rows:
        then = was.get(str(proposal.id))
        state = then["state"] if then else rc.UNDONE
        if (proposal.state == "enacted") != (state == "enacted"):
            settings |= _settings_of(proposal)
        if then is None:
            proposal.state = rc.UNDONE
        else:
            proposal.state, proposal.phase = then["state"], then["phase"]
            proposal.votes_for = then["votes_for"]
            at = then["resolved_at"]
            proposal.resolved_at = datetime.fromisoformat(at) if at else None
        proposal.save()
    unresolved = [str(p.number) for p in rows if p.state not in ("enacted", "failed")]
    Ballot.delete().where(
        (Ballot.game == game) & (Ballot.kind == rc.KIND) & Ballot.subject.in_(unresolved)
    ).execute()
    for vote in kept["votes"]:
        Ballot.create(game=game, phase=vote["phase"], kind=rc.KIND, subject=vote["subject"],
                      voter=vote["voter"], content=vote["content"])  # fmt: skip
    _settings_back(game, kept["settings"], settings)


def _settings_of(proposal: Proposal) -> set[str]:
    """The settings a proposal changes when enacted: "rule", "victory", "timing"."""
    try:
        found = rc.amendments_of(proposal)
    except am.AmendmentError:
        return set()
    return {change.setting for change in found if isinstance(change, am.SettingChange)}


def _settings_back(game: Game, kept: dict[str, Any], which: set[str]) -> None:
    changes: dict[str, Any] = {}
    if "rule" in which and str(game.rules) != kept["rules"]:
        changes["rules"] = kept["rules"]
    if "victory" in which:
        changes["victory_count"] = kept["victory"]
    if "timing" in which:
        changes["timing"] = kept["timing"]
    if changes:
        Game.update(**changes).where(Game.id == game.id).execute()
        game.__data__.update(Game.get_by_id(game.id).__data__)

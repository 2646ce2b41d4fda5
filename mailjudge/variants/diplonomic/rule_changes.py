"""Diplonomic rule changes (rule 8): proposals, their publication, the vote, enactment.

A turn is a Spring or a Fall: its movement phase, its retreats and, after a Fall, the
adjustments. A proposal sent during a turn is published without its author when the next
turn begins; contestants vote on it during that turn only; when that turn's moves and
adjustments are done it is enacted if more than half the contestants voted for it. Only
the number of votes in favour is ever published.

States of a rules Proposal: submitted -> published -> enacted | failed; undone, when a
ROLLBACK went back before it was sent (a ROLLFORWARD may bring it back).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from mailjudge.engine.rules import RuleError, later_change
from mailjudge.game import schedule
from mailjudge.game.errors import NotAllowed, NotFound, ServiceError
from mailjudge.game.state import phase_of, rules_of, set_rules
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_everyone
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, Game, GameState, Proposal, Seat
from mailjudge.variants.diplonomic import amendments as am
from mailjudge.variants.diplonomic import rulebook as rb
from mailjudge.variants.diplonomic.tables import Rulebook

KIND = "rules"  # Proposal.kind and Ballot.kind
CHOICES = ("FOR", "AGAINST", "WITHDRAW")
UNDONE = "undone"  # a proposal sent in phases a ROLLBACK undid (variants/diplonomic/kept.py)


def turn_of(phase: str) -> str:
    """S1901M and S1901R are turn S1901; F1901M, F1901R and W1901A are turn F1901."""
    season, year = phase[0], phase[1:5]
    return f"{'F' if season == 'W' else season}{year}"


def contestants(game: Game) -> list[Seat]:
    """Players holding a power they still play (not vacant, dummy or eliminated)."""
    return [
        s
        for s in Seat.select().where((Seat.game == game) & (Seat.role == "player"))
        if s.person_id is not None and not s.dummy and not s.eliminated and s.status == "active"
    ]


def majority(count: int) -> int:
    """The fewest votes in favour that are more than half of ``count`` contestants."""
    return count // 2 + 1


def _require_contestant(game: Game, seat: Seat, what: str) -> None:
    if game.variant != "diplonomic":
        raise NotAllowed(f"{what} is for Diplonomic games; {game.name} is {game.variant}")
    if game.state != GameState.ACTIVE:
        raise NotAllowed(f"game {game.name} is {game.state}; {what} needs an active game")
    if seat.id not in {s.id for s in contestants(game)}:
        raise NotAllowed(f"only contestants (players) may {what}")


# The rules text, version by version.


VERSION = "rules_version"  # in Game.variant_state: the version in force


def latest(game: Game) -> Rulebook | None:
    """The version in force: the newest, unless a ROLLBACK went back to an earlier one
    (the later ones stay stored, as later phases do, until a proposal is enacted anew)."""
    versions = Rulebook.select().where(Rulebook.game == game)
    current = (game.variant_state or {}).get(VERSION)
    if current is not None:
        versions = versions.where(Rulebook.version <= current)
    found: Rulebook | None = versions.order_by(Rulebook.version.desc()).first()
    return found


def versions_in_force(game: Game) -> list[Rulebook]:
    """The version in force and the earlier ones, newest first."""
    current = latest(game)
    if current is None:
        return []
    return list(
        Rulebook.select()
        .where((Rulebook.game == game) & (Rulebook.version <= current.version))
        .order_by(Rulebook.version.desc())
    )


def version(game: Game, number: int | None = None) -> Rulebook:
    have = latest(game)
    found = (
        have
        if number is None or (have is not None and number > have.version)
        else Rulebook.get_or_none((Rulebook.game == game) & (Rulebook.version == number))
    )
    if found is None or (number is not None and found.version != number):
        raise NotFound(
            f"game {game.name} has no rules text yet; the master sends RULEBOOK ... END"
            if have is None
            else f"game {game.name} has rules versions 1 to {have.version}, not {number}"
        )
    return found


def load_rulebook(game: Game, text: str) -> Rulebook:
    """The master's RULEBOOK: a new version, before START only."""
    if game.state != GameState.FORMING:
        raise NotAllowed(
            "after START the rules change only by enacted proposals (PROPOSAL RULES ... END)"
        )
    try:
        rules = rb.parse_rules(text)
    except rb.RulebookError as err:
        raise ServiceError(str(err)) from None
    return _new_version(game, rules, None)


def _new_version(game: Game, rules: rb.Rules, proposal: Proposal | None) -> Rulebook:
    current = latest(game)
    number = 1 if current is None else current.version + 1
    text = rb.render_rules(rules)
    # Versions past the one in force were made in a future a ROLLBACK undid.
    Rulebook.delete().where((Rulebook.game == game) & (Rulebook.version >= number)).execute()
    made = Rulebook.create(game=game, version=number, text=text, proposal=proposal)
    set_version(game, number)
    return made


def set_version(game: Game, number: int | None) -> None:
    """The rules version in force from now on (None: no rules text)."""
    state = {k: v for k, v in (game.variant_state or {}).items() if k != VERSION}
    if number is not None:
        state[VERSION] = number
    game.variant_state = state
    Game.update(variant_state=state).where(Game.id == game.id).execute()


# Proposals and votes.


def propose(game: Game, seat: Seat, title: str, text: str) -> Proposal:
    """PROPOSAL RULES: read now (a proposal the judge cannot read is refused at once),
    published without its author when the next turn begins."""
    _require_contestant(game, seat, "propose rule changes")
    try:
        found = am.parse_amendments(text)
    except am.AmendmentError as err:
        raise ServiceError(str(err)) from None
    for change in found:
        if isinstance(change, am.SettingChange) and change.setting == "rule":
            _check_rules_change(game, change.value)
    with database_proxy.atomic():
        body = (f"{title.strip()}\n\n" if title.strip() else "") + text.strip("\n")
        return Proposal.create(
            game=game, phase=turn_of(phase_of(game)), kind=KIND, number=Proposal.next_number(game),
            text=body,
            author=seat, state="submitted",
        )  # fmt: skip


def _check_rules_change(game: Game, change: str) -> None:
    try:
        later_change(rules_of(game), change, variant=game.variant)
    except RuleError as err:
        raise ServiceError(f"SET RULE {change}: {err}") from None


def vote(game: Game, seat: Seat, number: int, choice: str) -> Proposal:
    """VOTE PROPOSAL n FOR | AGAINST | WITHDRAW, during the turn after publication."""
    _require_contestant(game, seat, "vote on proposals")
    choice = choice.upper()
    if choice not in CHOICES:
        raise ServiceError(f"write VOTE PROPOSAL {number} FOR, AGAINST or WITHDRAW")
    proposal = Proposal.get_or_none(
        (Proposal.game == game) & (Proposal.number == number) & (Proposal.kind == KIND)
    )
    if proposal is None or proposal.state != "published":
        open_now = [str(p.number) for p in published(game)]
        raise NotAllowed(
            f"proposal {number} is not open for votes; "
            + (f"open now: {', '.join(open_now)}" if open_now else "none is open this turn")
            + " (votes are taken during the turn after a proposal is published)"
        )
    where = (
        (Ballot.voter == seat) & (Ballot.kind == KIND) & (Ballot.subject == str(number))
        & (Ballot.phase == proposal.phase)
    )  # fmt: skip
    with database_proxy.atomic():
        Ballot.delete().where(where).execute()
        if choice != "WITHDRAW":
            Ballot.create(
                game=game, phase=proposal.phase, kind=KIND, subject=str(number), voter=seat,
                content={"vote": choice},
            )  # fmt: skip
    return proposal


def published(game: Game) -> list[Proposal]:
    return list(
        Proposal.select()
        .where((Proposal.game == game) & (Proposal.kind == KIND) & (Proposal.state == "published"))
        .order_by(Proposal.number)
    )


def _votes_for(proposal: Proposal, voters: set[int]) -> int:
    ballots = Ballot.select().where(
        (Ballot.game == proposal.game) & (Ballot.kind == KIND)
        & (Ballot.subject == str(proposal.number)) & (Ballot.phase == proposal.phase)
    )  # fmt: skip
    return sum(1 for b in ballots if b.content.get("vote") == "FOR" and b.voter_id in voters)


# The turn boundary: resolve what was voted, then publish what was proposed.


@dataclass
class Resolution:
    proposal: Proposal
    votes_for: int
    contestants: int
    enacted: bool
    problem: str = ""  # why an enacted proposal could not be applied


def at_turn_start(game: Game, now: datetime) -> list[Outgoing]:
    """Called when a new turn begins (a movement phase): the judge's rule 8 duties."""
    mails: list[Outgoing] = []
    resolutions = resolve(game, now)
    if resolutions:
        mails += _to_everyone(game, f"rule changes resolved ({len(resolutions)})",
                              "diplonomic/rules_resolved.txt.j2", resolutions=resolutions,
                              rulebook=_changed_text(resolutions))  # fmt: skip
    fresh = publish(game)
    if fresh:
        mails += _to_everyone(game, f"proposals to vote on in {game.phase}",
                              "diplonomic/rules_published.txt.j2", proposals=fresh)  # fmt: skip
    return mails


def _changed_text(resolutions: list[Resolution]) -> Rulebook | None:
    """The rules text to publish: the newest version an enacted proposal made."""
    made = [r.proposal for r in resolutions if r.enacted and not r.problem]
    versions = Rulebook.select().where(Rulebook.proposal.in_([p.id for p in made]))
    return versions.order_by(Rulebook.version.desc()).first() if made else None


def resolve(game: Game, now: datetime) -> list[Resolution]:
    voters = {s.id for s in contestants(game)}
    out: list[Resolution] = []
    for proposal in published(game):
        count = _votes_for(proposal, voters)
        passed = count >= majority(len(voters))
        resolution = Resolution(proposal, count, len(voters), passed)
        if passed:
            resolution.problem = enact(game, proposal, now)
        proposal.state = "enacted" if passed and not resolution.problem else "failed"
        proposal.votes_for = count
        proposal.resolved_at = now
        proposal.save()
        out.append(resolution)
    return out


def enact(game: Game, proposal: Proposal, now: datetime) -> str:
    """Apply every amendment, or none; returns why not ("" when applied)."""
    found = amendments_of(proposal)
    current = latest(game)
    try:
        rules = am.apply_text(rb.parse_rules(current.text) if current else None, found)
        with database_proxy.atomic():
            for change in found:
                if isinstance(change, am.SettingChange):
                    _apply_setting(game, change, now)
            if rules is not None:
                _new_version(game, rules, proposal)
    except (am.AmendmentError, ServiceError) as err:
        return str(err)
    return ""


def enact_by_master(game: Game, number: int, now: datetime) -> list[Outgoing]:
    """The master's ENACT n (rule 25: the Gamemaster's common sense), whatever the vote."""
    proposal = Proposal.get_or_none(
        (Proposal.game == game) & (Proposal.number == number) & (Proposal.kind == KIND)
    )
    if proposal is None or proposal.state in ("enacted", UNDONE):
        raise NotFound(f"game {game.name} has no proposal {number} that is not yet enacted")
    problem = enact(game, proposal, now)
    if problem:
        raise ServiceError(f"proposal {number} cannot be enacted: {problem}")
    proposal.state, proposal.resolved_at = "enacted", now
    proposal.save()
    made = Rulebook.get_or_none(Rulebook.proposal == proposal)
    return _to_everyone(
        game, f"proposal {number} enacted by the master", "diplonomic/rules_enacted.txt.j2",
        proposal=proposal, rulebook=made,
    )  # fmt: skip


def amendments_of(proposal: Proposal) -> list[am.Amendment]:
    """The amendments of a stored proposal (its title, if any, is its first paragraph)."""
    try:
        return am.parse_amendments(proposal.text)
    except am.AmendmentError:
        return am.parse_amendments(proposal.text.split("\n\n", 1)[-1])


def _apply_setting(game: Game, change: am.SettingChange, now: datetime) -> None:
    if change.setting == "rule":
        set_rules(game, change.value)
    elif change.setting == "victory":
        game.victory_count = int(change.value)
        game.save()
    else:
        schedule.set_timing(game, change.value, now)


def publish(game: Game) -> list[Proposal]:
    fresh = list(
        Proposal.select()
        .where((Proposal.game == game) & (Proposal.kind == KIND) & (Proposal.state == "submitted"))
        .order_by(Proposal.number)
    )
    for proposal in fresh:
        proposal.state = "published"
        proposal.phase = turn_of(phase_of(game))  # the turn its votes are taken in
        proposal.save()
    return fresh


def _to_everyone(game: Game, subject: str, template: str, **values: object) -> list[Outgoing]:
    """Contestants, teammates, observers and the master: rule 8 publishes to all."""
    body = render(template, game=game, majority=majority, **values)
    return mail_to_everyone(game, subject, body)

"""Commands of Diplonomic games: teammates, the rules text, and rule-change proposals.
(PROPOSAL RULES is a form of PROPOSAL, whose ORDERS form is Democratic's; VOTE PROPOSAL n
FOR is a form of VOTE, in commands/vote.py.)"""

from __future__ import annotations

from mailjudge.commands.arguments import is_number
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.master import MasterCommand
from mailjudge.commands.registry import register
from mailjudge.game import state
from mailjudge.permissions.vocabulary import Action
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.store.models import Game, Seat
from mailjudge.variants.diplonomic import advisors
from mailjudge.variants.diplonomic import rule_changes as rc
from mailjudge.variants.diplonomic import teammates as tm
from mailjudge.variants.diplonomic.rulebook import parse_rules


def contestant(ctx: Context) -> Seat:
    _, seat = ctx.signed_on()
    tm.require_contestant(seat)
    return seat


def _name_option(args: list[str]) -> tuple[list[str], str | None]:
    """``x AS name`` -> ([x], name)."""
    if len(args) >= 2 and args[-2].upper() == "AS":
        return args[:-2], args[-1]
    return args, None


@register
class TeammateAdd(Command):
    action = Action.SEAT
    name = "TEAMMATE ADD"
    variant = "diplonomic"
    arguments = "address [AS name]"
    summary = "Diplonomic: name a teammate; they confirm by mail with ACCEPT"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = contestant(ctx)
        rest, name = _name_option(args)
        if len(rest) != 1 or "@" not in rest[0]:
            raise CommandError("write TEAMMATE ADD bob@example.org (and AS bob if you like)")
        teammate = tm.invite(seat, rest[0], name)
        address = teammate.person.email if teammate.person is not None else rest[0]
        ctx.outgoing.append(tm.invitation(teammate))
        return [
            f"{address} is asked to be your teammate ({teammate.name});"
            " they answer with ACCEPT, and are then announced to everyone"
        ]


@register
class AdvisorAdd(Command):
    action = Action.SEAT
    name = "ADVISOR ADD"
    variant = "diplonomic"
    arguments = "name [help...]"
    summary = (
        "Diplonomic rule 7: announce someone who is not a contestant and helps you (and"
        " how); everyone is told, and LIST shows it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = contestant(ctx)
        if not args:
            raise CommandError("write ADVISOR ADD carol reads our orders before we send them")
        game = state.get_game(seat.game.name)
        ctx.outgoing += advisors.add(game, seat, args[0], " ".join(args[1:]))
        return [f"{args[0]} is announced to everyone as an advisor of {seat.powers}"]


@register
class AdvisorRemove(Command):
    action = Action.SEAT
    name = "ADVISOR REMOVE"
    variant = "diplonomic"
    arguments = "name"
    hint = "write ADVISOR REMOVE carol"
    summary = "Diplonomic rule 7: an advisor no longer helps you; everyone is told"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = contestant(ctx)
        game = state.get_game(seat.game.name)
        ctx.outgoing += advisors.remove(game, seat, args[0])
        return [f"{args[0]} is no longer an advisor of {seat.powers}; everyone is told"]


@register
class TeammateRemove(Command):
    action = Action.SEAT
    name = "TEAMMATE REMOVE"
    variant = "diplonomic"
    arguments = "name|address"
    hint = "write TEAMMATE REMOVE bob (a name or an address)"
    summary = "Diplonomic: a teammate leaves your team (everyone is told)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = contestant(ctx)
        teammate = tm.remove(seat, args[0])
        ctx.outgoing += tm.announcement(seat.game, teammate, joined=False)
        goodbye = f"{seat.powers} has removed you from its team in {seat.game.name}."
        ctx.outgoing.append(
            mail_to_seat(teammate, "you are no longer a teammate", goodbye, "notice")
        )
        return [f"{teammate.name} is no longer your teammate"]


@register
class Accept(Command):
    action = Action.INFO
    name = "ACCEPT"
    variant = "diplonomic"
    arguments = "game password [AS name]"
    summary = "Diplonomic: agree to be the teammate a contestant named (no SIGNON needed)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        rest, name = _name_option(args)
        if len(rest) != 2:
            raise CommandError("write ACCEPT game yourpassword (and AS name if you like)")
        game = state.get_game(rest[0])
        seat = tm.accept(game, ctx.sender, rest[1], name)
        ctx.game, ctx.seat = game, seat
        ctx.outgoing += tm.announcement(game, seat, joined=True)
        return [
            f"you are a teammate of {seat.powers} in {game.name}; sign on with"
            f" SIGNON {seat.name}@{game.name} yourpassword",
            "you may submit orders once your contestant sends AUTHORIZE " + seat.name,
        ]


class AuthorizeCommand(Command):
    action = Action.SEAT
    variant = "diplonomic"
    allowed = True

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = contestant(ctx)
        if len(args) != 1:
            raise CommandError(f"write {self.name} bob (your teammate's name)")
        teammate = tm.authorize(seat, args[0], self.allowed)
        what = "may now submit and change" if self.allowed else "may no longer submit"
        note = f"{seat.powers} says: you {what} its orders in {seat.game.name}."
        ctx.outgoing.append(mail_to_seat(teammate, f"orders: {self.name.lower()}d", note, "notice"))
        return [f"{teammate.name} {what} your orders"]


@register
class Authorize(AuthorizeCommand):
    name = "AUTHORIZE"
    aliases = ("AUTHORISE",)
    usage = "AUTHORIZE name"
    summary = "Diplonomic: let your teammate submit and change your orders"


@register
class Revoke(AuthorizeCommand):
    name = "REVOKE"
    usage = "REVOKE name"
    summary = "Diplonomic: your teammate may no longer submit orders"
    allowed = False


@register
class RulebookCommand(MasterCommand):
    name = "RULEBOOK"
    variant = "diplonomic"
    usage = "RULEBOOK ... END"
    summary = "Diplonomic: the game's numbered rules text ('1. text' a rule), before START"
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, _ = ctx.signed_on()
        ctx.require(Action.MASTER)
        book = rc.load_rulebook(game, "\n".join(block.body))
        numbers = list(parse_rules(book.text))
        return [f"rules version {book.version} stored: {len(numbers)} rules, {numbers[0]} to"
                f" {numbers[-1]}; everyone gets the text when the game starts"]  # fmt: skip


@register
class Rules(Command):
    action = Action.INFO
    name = "RULES"
    variant = "diplonomic"
    usage = "RULES game [version]"
    summary = "Diplonomic: the game's rules text as it stands (or an earlier version)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if not args or len(args) > 2 or (len(args) == 2 and not is_number(args[1])):
            raise CommandError("write RULES game, or RULES game 2 for version 2")
        game: Game = state.get_game(args[0])
        book = rc.version(game, int(args[1]) if len(args) == 2 else None)
        newest = rc.latest(game)
        head = f"{game.name}: rules version {book.version}"
        if newest is not None and newest.version != book.version:
            head += f" (the current version is {newest.version})"
        return [head, "", *book.text.rstrip("\n").split("\n")]


@register
class Enact(MasterCommand):
    name = "ENACT"
    variant = "diplonomic"
    arguments = "n"
    summary = "Diplonomic: enact rule-change proposal n by the master's ruling (everyone is told)"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        if len(args) != 1 or not is_number(args[0]):
            raise CommandError("write ENACT and the proposal's number: ENACT 3")
        ctx.outgoing += rc.enact_by_master(game, int(args[0]), ctx.now)
        return [f"proposal {args[0]} is enacted; everyone is told"]


@register
class ProposeRules(Command):
    action = Action.SEAT  # who may propose is the rule changes' own check (contestants)
    name = "PROPOSAL"
    variant = "diplonomic"
    usage = "PROPOSAL RULES [title] ... END"
    summary = "Diplonomic: propose rule changes (published next turn without your name)"
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if not args or args[0].upper() != "RULES":
            raise CommandError("in a Diplonomic game write PROPOSAL RULES title, the changes, END")
        proposal = rc.propose(game, seat, " ".join(args[1:]), "\n".join(block.body))
        return [
            f"proposal {proposal.number} received; it is published without your name when the"
            " next turn begins, and voted on during that turn"
        ]


@register
class DiplonomicVote(Command):
    action = Action.VOTE
    name = "VOTE"
    variant = "diplonomic"
    usage = "VOTE PROPOSAL n FOR | AGAINST | WITHDRAW"
    summary = "Diplonomic: your vote on a published rule change (WITHDRAW takes it back)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        return _proposal_vote(game, seat, args)


def _proposal_vote(game: Game, seat: Seat, args: list[str]) -> list[str]:
    """VOTE PROPOSAL 3 FOR; also VOTE FOR 3, VOTE 3 FOR (and AGAINST, WITHDRAW)."""
    words = [w.upper() for w in args if w.upper() != "PROPOSAL"]
    numbers = [w for w in words if is_number(w)]
    choices = [w for w in words if w in rc.CHOICES]
    if len(numbers) != 1 or len(choices) != 1 or len(words) != 2:
        raise CommandError(
            "write VOTE PROPOSAL 3 FOR (or AGAINST, or WITHDRAW to take your vote back);"
            " in Diplonomic the master declares draws"
        )
    proposal = rc.vote(game, seat, int(numbers[0]), choices[0])
    if choices[0] == "WITHDRAW":
        return [f"your vote on proposal {proposal.number} is withdrawn"]
    return [f"your vote {choices[0]} proposal {proposal.number} is recorded; it is secret"
            " and may change until this turn is processed"]  # fmt: skip

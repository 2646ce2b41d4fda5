"""Commands of Democratic games: nominations, order-set proposals, comments, abstaining.
(VOTE DIPLOMAT and VOTE ORDERS are forms of VOTE, in commands/vote.py.)"""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.models import Game
from mailjudge.render import render
from mailjudge.variants import democratic as dem
from mailjudge.variants.country_lists import JUDGE, list_mail


def democratic_game(ctx: Context) -> Game:
    game, _ = ctx.signed_on_in("democratic", "that is")
    return game


def to_country(ctx: Context, game: Game, power: str, subject: str, body: str) -> None:
    """A mail to a country's list, with the sender as its author (kept for the digests)."""
    author = ctx.seat.name if ctx.seat is not None else JUDGE
    mail = list_mail(game, power, subject, body, author)
    if mail is not None:
        ctx.outgoing.append(mail)


@register
class Nominate(Command):
    name = "NOMINATE"
    usage = "NOMINATE name [why]"
    summary = "Democratic: nominate a citizen of your country (or yourself) for diplomat"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = democratic_game(ctx)
        if not args:
            raise CommandError(
                "write NOMINATE name, and why if you like: NOMINATE alice she knows Russia"
            )
        assert ctx.seat is not None
        why = " ".join(args[1:])
        proposal = dem.nominate(game, ctx.seat, args[0], why)
        power = dem.country_of(ctx.seat) or ""
        number = dem.set_number(proposal)
        body = render("nomination.txt.j2", game=game, nominee=args[0].lower(), why=why,
                      power=power, number=number)  # fmt: skip
        to_country(ctx, game, power, f"nomination {number}: {args[0].lower()}", body)
        return [f"{args[0].lower()} is nominated for diplomat of {power} (nomination {number})"]


@register
class ProposalCommand(Command):
    name = "PROPOSAL"
    usage = "PROPOSAL ORDERS ... END | PROPOSAL RULES [title] ... END"
    summary = (
        "Democratic: propose an order set for your country, one order a line;"
        " Diplonomic: propose rule changes (published next turn without your name)"
    )
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if args and args[0].upper() == "RULES":
            return _rules_proposal(ctx, args[1:], block)
        game = democratic_game(ctx)
        if args and args[0].upper() != "ORDERS":
            raise CommandError("in a Democratic game write PROPOSAL ORDERS, the orders, then END")
        assert ctx.seat is not None
        proposal, errors = dem.propose_orders(game, ctx.seat, list(block.body))
        power, number = proposal.power, dem.set_number(proposal)
        body = render("proposal_orders.txt.j2", game=game, proposal=proposal, number=number)
        to_country(ctx, game, power, f"order set {number} for {game.phase}", body)
        lines = [f"order set {number} for {power} in {game.phase}:"]
        lines += [f"    {line}" for line in proposal.text.split("\n")]
        for text, reason in errors:
            ctx.order_errors += 1
            lines += [f"  not accepted: {text}", f"      {reason}"]
        return lines


def _rules_proposal(ctx: Context, title: list[str], block: Block) -> list[str]:
    from mailjudge.variants import rule_changes

    game, seat = ctx.signed_on()
    proposal = rule_changes.propose(game, seat, " ".join(title), "\n".join(block.body))
    return [
        f"proposal {proposal.number} received; it is published without your name when the"
        " next turn begins, and voted on during that turn"
    ]


@register
class Comment(Command):
    name = "COMMENT"
    usage = "COMMENT n ... END | COMMENT NOMINATION n ... END"
    summary = (
        "Democratic: comment on your country's order set n of this phase, or on its"
        " nomination n; it goes to your country"
    )
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = democratic_game(ctx)
        words = [a.upper() for a in args]
        nominated = len(words) == 2 and words[0] == "NOMINATION"
        if not (nominated or len(words) == 1) or not words[-1].isdigit():
            raise CommandError(
                "write COMMENT 2 (order set 2 of this phase) or COMMENT NOMINATION 1, your"
                " comment, then END"
            )
        assert ctx.seat is not None
        power = dem.country_of(ctx.seat) or ""
        number = int(words[-1])
        if nominated:
            proposal = dem.nomination(game, power, number)
            what = f"nomination {number}"
        else:
            sets = dem.proposals(game, power)
            proposal = sets[number - 1] if 0 < number <= len(sets) else None
            what = f"order set {number} for {game.phase}"
        if proposal is None:
            raise CommandError(f"{power} has no {what}")
        text = "\n".join(block.body).strip()
        if not text:
            raise CommandError("the comment is empty")
        body = render("comment.txt.j2", game=game, what=what, author=ctx.seat.name, text=text)
        to_country(ctx, game, power, f"comment on {what}", body)
        return [f"comment on {what} sent to {power}'s citizens"]


@register
class Abstain(Command):
    name = "ABSTAIN"
    usage = "ABSTAIN DIPLOMAT | ABSTAIN ORDERS"
    summary = "Democratic: withdraw your ballot (an abstention is not counted)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = democratic_game(ctx)
        kind = args[0].lower() if args else ""
        if kind not in ("diplomat", "orders"):
            raise CommandError("write ABSTAIN DIPLOMAT or ABSTAIN ORDERS")
        assert ctx.seat is not None
        dem.abstain(game, ctx.seat, kind)
        return [f"you abstain in the {kind} vote"]

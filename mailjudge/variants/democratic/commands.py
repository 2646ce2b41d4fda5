"""Commands of Democratic games: nominations, order-set proposals and their ranked votes,
comments, abstaining, and the master's SET LIST."""

from __future__ import annotations

from mailjudge.commands.arguments import is_number
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.master import MasterCommand
from mailjudge.commands.registry import register
from mailjudge.commands.vote import draw_vote
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.store.models import Game
from mailjudge.variants import democratic as dem
from mailjudge.variants.democratic import country_lists as lists
from mailjudge.variants.democratic import proposal_reads
from mailjudge.variants.democratic.citizens import country_of
from mailjudge.variants.democratic.country_lists import JUDGE, list_mail


def democratic_game(ctx: Context) -> Game:
    game, _ = ctx.signed_on()
    return game


def to_country(ctx: Context, game: Game, power: str, subject: str, body: str) -> None:
    """A mail to a country's list, with the sender as its author (kept for the digests)."""
    author = ctx.seat.name if ctx.seat is not None else JUDGE
    mail = list_mail(game, power, subject, body, author)
    if mail is not None:
        ctx.outgoing.append(mail)


@register
class Nominate(Command):
    action = Action.VOTE
    name = "NOMINATE"
    variant = "democratic"
    arguments = "name [why...]"
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
        power = country_of(ctx.seat) or ""
        number = proposal_reads.set_number(proposal)
        body = render("democratic/nomination.txt.j2", game=game, nominee=args[0].lower(), why=why,
                      power=power, number=number)  # fmt: skip
        to_country(ctx, game, power, f"nomination {number}: {args[0].lower()}", body)
        return [f"{args[0].lower()} is nominated for diplomat of {power} (nomination {number})"]


@register
class ProposeOrders(Command):
    action = Action.VOTE
    name = "PROPOSAL"
    variant = "democratic"
    usage = "PROPOSAL ORDERS ... END"
    summary = "Democratic: propose an order set for your country, one order a line"
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = democratic_game(ctx)
        if args and args[0].upper() != "ORDERS":
            raise CommandError("in a Democratic game write PROPOSAL ORDERS, the orders, then END")
        assert ctx.seat is not None
        proposal, errors = dem.propose_orders(game, ctx.seat, list(block.body))
        power, number = str(proposal.power), proposal_reads.set_number(proposal)
        body = render(
            "democratic/proposal_orders.txt.j2", game=game, proposal=proposal, number=number
        )
        to_country(ctx, game, power, f"order set {number} for {game.phase}", body)
        lines = [f"order set {number} for {power} in {game.phase}:"]
        lines += [f"    {line}" for line in proposal.text.split("\n")]
        for text, reason in errors:
            ctx.order_errors += 1
            lines += [f"  not accepted: {text}", f"      {reason}"]
        return lines


@register
class DemocraticVote(Command):
    action = Action.VOTE
    name = "VOTE"
    variant = "democratic"
    usage = "VOTE DIPLOMAT name name ... | VOTE ORDERS 2 1 3 (and the ending votes)"
    summary = "Democratic: rank your country's nominees, or this phase's order sets, best first"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.VOTE)
        if not args:
            raise CommandError("write VOTE DIPLOMAT alice bob, or VOTE ORDERS 2 1 3")
        kind, ranking = args[0].upper(), args[1:]
        if kind == "ORDERS":
            if not ranking or not all(is_number(r) for r in ranking):
                raise CommandError("write VOTE ORDERS 2 1 3: the order sets' numbers, best first")
            dem.vote_orders(game, seat, [int(r) for r in ranking])
        elif kind == "DIPLOMAT":
            dem.vote_diplomat(game, seat, ranking)
        else:
            return draw_vote(ctx, game, seat, " ".join(args).upper())
        return [f"{kind.lower()} ballot recorded; it is secret and may change until the deadline"]


@register
class Comment(Command):
    action = Action.VOTE
    name = "COMMENT"
    variant = "democratic"
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
        if not (nominated or len(words) == 1) or not is_number(words[-1]):
            raise CommandError(
                "write COMMENT 2 (order set 2 of this phase) or COMMENT NOMINATION 1, your"
                " comment, then END"
            )
        assert ctx.seat is not None
        power = country_of(ctx.seat) or ""
        number = int(words[-1])
        if nominated:
            proposal = proposal_reads.nomination(game, power, number)
            what = f"nomination {number}"
        else:
            sets = proposal_reads.proposals(game, power)
            proposal = sets[number - 1] if 0 < number <= len(sets) else None
            what = f"order set {number} for {game.phase}"
        if proposal is None:
            raise CommandError(f"{power} has no {what}")
        text = "\n".join(block.body).strip()
        if not text:
            raise CommandError("the comment is empty")
        body = render(
            "democratic/comment.txt.j2", game=game, what=what, author=ctx.seat.name, text=text
        )
        to_country(ctx, game, power, f"comment on {what}", body)
        return [f"comment on {what} sent to {power}'s citizens"]


@register
class Abstain(Command):
    action = Action.VOTE
    name = "ABSTAIN"
    variant = "democratic"
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


@register
class SetList(MasterCommand):
    name = "SET LIST"
    arguments = "country address|JUDGE [PLAIN|MIME]"
    hint = (
        "write SET LIST FRANCE france@lists.example.org MIME, or SET LIST FRANCE JUDGE PLAIN"
        " (PLAIN: RFC 1153 digests, MIME: multipart/digest)"
    )
    variant = "democratic"
    summary = "Democratic: a country's list is an outside address or the judge's own; digest form"

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        row = lists.set_list(game, args[0], args[1], args[2] if len(args) == 3 else None)
        where = (
            row.address
            if row.external
            else f"the judge's own, {lists.list_address(game, row.power)}"
        )
        form = "MIME" if row.digest_format == "mime" else "PLAIN (RFC 1153)"
        return [f"{row.power}'s list is {where}; digests {form}"]

"""VOTE and PROPOSE: how a game ends by agreement (see service.draws)."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.models import Game, Seat
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.service import draws
from mailjudge.service.games import has_rule
from mailjudge.variants import double


def announce_end(ctx: Context, game: Game, outcome: str) -> None:
    body = render("game_over.txt.j2", game=game, outcome=outcome)
    for seat in Seat.select().where(Seat.game == game):
        if seat.person is not None:
            subject = f"the game is over: {outcome.lower()}"
            ctx.outgoing.append(mail_to_seat(seat, subject, body, "notice"))


@register
class Vote(Command):
    name = "VOTE"
    usage = (
        "VOTE DRAW | VOTE CONCEDE power | VOTE NONE | VOTE YES/NO | VOTE n/SOLO/LOSS"
        " | VOTE OUT power n [power m ...] | VOTE VICTOR power | VOTE PROPOSAL n FOR/AGAINST"
    )
    summary = (
        "your secret ballot on how the game ends (the form depends on the game);"
        " Survive: whom your centres' votes put out, or the victor after a tie;"
        " Diplonomic: your vote on a published rule change (WITHDRAW takes it back)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if game.variant == "survive" and args and args[0].upper() in ("OUT", "VICTOR"):
            ctx.require("vote.victor" if args[0].upper() == "VICTOR" else "vote")
            ctx.touched.add(game.id)  # the last ballot may complete the phase
            return _survive_vote(game, seat, args)
        ctx.require("vote")
        if not args:
            raise CommandError("write VOTE DRAW, VOTE CONCEDE FRANCE or VOTE NONE")
        if game.variant == "diplonomic":
            return _proposal_vote(game, seat, args)
        choice = " ".join(args).upper()
        if game.variant == "democratic" and args[0].upper() in ("DIPLOMAT", "ORDERS"):
            return _democratic_vote(game, seat, args)
        if game.variant == "double" and choice in ("YES", "NO") and double.joint_vote_open(game):
            outcome = double.vote_joint(game, seat, choice == "YES")
            if outcome is None and choice == "NO":
                ctx.outgoing += double.tiebreak_notices(game)
                return ["you said NO: the game goes on in a tie-break"]
        elif has_rule(game, "PROPOSE_DIAS"):
            if choice not in ("YES", "NO"):
                raise CommandError("in this game write PROPOSE DRAW, then VOTE YES or VOTE NO")
            outcome = draws.answer(game, seat, choice == "YES")
        elif has_rule(game, "NO_DIAS"):
            outcome = draws.vote_no_dias(game, seat, choice)
        else:
            outcome = draws.vote(game, seat, choice)
        if outcome:
            announce_end(ctx, game, outcome)
            return [f"vote recorded; all votes agree: {outcome.lower()}"]
        return ["vote recorded (votes are secret and stand until changed)"]


def _democratic_vote(game: Game, seat: Seat, args: list[str]) -> list[str]:
    from mailjudge.variants import democratic as dem

    kind, ranking = args[0].upper(), args[1:]
    if kind == "ORDERS":
        if not ranking or not all(r.isdigit() for r in ranking):
            raise CommandError("write VOTE ORDERS 2 1 3: the order sets' numbers, best first")
        dem.vote_orders(game, seat, [int(r) for r in ranking])
    else:
        dem.vote_diplomat(game, seat, ranking)
    return [f"{kind.lower()} ballot recorded; it is secret and may change until the deadline"]


def _proposal_vote(game: Game, seat: Seat, args: list[str]) -> list[str]:
    """VOTE PROPOSAL 3 FOR; also VOTE FOR 3, VOTE 3 FOR (and AGAINST, WITHDRAW)."""
    from mailjudge.variants import rule_changes

    words = [w.upper() for w in args if w.upper() != "PROPOSAL"]
    numbers = [w for w in words if w.isdigit()]
    choices = [w for w in words if w in rule_changes.CHOICES]
    if len(numbers) != 1 or len(choices) != 1 or len(words) != 2:
        raise CommandError(
            "write VOTE PROPOSAL 3 FOR (or AGAINST, or WITHDRAW to take your vote back);"
            " in Diplonomic the master declares draws"
        )
    proposal = rule_changes.vote(game, seat, int(numbers[0]), choices[0])
    if choices[0] == "WITHDRAW":
        return [f"your vote on proposal {proposal.number} is withdrawn"]
    return [f"your vote {choices[0]} proposal {proposal.number} is recorded; it is secret"
            " and may change until this turn is processed"]  # fmt: skip


def _survive_vote(game: Game, seat: Seat, args: list[str]) -> list[str]:
    from mailjudge.variants import vote_out

    if args[0].upper() == "VICTOR":
        if len(args) != 2:
            raise CommandError("write VOTE VICTOR and one of the tied powers: VOTE VICTOR TURKEY")
        choice = vote_out.vote_victor(game, seat, args[1])
        return [f"victor ballot recorded: {choice} (secret; it may change until the deadline)"]
    allocation = vote_out.vote_out(game, seat, args[1:])
    return [f"vote-out ballot recorded: {vote_out.out_text(allocation)}"
            " (secret; a later one replaces it until the deadline)"]  # fmt: skip


@register
class Propose(Command):
    name = "PROPOSE"
    usage = "PROPOSE DRAW | PROPOSE CONCEDE power"
    summary = "propose an ending (PROPOSE_DIAS games); one NO vetoes it"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require("vote")
        proposal = draws.propose(game, seat, " ".join(args))
        body = render("proposal.txt.j2", game=game, proposal=proposal)
        for other in Seat.select().where((Seat.game == game) & (Seat.role == "player")):
            if other.person is not None and other.id != seat.id:
                subject = f"proposal: {proposal.text.lower()}"
                ctx.outgoing.append(mail_to_seat(other, subject, body, "notice"))
        return [f"proposal {proposal.number} ({proposal.text}) sent; everyone votes YES or NO"]

"""TOURNAMENT CREATE, JOIN, ROUND and STANDINGS (service/tournaments.py): a master's rounds
of boards, by mail."""

from __future__ import annotations

from mailjudge.commands.account import spend_password_hash
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.joining import announce_start
from mailjudge.commands.registry import register
from mailjudge.game import guard
from mailjudge.game.errors import ServiceError
from mailjudge.permissions.vocabulary import Action
from mailjudge.service import tournaments


def _settings(words: list[str]) -> dict[str, str]:
    """MAP m, RULES A B, SCORING s, ROUNDS n, ANONYMOUS: read in any order."""
    found: dict[str, str] = {}
    key = ""
    for word in words:
        upper = word.upper()
        if upper in ("MAP", "RULES", "SCORING", "ROUNDS"):
            key = upper
            found.setdefault(key, "")
        elif upper == "ANONYMOUS":
            found["ANONYMOUS"] = "yes"
            key = ""
        elif key:
            found[key] = f"{found[key]} {upper if key != 'MAP' else word.lower()}".strip()
        else:
            raise CommandError(f"{word!r} is not a setting: write MAP m, RULES FLAG..., "
                               "SCORING rule, ROUNDS n or ANONYMOUS")  # fmt: skip
    return found


@register
class TournamentCreate(Command):
    action = Action.RECORD  # anyone may organise one, as anyone may CREATE a game
    name = "TOURNAMENT CREATE"
    arguments = "name password [settings...]"
    summary = (
        "organise a tournament: its boards play MAP m (standard) with RULES FLAG... "
        "(every board), scored by SCORING WINNER_TAKES_ALL|DRAW_SIZE|SUM_OF_SQUARES|CENTRES "
        "over ROUNDS n (2); ANONYMOUS hides the players' names until it ends"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        spend_password_hash(ctx)
        given = _settings(args[2:])
        rounds = given.get("ROUNDS", "2")
        if not rounds.isdigit():
            raise CommandError(f"ROUNDS is a number, not {rounds!r}")
        found = tournaments.create(
            args[0], ctx.sender, args[1], given.get("MAP", "standard"), given.get("RULES", ""),
            given.get("SCORING", "DRAW_SIZE"), int(rounds), "ANONYMOUS" in given,
        )  # fmt: skip
        return [f"tournament {found.name} created: {found.rounds} rounds on {found.map_name}, "
                f"scored by {found.scoring}; players register with TOURNAMENT JOIN "
                f"{found.name} password; TOURNAMENT ROUND {found.name} password begins a "
                "round"]  # fmt: skip


@register
class TournamentJoin(Command):
    action = Action.RECORD
    name = "TOURNAMENT JOIN"
    arguments = "name password [AS shown]"
    summary = (
        "register for a tournament; the password signs you on to each of your boards "
        "(SIGNON power@board password), AS a name the standings show (never your address)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        spend_password_hash(ctx)
        shown = args[3] if len(args) == 4 else ""
        proven = guard.is_proven(ctx.sender)
        player = tournaments.register(args[0], ctx.sender, args[1], shown, proven)
        if player.token is not None:
            # The boards' mail goes to this address for the whole tournament: only an
            # address that answered the judge is registered (a forged From would register
            # a stranger). The token goes to the From only.
            ctx.token_for_sender = True
            return [f"to register for {player.tournament.name}, answer this mail with the line",
                    f"    CONFIRM {player.token}",
                    "from this address: the judge sends a tournament's mail only to an address "
                    "that answered it. If you did not ask to register, do nothing."]  # fmt: skip
        return tournaments.registered_lines(player)


@register
class TournamentRound(Command):
    action = Action.RECORD
    name = "TOURNAMENT ROUND"
    arguments = "name password"
    master_only = True
    summary = "the tournament's master begins its next round: boards dealt and started"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        found = tournaments.tournament(args[0])
        if found.master.email != ctx.sender.lower():
            raise CommandError(f"only the master of {found.name} begins its rounds")
        made = tournaments.begin_round(args[0], args[1])
        lines = []
        for game, mails in made:
            ctx.outgoing += mails
            announce_start(ctx, game)
            lines.append(f"board {game.name} has started ({game.phase})")
        return lines


@register
class TournamentStandings(Command):
    action = Action.RECORD
    name = "TOURNAMENT STANDINGS"
    arguments = "name"
    summary = "the tournament's standings (also on the web at /tournaments/NAME)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        try:
            found = tournaments.tournament(args[0])
            rows = tournaments.standings(args[0])
        except ServiceError as err:
            raise CommandError(str(err)) from None
        lines = [f"{found.name}: round {found.round} of {found.rounds}, by {found.scoring}"]
        lines += [f"  {s.place}. {s.name}: {float(s.total):g} ({s.boards} board(s))" for s in rows]
        return lines

"""What players and masters of njudge (the Ken Lowe judge) and DPjudge send that this judge
does not do the same way: each gets a clear answer naming our nearest command, never an
order error and never a change to the orders on file.

Their forms that mean the same as ours are aliases beside our commands (SET DRAW in
vote.py, SET NOABSENCE and SET PREFERENCE in account.py, PHASE in orders.py, DIARY in
diary.py, PRESS TO EF and BROADCAST TO F in press.py). The table in the README, "Coming
from njudge or DPjudge", lists both kinds.
"""

from __future__ import annotations

from importlib import metadata

from mailjudge.commands.account import Signoff, Signon
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.info import Help
from mailjudge.commands.master import MasterCommand
from mailjudge.commands.orders import flush_bare_lines
from mailjudge.commands.registry import register
from mailjudge.commands.veteran_lines import close_if, else_branch
from mailjudge.game.options import OPTIONS
from mailjudge.game.state import game_map
from mailjudge.models import Game
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.service import seats


class Elsewhere(Command):
    """A command of another judge that this one does not have: the answer says what to
    write here instead."""

    action = Action.INFO
    listed = False
    nearest = ""

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        raise CommandError(f"this judge has no {self.name}: {self.nearest}")


def _elsewhere(name: str, nearest: str, usage: str = "") -> type[Elsewhere]:
    cls = type(
        "Elsewhere" + "".join(w.title() for w in name.split()),
        (Elsewhere,),
        {"name": name, "nearest": nearest, "usage": usage or name,
         "summary": f"njudge's {name}: here, {nearest}"},
    )  # fmt: skip
    return register(cls)  # type: ignore[return-value]


_elsewhere("REGISTER", "nobody registers; JOIN game password joins a game with the "
           "address you write from, and SIGNON power@game password signs on")  # fmt: skip
_elsewhere("I AM ALSO", "each seat belongs to one address; SET ADDRESS new@address moves "
           "your seat's mail to another one")  # fmt: skip
_elsewhere("WHOIS", "there is no register of players, and addresses are never shown; "
           "LIST game shows who holds each power (played, vacant or a dummy)")  # fmt: skip
_elsewhere("TERMINATE", "the master ends a game with DECLARE DRAW, or stops its clock with "
           "PAUSE")  # fmt: skip
_elsewhere("PREDICT", "PREVIEW shows the master what processing now would give")
_elsewhere("FORCE BEGIN", "START begins a forming game now (the master's)")
_elsewhere("WITHDRAW", "CLEAR withdraws your orders for this phase; a player leaves a game "
           "that has not started with RESIGN (after SIGNON)")  # fmt: skip
_elsewhere("UNSTART", "a started game does not go back to forming; the master takes it "
           "back a phase with ROLLBACK, or stops its clock with PAUSE")  # fmt: skip
_elsewhere("PROMOTE", "an observer takes a vacant power with TAKEOVER power@game password")
_elsewhere("WHOGAME", "LIST game shows who holds each power (played, vacant or a dummy)")
_elsewhere("INFO", "LIST game shows a game's rules and players; HELP lists the commands")
_elsewhere("WATCH", "OBSERVE name@game password follows a game's results")
_elsewhere("FORCE", "START begins a forming game now, PROCESS! processes the phase now "
           "(both the master's)")  # fmt: skip


@register
class PostalPress(Elsewhere):
    """njudge's postal press (sent with the next results): its lines are never orders."""

    name = "POSTAL PRESS"
    usage = "POSTAL PRESS ... ENDPRESS"
    block_end = "ENDPRESS"
    nearest = "press goes at once with PRESS TO power ... ENDPRESS; nothing was sent"
    summary = f"njudge's POSTAL PRESS: here, {nearest}"


@register
class SignOnSpaced(Command):
    """njudge's SIGN ON, written with a space: the same as SIGNON."""

    action = Action.INFO
    name = "SIGN ON"
    arguments = "power@game password"
    stops_mail = True
    listed = False
    summary = "SIGNON written as two words"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        flush_bare_lines(ctx)  # the orders above were the last seat's
        return Signon().run(ctx, args, block)


@register
class SignOffSpaced(Command):
    """njudge's SIGN OFF, written with a space: the same as SIGNOFF (the rest of the mail
    is ignored)."""

    action = Action.INFO
    name = "SIGN OFF"
    arguments = ""
    listed = False
    summary = "SIGNOFF written as two words"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        flush_bare_lines(ctx)
        return Signoff().run(ctx, args, block)


@register
class Else(Command):
    action = Action.INFO
    name = "ELSE"
    usage = "ELSE"
    summary = "njudge's conditional orders: the orders that stand if the IF above is false"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        flush_bare_lines(ctx)
        return else_branch(ctx)


@register
class EndIf(Command):
    action = Action.INFO
    name = "ENDIF"
    aliases = ("END IF",)
    usage = "ENDIF"
    summary = "njudge's conditional orders: the end of an IF"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        flush_bare_lines(ctx)
        return close_if(ctx)


def _power_named(game: Game, word: str) -> str:
    gmap = game_map(game)
    w = word.upper()
    for p in gmap.powers.values():
        if w in (p.name, p.initial.upper(), p.adjective.upper()):
            return p.name
    raise CommandError(f"{word!r} is not a power of {game.name}: {', '.join(gmap.power_names)}")


@register
class ResetPassword(MasterCommand):
    """The master gives a player who lost their password a new one (njudge's BECOME power
    then SET PASSWORD). The seat's address is told at once, without the password, so a
    reset the player did not ask for does not go unnoticed."""

    name = "RESET PASSWORD"
    arguments = "power newpassword"
    summary = (
        "set a new password for a power's player who lost theirs; the player is told by "
        "mail (without the password), and the master passes it on"
    )

    def act(self, ctx: Context, game: Game, args: list[str]) -> list[str]:
        seat = seats.seat_for_power(game, _power_named(game, args[0]))
        if seat.person is None:
            raise CommandError(f"nobody plays {seat.name}: there is no password to reset")
        seats.set_password(seat, args[1])
        body = render("password_reset.txt.j2", seat=seat, game=game, now=ctx.now)
        ctx.outgoing.append(mail_to_seat(seat, f"a new password for {seat.name}", body, "notice"))
        return [f"new password set for {seat.name}; its player is told by mail (without it)"]


@register
class Become(Elsewhere):
    name = "BECOME"
    usage = "BECOME power"
    nearest = "the master orders for a power with ORDERS FRANCE ... END"
    summary = f"njudge's BECOME: here, {nearest}"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = ctx.seat
        if args and args[0].upper() == "MASTER" and seat is not None and seat.role == "master":
            return [f"you are the master of {seat.game.name} already: no BECOME is needed"]
        # BECOME says who speaks for the lines after it: since it is not done, none of
        # them may run as the master (SET PASSWORD would change the master's password).
        ctx.stopped, ctx.stopped_by = True, "BECOME"
        if args and args[0].upper() == "MASTER":
            raise CommandError(
                "this judge has no BECOME MASTER: a game's master is who CREATEd it; nothing "
                "after it in this mail was done"
            )
        power = args[0].upper() if args else "FRANCE"
        raise CommandError(
            f"this judge has no BECOME, so nothing after it in this mail was done: the master "
            f"orders for a power with ORDERS {power} ... END, gives its player a new password "
            f"with RESET PASSWORD {power} newpassword, and sends press as the master"
        )


@register
class Version(Elsewhere):
    name = "VERSION"
    nearest = "HELP lists the commands"
    summary = "the judge's version"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        try:
            version = metadata.version("mailjudge")
        except metadata.PackageNotFoundError:
            version = "(not installed)"
        return [f"mailjudge {version}; HELP lists the commands"]


# njudge's GET files, and what answers them here.
GET_TOPICS = {
    "INDEX": "HELP", "INFO": "HELP", "HELP": "HELP", "GENERAL": "HELP", "COMMANDS": "HELP",
    "RULES": "HELP RULES", "FLAGS": "HELP RULES",
}  # fmt: skip
GET_ELSEWHERE = {
    "DEADLINES": "a game's deadlines come from its TIMING line, which the master sets with "
    "SET TIMING; STATUS shows yours",
    "DEDICATION": "there is no dedication rating here: no dedication is kept",
    "MAP": "MAP game mails the board as a picture",
    "HISTORY": "HISTORY game gives every phase's results",
}


@register
class Get(Command):
    action = Action.INFO
    name = "GET"
    usage = "GET topic"
    summary = "njudge's GET: the same as HELP (GET RULES as HELP RULES)"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        topic = args[0].upper() if args else "INDEX"
        if topic in GET_TOPICS:
            words = GET_TOPICS[topic].split()[1:]
            return Help().run(ctx, words, block)
        if topic in GET_ELSEWHERE:
            raise CommandError(f"this judge has no GET {topic}: {GET_ELSEWHERE[topic]}")
        raise CommandError(
            f"this judge has no file {topic.lower()} to GET: HELP lists the commands, "
            "HELP command tells one, HELP RULES the rules flags"
        )


# njudge's SET forms that have no twin here, and the nearest thing to write.
SET_ELSEWHERE = {
    "DEDICATION": "there is no dedication rating here: no dedication is kept",
    "NOPRESS": "the master forbids press between players with SET RULE +NO_PRESS",
    "PRESS": "the master allows press again with SET RULE -NO_PRESS",
    "COMMENT": "LIST game shows a game's rules and players; there is no comment line",
    "NOLIST": "there is no listing to leave: LIST shows every game that is not private",
    "MODERATE": "press is never moderated here; the master reads press sent TO M",
    "NOMODERATE": "press is never moderated here",
    "GREY": "grey press is always allowed: PRESS TO F GREY",
    "NOGREY": "grey press is always allowed: PRESS TO F GREY",
    "FAKE": "there is no fake press here",
    "NOFAKE": "there is no fake press here",
    "GRACE": "the master sets the deadlines, grace included, with SET TIMING",
    "MOVES": "the master sets the deadlines with SET TIMING",
    "RETREAT": "the master sets the deadlines with SET TIMING",
    "ADJUST": "the master sets the deadlines with SET TIMING",
    "START": "START begins a forming game now (the master's)",
    "VARIANT": "a game's variant is chosen at CREATE game password VARIANT name",
}


@register
class SetOther(Command):
    """Any SET form this judge does not know (longer SET names are matched first)."""

    action = Action.INFO
    name = "SET"
    usage = "SET ..."
    summary = "the SET commands are listed by HELP"
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        what = args[0].upper() if args else ""
        name = f"SET {what}".strip()
        if what in SET_ELSEWHERE:
            raise CommandError(f"this judge has no {name}: {SET_ELSEWHERE[what]}")
        if what in OPTIONS:
            raise CommandError(f"{what} is an option: the master writes SET OPTION {what} value")
        raise CommandError(
            f"this judge has no {name}: the SET commands here are SET WAIT, SET NOWAIT, "
            "SET ABSENCE, SET NOABSENCE, SET ZONE, SET PASSWORD, SET ADDRESS, SET DRAW, "
            "SET PREFERENCE, SET STANDIN, SET RECORD and, for the master, SET DEADLINE, "
            "SET TIMING, SET RULE and SET OPTION"
        )

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

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.info import Help
from mailjudge.commands.registry import register
from mailjudge.permissions.vocabulary import Action


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


@register
class Become(Elsewhere):
    name = "BECOME"
    usage = "BECOME power"
    nearest = "the master orders for a power with ORDERS FRANCE ... END"
    summary = f"njudge's BECOME: here, {nearest}"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        seat = ctx.seat
        if args and args[0].upper() == "MASTER":
            if seat is not None and seat.role == "master":
                return [f"you are the master of {seat.game.name} already: no BECOME is needed"]
            raise CommandError("this judge has no BECOME MASTER: a game's master is who CREATEd it")
        power = args[0].upper() if args else "FRANCE"
        raise CommandError(
            f"this judge has no BECOME: the master orders for a power with ORDERS {power} "
            "... END, and sends press as the master"
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
        raise CommandError(
            f"this judge has no {name}: the SET commands here are SET WAIT, SET NOWAIT, "
            "SET ABSENCE, SET NOABSENCE, SET ZONE, SET PASSWORD, SET ADDRESS, SET DRAW, "
            "SET PREFERENCE and, for the master, SET DEADLINE, SET TIMING and SET RULE"
        )

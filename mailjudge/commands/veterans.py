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
from mailjudge.commands.veteran_lines import close_if, else_branch, else_if
from mailjudge.game.options import OPTIONS
from mailjudge.game.state import game_map
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import mail_to_seat
from mailjudge.service import seats
from mailjudge.store.models import Game


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
_elsewhere(
    "PROMOTE",
    "a game has one master, who created it; there are no co-masters, "
    "and an observer takes a vacant power with TAKEOVER power@game password",
)
_elsewhere("INFO PLAYER", "there is no register of players: RECORD shows your own record of "
           "deadlines kept, and SET RECORD PUBLIC shows it on the web's /players")  # fmt: skip
_elsewhere("WHOGAME", "LIST game shows who holds each power (played, vacant or a dummy)")
_elsewhere("INFO", "LIST game shows a game's rules and players; HELP lists the commands")
_elsewhere("WATCH", "OBSERVE name@game password follows a game's results")
_elsewhere("FORCE", "START begins a forming game now, PROCESS! processes the phase now "
           "(both the master's)")  # fmt: skip


@register
class PostalPress(Elsewhere):
    """njudge's postal press (sent with the next results): its lines are never orders."""

    name = "POSTAL PRESS"
    aliases = ("POSTALPRESS",)
    usage = "POSTAL PRESS ... ENDPRESS"
    block_end = "ENDPRESS"
    nearest = "press goes at once with PRESS TO power ... ENDPRESS; nothing was sent"
    summary = f"njudge's POSTAL PRESS: here, {nearest}"


@register
class SetCommentBegin(Elsewhere):
    """njudge's full comment: the rest of the mail up to SIGNOFF. Its lines are never
    orders, so they are read as its block and answered once."""

    name = "SET COMMENT BEGIN"
    usage = "SET COMMENT BEGIN ... SIGNOFF"
    block_end = "ENDPRESS"  # closes at SIGNOFF (read next), ENDPRESS or END
    nearest = "no comment is kept: LIST game shows a game's map, rules and players"
    summary = f"njudge's SET COMMENT BEGIN: here, {nearest}"


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
    usage = "ELSE [IF condition]"
    summary = (
        "njudge's conditional orders: the orders that stand if the IF above is false (ELSE "
        "IF: another condition, closed by the same ENDIF)"
    )
    listed = False

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        flush_bare_lines(ctx)
        if args and args[0].upper() == "IF":  # njudge's ELSE IF
            return else_if(ctx, " ".join(args[1:]), game_map(ctx.signed_on()[0]))
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
    usage = "VERSION"
    nearest = "HELP lists the commands"
    summary = "the judge's version"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        try:
            version = metadata.version("mailjudge")
        except metadata.PackageNotFoundError:
            version = "(not installed)"
        return [f"mailjudge {version}; HELP lists the commands"]


# njudge's GET files, and what answers them here (a HELP topic).
GET_TOPICS = {
    "INDEX": "HELP", "INFO": "HELP", "HELP": "HELP", "GENERAL": "HELP", "COMMANDS": "HELP",
    "GUIDE": "HELP", "FLIST": "HELP", "PACKAGE": "HELP", "RULES": "HELP RULES",
    "FLAGS": "HELP RULES", "HOUSE.RULES": "HELP RULES", "SYNTAX": "HELP ORDERS",
    "PRESS": "HELP PRESS", "MASTER": "HELP MASTER", "HOW2GM": "HELP MASTER",
    "ABSENCE": "HELP SET ABSENCE", "DRAWS": "HELP VOTE", "MAPS": "HELP MAPS",
}  # fmt: skip
GET_ELSEWHERE = {
    "DEADLINES": "a game's deadlines come from its TIMING line, which the master sets with "
    "SET TIMING; STATUS shows yours",
    "DEDICATION": "there is no dedication rating here: no dedication is kept",
    "MAP": "MAP game mails the board as a picture",
    "HISTORY": "HISTORY game gives every phase's results",
    "FORM": "nobody registers here: JOIN game password joins a game with the address you "
    "write from, and SIGNON power@game password signs on",
    "WHOIS": "there is no register of players, and addresses are never shown; LIST game "
    "shows who holds each power",
}


@register
class Get(Command):
    action = Action.INFO
    name = "GET"
    aliases = ("SEND", "SEND ME")
    usage = "GET topic"
    summary = "njudge's GET (and SEND): the same as HELP (GET RULES as HELP RULES)"
    listed = False

    def claims(self, words: list[str]) -> bool:
        # SEND is a word of small talk too ("send me your orders"): one file named only.
        return len(words) <= 1

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        topic = args[0].upper() if args else "INDEX"
        if topic.startswith(("INFO.", "MAP.", "RULES.")):
            topic = "RULES"  # a variant's file: its rules are the game's flags here
        if topic in GET_TOPICS:
            words = GET_TOPICS[topic].split()[1:]
            return Help().run(ctx, words, block)
        if topic in GET_ELSEWHERE:
            raise CommandError(f"this judge has no GET {topic}: {GET_ELSEWHERE[topic]}")
        raise CommandError(
            f"this judge has no file {topic.lower()} to GET: HELP lists the commands, "
            "HELP command tells one, HELP RULES the rules flags"
        )


# njudge's and DPjudge's SET forms that have no twin command here, by their words (njudge
# writes most of them also with NO in front: "SET NO DIAS", "SET NODIAS"), each with what
# to write here for it set and, where it differs, for it cleared. Longer names first.
_RULE = "the master writes SET RULE {}"
SET_FORMS: dict[str, tuple[str, str]] = {
    "NMR": (
        _RULE.format(
            "+CIVIL_DISORDER (a power without orders when the deadline and "
            "its grace have passed gets default orders, and the phase goes on)"
        ),
        _RULE.format("-CIVIL_DISORDER (the phase waits for every power's orders)"),
    ),
    "DIAS": (
        _RULE.format("-NO_DIAS (a draw includes every survivor: VOTE DRAW)"),
        _RULE.format("+NO_DIAS (a player votes for the largest draw they accept: VOTE n)"),
    ),
    "PRESS NONE": (
        _RULE.format("+NO_PRESS (press only to and from the master)"),
        _RULE.format("-NO_PRESS (press between players)"),
    ),
    "PRESS": (
        "the master forbids press between players with SET RULE +NO_PRESS and allows "
        "it again with SET RULE -NO_PRESS",
        _RULE.format("+NO_PRESS (press only to and from the master)"),
    ),
    "PARTIAL": (
        _RULE.format("-PUBLIC_PRESS (press to any players, not only broadcasts)"),
        _RULE.format("+PUBLIC_PRESS (only broadcasts and press to the master)"),
    ),
    "ANY CENTRES": (
        _RULE.format("+BUILD_ANY (builds in any owned supply centre)"),
        _RULE.format("-BUILD_ANY (builds in home centres only)"),
    ),
    "HOME CENTRES": (
        _RULE.format("-BUILD_ANY (builds in home centres only)"),
        _RULE.format("+BUILD_ANY (builds in any owned supply centre)"),
    ),
    "MANUAL START": (
        _RULE.format("+START_MASTER before the game fills (then START begins it)"),
        _RULE.format("-START_MASTER (the game starts when it is full)"),
    ),
    "AUTO START": (
        _RULE.format("-START_MASTER (the game starts when it is full)"),
        _RULE.format("+START_MASTER (the master STARTs it)"),
    ),
    "MANUAL PROCESS": (
        _RULE.format("+NO_DEADLINE (no deadlines: the master processes with PROCESS!)"),
        _RULE.format("-NO_DEADLINE (phases are processed at their deadline)"),
    ),
    "AUTO PROCESS": (
        _RULE.format("-NO_DEADLINE (phases are processed at their deadline)"),
        _RULE.format("+NO_DEADLINE (the master processes with PROCESS!)"),
    ),
    "GREY": (
        "grey press is always allowed here: each press chooses (PRESS TO F GREY, or "
        "without GREY to sign it); no rule makes press grey or white only",
        "",
    ),
    "FAKE": (
        "there is no fake press here (no press claims another sender or other "
        "readers): nothing to set",
        "",
    ),
    "PLAYERS": (
        "a player holds one power unless the master writes SET RULE "
        "+MULTIPLE_POWERS_PER_PLAYER; the game has the map's powers",
        "",
    ),
    "POWERS": (
        "a game has its map's powers: CREATE game password MAP name picks another map "
        "(HELP MAPS lists them)",
        "",
    ),
    "CENTRES": (
        "the victory count comes with the map (18 centres on the standard one): "
        "HELP MAPS shows each map's; SET RULE +HOLD_WIN asks to hold it two years",
        "",
    ),
    "MOVE": (
        "the master sets the deadlines of movement phases with SET TIMING MOVE 2D (with "
        "AT 12:00, GRACE 24H ... as wanted: HELP SET TIMING)",
        "",
    ),
    "RETREAT": (
        "the master sets the deadlines of retreat phases with SET TIMING RETREAT 1D "
        "(HELP SET TIMING)",
        "",
    ),
    "ADJUST": (
        "the master sets the deadlines of adjustment phases with SET TIMING ADJUST 1D "
        "(HELP SET TIMING)",
        "",
    ),
    "GRACE": (
        "the master sets the grace after each deadline with SET TIMING ... GRACE 24H, "
        "and this phase's deadline with SET DEADLINE",
        "",
    ),
    "START": (
        "the master keeps a phase from being processed before a time by setting its "
        "deadline with SET DEADLINE, and SET RULE +ALWAYS_WAIT waits for every "
        "deadline; START begins a forming game",
        "",
    ),
    "STRICT WAIT": ("any player may SET WAIT here, and it holds until the deadline", ""),
    "MUST ORDER": (
        "press is never held back for missing orders, lateness or the phase "
        "here; the master can forbid press between players with SET RULE "
        "+NO_PRESS",
        "",
    ),
    "PROXY": ("there are no proxy orders here: each power orders its own units", ""),
    "RESUME": ("only the master RESUMEs a paused game here", ""),
    "REVEAL": (
        "players' addresses are never shown here, during or after a game; the "
        "names shown are those players chose",
        "",
    ),
    "APPROVAL": ("players need no approval here; the master removes a player with EJECT power", ""),
    "ALLOW PLAYER": (
        "a game is closed to strangers by SET PRIVATE (off LIST and the web) "
        "and by telling only those invited; there are no allow lists",
        "",
    ),
    "DENY PLAYER": (
        "there are no deny lists: the master removes a player with EJECT power, "
        "and SET OPTION MIN_RECORD keeps out players often late",
        "",
    ),
    "COMMENT": ("there is no comment line: LIST game shows a game's map, rules and players", ""),
    "NUMBER": ("no Boardman, Miller or EP number is kept here", ""),
    "RATING": (
        "there are no ratings: SET OPTION MIN_RECORD 0.9 OVER 20 admits only players "
        "on time in nine phases of ten (RECORD shows one's own)",
        "",
    ),
    "PREFERENCE SETTING": (
        "powers are dealt at random, each player's SET PREFERENCE list "
        "counting; under SET RULE +POWER_CHOICE players name a power at "
        "JOIN",
        "",
    ),
    "DISBAND": (
        "a dislodged unit always has its retreat phase here (it retreats or "
        "disbands); there is no automatic disband",
        "",
    ),
    "CONVOY": ("fleets convoy from sea provinces only here, as the standard rules say", ""),
    "BOARD": (
        "a game starts from its map's opening position: CREATE game password MAP name "
        "picks the map",
        "",
    ),
    "SUMMER": (
        "the phases are spring and fall movements with their retreats, and winter "
        "adjustments; there is no summer phase",
        "",
    ),
    "TRANSFORM": ("units do not transform here", ""),
    "VARIANT": ("a game's variant is chosen at CREATE game password VARIANT name", ""),
    "ACCESS": (
        "anyone may JOIN a forming game; SET PRIVATE keeps it off LIST and the web site",
        "",
    ),
    "RATED": ("every game counts in its players' records (RECORD shows one's own)", ""),
    "QUIET": (
        "there is no quiet flag: takeovers and resignations are announced to the game "
        "as they happen",
        "",
    ),
    "ALL PRESS": (
        "the master gets no copies of press between players; players write to the "
        "master with PRESS TO M",
        "",
    ),
    "NORMAL PRESS": (
        "the master gets no copies of press between players; players write to "
        "the master with PRESS TO M",
        "",
    ),
    "OBSERVER": (
        "observers get no press and write only to the master; SET RULE "
        "+NO_OBSERVATIONS allows no observers at all",
        "",
    ),
    "WATCH ALL PRESS": ("an observer never sees press between players here", ""),
    "CONCESSIONS": (
        "a concession is always possible: VOTE CONCEDE power (SET CONCEDE power) "
        "concedes to the largest power",
        "",
    ),
    "MAX ABSENCE": ("an absence lasts at most 14 days here; the master cannot change that", ""),
    "LATE COUNT": ("a player's lateness is counted in their record (RECORD) in every game", ""),
    "SHOW": (
        "players' addresses are never shown here; a change of settings is told by "
        "what changed, not by who",
        "",
    ),
    "POSTAL PRESS": (
        "there is no postal press: press goes at once with PRESS TO power ... ENDPRESS",
        "",
    ),
    "BROADCAST": ("every broadcast reaches every player of the game; there is no opting out", ""),
    "SECRET": ("the number of players is always shown: LIST game names every power's player", ""),
    "MODERATED": (
        "every game here has a master, who alone sets its rules and deadlines (SET "
        "RULE, SET TIMING); there is no unmoderated game",
        "",
    ),
    "STATE": (
        "the master stops a game's clock with PAUSE, starts it again with RESUME, "
        "begins a forming game with START and ends one with DECLARE DRAW",
        "",
    ),
    "DEDICATION": (
        "there is no dedication rating here: SET OPTION MIN_RECORD 0.9 OVER 20 "
        "admits only players on time in nine phases of ten",
        "",
    ),
    "MACHIAVELLI": ("this judge has no Machiavelli rules (money, bribes, famine, plague)", ""),
    "DUALITY": ("this judge's maps have no provinces that are both land and sea", ""),
    "PORTAGE": ("armies never convoy fleets here", ""),
    "ATTACK TRANSFORM": ("units do not transform here", ""),
    "ALLIED WIN": ("a win is one power's; several win together under SET RULE +SHARED_VICTORY", ""),
    "HOME TRANSFER": ("home centres never change here", ""),
    "MAP VARIANT": ("this judge's maps have no gateways, railways or the Hong Kong rule", ""),
}

# The words of each njudge and DPjudge SET form, and the entry above it is answered by.
SET_NAMES: dict[str, str] = {
    "NMR": "NMR", "CD": "NMR", "DIAS": "DIAS",
    "PRESS NONE": "PRESS NONE", "NONE": "PRESS NONE", "PRESS": "PRESS",
    "PARTIAL": "PARTIAL", "PARTIAL PRESS": "PARTIAL",
    "ANY CENTRE": "ANY CENTRES", "ANY CENTRES": "ANY CENTRES", "ANY CENTER": "ANY CENTRES",
    "ANY CENTERS": "ANY CENTRES", "ONE CENTRE": "ANY CENTRES", "ONE CENTRES": "ANY CENTRES",
    "ONE CENTER": "ANY CENTRES", "ONE CENTERS": "ANY CENTRES",
    "HOME CENTRE": "HOME CENTRES", "HOME CENTRES": "HOME CENTRES",
    "HOME CENTER": "HOME CENTRES", "HOME CENTERS": "HOME CENTRES",
    "MANUAL START": "MANUAL START", "AUTO START": "AUTO START", "AUTOSTART": "AUTO START",
    "MANUAL PROCESS": "MANUAL PROCESS", "AUTO PROCESS": "AUTO PROCESS",
    "AUTO PROC": "AUTO PROCESS",
    "GREY": "GREY", "GRAY": "GREY", "WHITE": "GREY", "GREY/WHITE": "GREY",
    "WHITE/GREY": "GREY", "GREY PRESS": "GREY", "WHITE PRESS": "GREY",
    "FAKE": "FAKE", "FAKE BROADCAST": "FAKE", "PARTIAL FAKES": "FAKE", "PARTIAL MAY": "FAKE",
    "PLAYERS": "PLAYERS", "POWERS": "POWERS", "CENTERS": "CENTRES", "CENTRES": "CENTRES",
    "MOVE": "MOVE", "MOVES": "MOVE", "RETREAT": "RETREAT", "RETREATS": "RETREAT",
    "ADJUST": "ADJUST", "ADJUSTS": "ADJUST", "BUILD": "ADJUST", "BUILDS": "ADJUST",
    "GRACE": "GRACE", "STRICT GRACE": "GRACE", "START": "START",
    "STRICT WAIT": "STRICT WAIT", "STRICTWAIT": "STRICT WAIT",
    "MUST ORDER": "MUST ORDER", "LATE PRESS": "MUST ORDER", "MINOR PRESS": "MUST ORDER",
    "BLANK PRESS": "MUST ORDER", "TOUCH PRESS": "MUST ORDER", "GRACE PRESS": "MUST ORDER",
    "PROXY": "PROXY", "RESUME": "RESUME", "REVEAL": "REVEAL",
    "APPROVAL": "APPROVAL", "APPROVE": "APPROVAL", "APPROVED": "APPROVAL",
    "ALLOW PLAYER": "ALLOW PLAYER", "DENY PLAYER": "DENY PLAYER", "COMMENT": "COMMENT",
    "BN": "NUMBER", "BNC": "NUMBER", "MN": "NUMBER", "MNC": "NUMBER", "EP": "NUMBER",
    "EPNUM": "NUMBER", "ONTIMERAT": "RATING", "RESRAT": "RATING", "LEVEL": "RATING",
    "PRFRAND": "PREFERENCE SETTING", "PRFLIST": "PREFERENCE SETTING",
    "PRFBOTH": "PREFERENCE SETTING", "AUTO DISBAND": "DISBAND", "DISBAND": "DISBAND",
    "ANY DISBAND": "DISBAND", "NORMAL DISBAND": "DISBAND",
    "COASTAL CONVOY": "CONVOY", "COASTAL CONVOYS": "CONVOY", "STRICT CONVOY": "CONVOY",
    "BLANK BOARD": "BOARD", "EMPTY BOARD": "BOARD", "SUMMER": "SUMMER",
    "TRANSFORM": "TRANSFORM", "TRAFO": "TRANSFORM", "VARIANT": "VARIANT", "ACCESS": "ACCESS",
    "RATED": "RATED", "UNRATED": "RATED", "QUIET": "QUIET", "ALL PRESS": "ALL PRESS",
    "NORMAL PRESS": "NORMAL PRESS", "OBSERVER": "OBSERVER", "OBSERVERS": "OBSERVER",
    "WATCH ALL PRESS": "WATCH ALL PRESS", "CONCESSIONS": "CONCESSIONS",
    "CONCESSION": "CONCESSIONS", "MAX ABSENCE": "MAX ABSENCE", "MAXABSENCE": "MAX ABSENCE",
    "LATE COUNT": "LATE COUNT", "SHOW": "SHOW", "POSTAL PRESS": "POSTAL PRESS",
    "BROADCAST": "BROADCAST", "BROADCAST PRESS": "BROADCAST", "NORMAL BROADCAST": "BROADCAST",
    "SECRET": "SECRET", "MODERATE": "MODERATED", "MODERATED": "MODERATED",
    "UNMODERATE": "MODERATED", "UNMODERATED": "MODERATED", "STATE": "STATE",
    "DEDICATION": "DEDICATION", "ADJACENT": "MACHIAVELLI", "ADJACENCY": "MACHIAVELLI",
    "ASSASSINS": "MACHIAVELLI", "ASSASSINATION": "MACHIAVELLI",
    "ASSASSINATIONS": "MACHIAVELLI", "BANK": "MACHIAVELLI", "BANKERS": "MACHIAVELLI",
    "DICE": "MACHIAVELLI", "FAMINE": "MACHIAVELLI", "FORT": "MACHIAVELLI",
    "FORTRESS": "MACHIAVELLI", "GARRISON": "MACHIAVELLI", "GARRISONS": "MACHIAVELLI",
    "LOANS": "MACHIAVELLI", "MACH2": "MACHIAVELLI", "MONEY": "MACHIAVELLI",
    "PLAGUE": "MACHIAVELLI", "SPECIAL": "MACHIAVELLI", "STORM": "MACHIAVELLI",
    "STORMS": "MACHIAVELLI", "DUALITY": "DUALITY", "PORTAGE": "PORTAGE",
    "ATTACK TRANSFORM": "ATTACK TRANSFORM", "ALLIED WIN": "ALLIED WIN",
    "HOME TRANSFER": "HOME TRANSFER", "GATEWAYS": "MAP VARIANT", "RAILWAYS": "MAP VARIANT",
    "HONG KONG": "MAP VARIANT", "BCENTERS": "MAP VARIANT", "BCENTRES": "MAP VARIANT",
}  # fmt: skip


def njudge_set(words: list[str]) -> tuple[str, str] | None:
    """What to write here for njudge's or DPjudge's ``SET [NO] words``, and the words of
    the form (without its values); None when the words are not one of their SET forms."""
    upper = [w.upper() for w in words]
    cleared, lead = False, 0
    if upper[:1] in (["NO"], ["NOT"]):
        cleared, upper, lead = True, upper[1:], 1
    elif upper and upper[0].startswith("NO") and upper[0] not in SET_NAMES:
        stripped = [upper[0][2:], *upper[1:]]
        if any(" ".join(stripped[:n]) in SET_NAMES for n in (3, 2, 1)):
            cleared, upper = True, stripped
    for size in (3, 2, 1):
        name = " ".join(upper[:size])
        if len(upper) >= size and name in SET_NAMES:
            on, off = SET_FORMS[SET_NAMES[name]]
            said = " ".join(w.upper() for w in words[: lead + size])
            return (off if cleared and off else on), said
    return None


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
        if what in OPTIONS:
            raise CommandError(f"{what} is an option: the master writes SET OPTION {what} value")
        nearest = njudge_set(args)
        if nearest is not None:
            answer, said = nearest
            raise CommandError(f"this judge has no SET {said}: {answer}")
        raise CommandError(
            f"this judge has no SET {what}: the SET commands here are SET WAIT, SET NOWAIT, "
            "SET ABSENCE, SET NOABSENCE, SET ZONE, SET PASSWORD, SET ADDRESS, SET DRAW, "
            "SET CONCEDE, SET PREFERENCE, SET STANDIN, SET RECORD and, for the master, SET "
            "DEADLINE, SET TIMING, SET RULE, SET OPTION, SET PRIVATE and SET PUBLIC "
            "(HELP SET lists them)"
        )

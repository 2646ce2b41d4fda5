"""Taking part in a game: JOIN and its CONFIRM, OBSERVE and STOP, TAKEOVER and RESIGN,
and the welcome a new seat gets."""

from __future__ import annotations

from mailjudge.commands.account import is_game, resolve_signon, spend_password_hash, split_at
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.records import judged_by_record
from mailjudge.commands.registry import register
from mailjudge.config.settings import current_settings
from mailjudge.game import confirmations, guard, openings, state
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.errors import ServiceError
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines
from mailjudge.render.outgoing import Outgoing, mail_to_seat, seat_country
from mailjudge.secrecy.passwords import verify_password
from mailjudge.service import openings as opening_mail
from mailjudge.service import seats, tournaments
from mailjudge.service.ready_block import ready_lines
from mailjudge.store.models import Game, GameState, Seat
from mailjudge.variants import questions, variant_of
from mailjudge.variants.events import JoinedLate, Resigned


@register
class Join(Command):
    action = Action.JOIN
    name = "JOIN"
    arguments = "game password [power] [AS name]"
    summary = (
        "join a forming game (name a power only under POWER_CHOICE); from an address new"
        " to the judge, done once it answers the CONFIRM token the judge sends it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.JOIN)
        spend_password_hash(ctx)
        args = list(args)
        if "@" in args[0]:  # DPjudge: JOIN power@game password
            named, game_name = split_at(args[0])
            args = [game_name, args[1], named.upper(), *args[2:]]
        # Locked from here (state.lock_game): whether the game is under way is read once
        # for all, and concurrent JOINs take their turns.
        game = state.get_game(args[0], lock=True)
        judged_by_record(ctx, game)  # MIN_RECORD: the answer goes to the From only
        rest = args[2:]
        name = None
        if len(rest) >= 2 and rest[-2].upper() == "AS":
            name, rest = rest[-1], rest[:-2]
        if len(rest) > 1:
            raise CommandError("write JOIN game password [power] [AS name]")
        started: list[Outgoing] = []
        proven = guard.is_proven(ctx.sender)
        power = rest[0] if rest else None
        waiting = None if proven else seats.ask_to_join(game, ctx.sender, args[1], power, name)
        if waiting is not None:
            # A player's seat is mail to its address for the whole game: only an address
            # that answered the judge gets one (issue 52: forged JOINs, then 39 PROCESS!,
            # sent 312 mails to seven strangers). The token goes to the From only.
            ctx.token_for_sender = True
            hours = current_settings().security.confirm_hours
            return [
                f"to join {game.name}{f' as {power.upper()}' if power else ''}, answer this "
                "mail with the line",
                f"    CONFIRM {waiting}",
                f"from this address, within {hours} hours: the judge sends a game's mail only "
                "to an address that answered it. Until then you hold no seat (and no power "
                "is kept for you). If you did not ask to join, do nothing.",
            ]
        late = game.state == GameState.ACTIVE  # a newcomer to a running game (recruits)
        seat = seats.join(game, ctx.sender, args[1], power=power, name=name, started=started)
        if not variant_of(game).people.has_players and not proven:
            # A seat the variant made its own way (a Democratic citizen, on its country's
            # list) is mailed only once its address answers a token: a forged JOIN would
            # put a stranger there. Until then the seat waits; the token's kind is its role.
            seat.status = "invited"
            seat.save()
            token = confirmations.new_token(seat.role, seat, ctx.sender)
            ctx.token_for_sender = True  # the token goes to the joining address only
            return [
                f"you joined {game.name} as {seat.name} once this address confirms: answer "
                "this mail with the line",
                f"    CONFIRM {token}",
                f"from this address. Until then you are no {seat.role} and get no list mail.",
            ]
        if seat.status == "invited":  # it waited for a token, and the address is proven now
            seat.status = "active"
            seat.save()
        return welcome(ctx, seat, late, started)


def welcome(ctx: Context, seat: Seat, late: bool, started: list[Outgoing]) -> list[str]:
    """What a JOIN answers once it is done (at once, or at its CONFIRM), and the mail it
    sends: the game's start when the JOIN filled the game, a late citizen's welcome."""
    game = state.get_game(seat.game.name)
    ctx.outgoing += started
    ctx.game, ctx.seat = game, seat
    lines = [f"you joined {game.name} as {seat.name}"]
    if late:
        ctx.outgoing += welcome_late(game, seat)
        lines.append(f"the game is under way: you are a {seat.role} of {seat_country(seat)}")
    elif game.state == GameState.ACTIVE:
        announce_start(ctx, game)
        lines.append(f"the game has started: you play {seat.powers}")
    elif seat.powers:
        lines.append(f"you will play {seat.powers} when the game starts; you will be told "
                     "by mail")  # fmt: skip
    else:
        lines.append("your power is dealt when the game starts; you will be told by mail")
    return lines


def welcome_late(game: Game, seat: Seat) -> list[Outgoing]:
    """Seed 000: "this variant allows any number of citizens to play", and Setup
    Rule 2: "Add each citizen to their country's mailing list". A citizen joining a running game is
    told the game is under way, and its country's list is told once; nobody else is mailed
    (each late join used to re-send "the game has started" to every citizen)."""
    return [started_mail(game, seat), *variant_of(game).people.on(JoinedLate(game, seat))]


def started_mail(game: Game, seat: Seat) -> Outgoing:
    joined_as = (game.variant_state or {}).get("joined_as", {}).get(str(seat.id))
    body = render("game_started.txt.j2", game=game, seat=seat,
                  country=seat_country(seat), joined_as=joined_as,
                  deadline=deadline_lines(game, seat.person, "First deadline"),
                  ready=ready_lines(game, seat))  # fmt: skip
    mail = mail_to_seat(seat, "the game has started", body, "notice")
    mail.calendar = invitation_ics(game, seat, Change.NEW)  # the first deadline
    return mail


def announce_start(ctx: Context, game: Game) -> None:
    for seat in Seat.select().where(Seat.game == game):
        if seat.person is not None:
            ctx.outgoing.append(started_mail(game, seat))


@register
class Observe(Command):
    action = Action.OBSERVE
    name = "OBSERVE"
    arguments = "name@game password"
    summary = "watch a game: you receive its public results"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if "@" not in args[0] and is_game(args[0]):  # njudge: OBSERVE game password
            raise CommandError(
                f"write OBSERVE name@{args[0].lower()} password: a name you choose, @ and the "
                "game's name"
            )
        name, game_name = split_at(args[0])
        game = state.get_game(game_name)
        ctx.game, ctx.seat = game, None
        ctx.require(Action.OBSERVE)
        spend_password_hash(ctx)
        if game.rules.has("SOLITAIRE"):
            require_privacy_password(game, args[1])
        seat = seats.observe(game, ctx.sender, args[1], name)
        token = confirmations.new_token("observe", seat, ctx.sender)
        ctx.token_for_sender = True  # the token goes to the observer's address only
        return [
            f"to observe {game.name} as {seat.name}, answer this mail with the line",
            f"    CONFIRM {token}",
            "from this address. Nothing more is sent to it until then. If you did not ask "
            f"for this, do nothing; STOP {game.name} stops all mail from {game.name}.",
        ]


def require_privacy_password(game: Game, password: str) -> None:
    """Seed 001, SOLITAIRE: "A PRIVACY password will be automatically assigned, because
    these are typically private games." The judge assigned it at CREATE, apart from the
    master's (the answer to the CREATE told the master): only who knows it may OBSERVE. A
    game from before it was assigned keeps its master's password as its privacy password."""
    stored = game.privacy_hash
    if not stored:
        stored = Seat.get((Seat.game == game) & (Seat.role == "master")).password_hash or ""
    if not stored or not verify_password(password, stored):
        raise CommandError(
            f"{game.name} is a SOLITAIRE game, private: OBSERVE it with its privacy password "
            f"(the judge gave it to the master at CREATE): OBSERVE name@{game.name} "
            "privacy-password"
        )


@register
class Confirm(Command):
    action = Action.INFO
    name = "CONFIRM"
    arguments = "token"
    hint = "write CONFIRM and the token the judge sent to this address"
    summary = (
        "confirm, from the address it was sent to, a JOIN, a TOURNAMENT JOIN, an OBSERVE, a "
        "SET ADDRESS, a TAKEOVER or OPENINGS ON"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if openings.holds_token(args[0]):  # OPENINGS ON's token
            openings.confirm(args[0], ctx.sender)
            return ["this address gets a mail whenever a power needs a player (OPENINGS OFF "
                    "stops it)"]  # fmt: skip
        taken = opening_mail.confirm_takeover(args[0], ctx.sender, ctx.now)
        if taken is not None and taken.seat is not None:  # a TAKEOVER's token
            ctx.outgoing += taken.mails
            ctx.game, ctx.seat = taken.seat.game, taken.seat
            return [f"you now play {taken.seat.powers} in {taken.seat.game.name}", *taken.lines]
        player = tournaments.confirm_registration(args[0], ctx.sender)
        if player is not None:  # a TOURNAMENT JOIN waited for this address to answer
            return tournaments.registered_lines(player)
        request = confirmations.join_request(args[0], ctx.sender)
        if request is not None:  # a player's JOIN waited for this address to answer
            started: list[Outgoing] = []
            seat = seats.confirm_join(request, started)
            return welcome(ctx, seat, False, started)
        done = confirmations.confirm(args[0], ctx.sender)
        seat, game = done.seat, done.seat.game
        if done.kind == "observe":
            return [f"you observe {game.name} as {seat.name}: its results come to this address"]
        if done.kind == seat.role:  # a seat its variant's JOIN made waited for its address
            if game.state == GameState.ACTIVE:  # a late citizen: told now, and its list once
                ctx.outgoing += welcome_late(game, seat)
            return [f"you are a {seat.role} of {game.name} as {seat.name}"]
        if not done.old_address:
            return [f"mail for {seat.name} in {game.name} now comes to this address"]
        ctx.outgoing.append(Outgoing(
            to=[done.old_address], subject=f"[{game.name}] your address changed",
            body=f"Mail for {seat.name} in {game.name} now goes to {done.address}.\n",
            kind="notice", game=game.name,
        ))  # fmt: skip
        return [f"mail for {seat.name} in {game.name} now comes to this address"]


@register
class Stop(Command):
    action = Action.INFO
    name = "STOP"
    arguments = "game"
    summary = "no more mail from a game to this address's observer seats (no password)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game = state.get_game(args[0])
        stopped = confirmations.stop(game, ctx.sender)
        return [f"no more mail from {game.name} to {ctx.sender} "
                f"({', '.join(s.name for s in stopped)})"]  # fmt: skip


@register
class Takeover(Command):
    action = Action.TAKEOVER
    name = "TAKEOVER"
    arguments = "power@game password"
    summary = (
        "take a power whose player left or missed a deadline (OPENINGS lists them); from a "
        "new address, once it answers the CONFIRM token mailed to it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if "@" in args[0]:
            power, game_name = split_at(args[0])
        else:  # DPjudge: TAKEOVER Agame password, the power's initial and the game
            game_name, power = resolve_signon(ctx, args[0])
        # Locked before the power is looked at: of two TAKEOVERs at once, the second finds
        # it taken (and a player in civil disorder is replaced once).
        game = state.get_game(game_name, lock=True)
        spend_password_hash(ctx)
        judged_by_record(ctx, game)
        proven = guard.is_proven(ctx.sender)
        done = opening_mail.take_over(game, power, ctx.sender, args[1], ctx.now, proven)
        if done.seat is None:  # an address never heard from: its CONFIRM first
            ctx.token_for_sender = True  # the token goes to the taking address only
            return done.lines
        ctx.outgoing += done.mails  # the power leaves the openings; the deadline may move
        ctx.game, ctx.seat = game, done.seat
        return [f"you now play {done.seat.powers} in {game.name}", *done.lines]


def _names_own_seat(ctx: Context, seat: Seat, args: list[str]) -> bool:
    """DPjudge's RESIGN power@game password (or Pgame), written by the seat signed on with
    its own password."""
    if len(args) != 2 or seat.role == "master":
        return False
    try:
        game_name, name = resolve_signon(ctx, args[0])
    except (CommandError, ServiceError):
        return False
    if game_name != seat.game.name or name != seat.name:
        return False
    spend_password_hash(ctx)
    if not seat.password_hash or not verify_password(args[1], seat.password_hash):
        raise CommandError(f"that is not {seat.name}'s password: nothing was done (signed on, "
                           "RESIGN alone is enough)")  # fmt: skip
    return True


@register
class Resign(Command):
    action = Action.SEAT
    name = "RESIGN"
    usage = "RESIGN"
    veteran_forms = ("RESIGN power@game password",)  # DPjudge's, by the seat signed on
    summary = "leave the game (your power becomes vacant)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if args and not _names_own_seat(ctx, seat, args):
            named = args[0].split("@")[0].upper()
            raise CommandError(
                f"RESIGN takes no words: a player leaves with RESIGN alone; a master removes "
                f"a player with EJECT {named if seat.role == 'master' else 'power'}"
            )
        ctx.require(Action.SEAT)
        refused = variant_of(game).people.refusal(questions.Resign(game, seat))
        if refused:
            raise CommandError(refused)
        seats.resign(seat)
        if seat.role == "player":  # the power is open: told to who asked (OPENINGS ON)
            ctx.outgoing += opening_mail.announce(game, seat.powers, "resigned", ctx.now)
            ctx.outgoing += opening_mail.resigned(game, seat)  # and to the master
        ctx.outgoing += variant_of(game).people.on(Resigned(game, seat))  # Diplonomic rule 24
        ctx.seat = None
        return [f"you left {game.name}; {seat.powers or seat.name} is vacant"]

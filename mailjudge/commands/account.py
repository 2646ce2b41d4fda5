"""Signing on and off, creating and joining games, and a player's own settings."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.records import judged_by_record
from mailjudge.commands.registry import register
from mailjudge.engine.catalogue import playable_powers
from mailjudge.game import confirmations, guard, openings, reply_tokens, schedule, state
from mailjudge.game.bounces import clear_bounces
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.game.errors import BadSecret, NotFound, ServiceError
from mailjudge.models import Game, GameState, Seat
from mailjudge.passwords import verify_password
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines, deadline_text
from mailjudge.render.outgoing import Outgoing, mail_to_seat, seat_country
from mailjudge.service import games, seats, standin
from mailjudge.service import openings as opening_mail
from mailjudge.service.ready_block import ready_lines
from mailjudge.settings import current_settings
from mailjudge.timing import zone_of
from mailjudge.variants import variant_of


def spend_password_hash(ctx: Context) -> None:
    """A command that sets a password costs a slow hash: at most
    `security.max_password_commands` of them in one mail (the per-mail work is bounded by
    its cost, not only by its count of commands)."""
    limit = current_settings().security.max_password_commands
    ctx.password_commands += 1
    if ctx.password_commands > limit:
        raise CommandError(
            f"at most {limit} commands that set a password (CREATE, JOIN, OBSERVE, TAKEOVER, "
            "SET PASSWORD) in one mail; send the rest in another mail"
        )


def split_at(word: str) -> tuple[str, str]:
    name, sep, game = word.partition("@")
    if not sep or not name or not game:
        raise CommandError(f"write NAME@GAME, like france@mygame, not {word!r}")
    return name.lower(), game.lower()


def resolve_signon(ctx: Context, who: str) -> tuple[str, str]:
    """(game name, seat name) from ``france@game``, ``alice@game``, ``Fgame`` / ``Mgame``
    (DPjudge initials), or a bare name when the mail went to judge+GAME@ (where the
    initials work too)."""
    if who[:1] == "?" or (who[:1].upper() == "O" and _is_game(who[1:])):
        # njudge's ways in: SIGNON ?game (join a forming game), SIGNON Ogame (observe).
        game_name = who[1:].lower()
        if who[:1] == "?":
            raise CommandError(
                f"this judge has no SIGNON ?game: to join {game_name}, write JOIN {game_name} "
                "password (and a power under POWER_CHOICE); then SIGNON power@game password"
            )
        raise CommandError(
            f"this judge has no SIGNON Ogame: to watch {game_name}, write OBSERVE "
            f"name@{game_name} password (a name and password you choose)"
        )
    if "@" in who:
        name, game_name = split_at(who)
        return game_name, name
    if ctx.default_game and who[1:].lower() != ctx.default_game:
        return ctx.default_game, who.lower()
    initial, game_name = who[:1].upper(), who[1:].lower()
    if not game_name:
        raise CommandError("write SIGNON power@game password (or Fgame / Mgame)")
    if initial == "M":
        return game_name, "master"
    game = state.get_game(game_name)
    for power in state.game_map(game).powers.values():
        if power.initial.upper() == initial:
            return game_name, power.name.lower()
    raise CommandError(f"{initial} is not a power's initial in {game.name}")


def _is_game(name: str) -> bool:
    return bool(name) and Game.get_or_none(Game.name == name.lower()) is not None


def _notify_owner(ctx: Context, seat: Seat) -> None:
    """Tell the registered owner of a seat that someone tried a wrong password."""
    if seat.person is None:
        return
    body = render("bad_signon.txt.j2", seat=seat, game=seat.game, sender=ctx.sender, now=ctx.now)
    ctx.outgoing.append(mail_to_seat(seat, "a sign-on with a wrong password", body, "notice"))


@register
class Signon(Command):
    action = Action.INFO
    name = "SIGNON"
    arguments = "power@game password"
    stops_mail = True  # a mail whose SIGNON cannot be read does nothing else
    summary = "sign on to a game; also SIGNON Fgame password (initial) or Mgame (master)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game_name, name = resolve_signon(ctx, args[0])
        try:
            seat = seats.seat_for_signon(game_name, name, args[1])
        except NotFound:
            ctx.stopped = True
            raise
        game = seat.game
        if reply_tokens.is_token(args[1]) and reply_tokens.enabled():
            _token_signon(ctx, seat, args[1])
            return [f"signed on as {seat.name} in {game.name} ({game.phase}) by the token: "
                    "this mail may give only this phase's orders"]  # fmt: skip
        try:
            ctx.to_seat_only = state.check_secret(seat, args[1], ctx.sender)
        except BadSecret as err:
            ctx.stopped = True
            ctx.unanswered = not err.answered
            if err.tell_owner:
                _notify_owner(ctx, seat)
            raise
        ctx.game, ctx.seat = game, seat
        person = state.person_of(seat)
        clear_bounces(ctx.sender, *([person.email] if person is not None else []))
        where = game.state if not game.phase else f"{game.state}, {game.phase}"
        return [f"signed on as {seat.name} in {game.name} ({where})"]


def _token_signon(ctx: Context, seat: Seat, word: str) -> None:
    """SIGNON with the ready-to-send block's token in place of the password."""
    why = reply_tokens.check_token(seat, word, ctx.sender, ctx.sender_proven)
    if why is not None:
        ctx.stopped = True
        raise CommandError(f"{why}; write your password in place of the token: SIGNON "
                           f"{seat.name}@{seat.game.name} password")  # fmt: skip
    ctx.game, ctx.seat, ctx.token_signed = seat.game, seat, True


@register
class Signoff(Command):
    action = Action.INFO
    name = "SIGNOFF"
    arguments = ""
    summary = "end the mail's commands (anything after it is ignored)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.game = ctx.seat = None
        ctx.stopped = ctx.quiet = True
        return ["signed off; the rest of this mail is ignored"]


def _options(args: list[str], keys: tuple[str, ...]) -> dict[str, str]:
    """``VARIANT v RULES +A -B`` -> {"VARIANT": "v", "RULES": "+A -B"}."""
    found: dict[str, list[str]] = {}
    current = None
    for word in args:
        if word.upper() in keys:
            current = word.upper()
            found[current] = []
        elif current is None:
            raise CommandError(f"{word!r} is not expected here; options are {', '.join(keys)}")
        else:
            found[current].append(word)
    return {k: " ".join(v) for k, v in found.items()}


@register
class Create(Command):
    action = Action.CREATE
    name = "CREATE"
    usage = "CREATE game password [VARIANT v] [MAP name] [RULES +X -Y]"
    summary = "create a game; you become its master"
    secret_words = (1,)

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.CREATE)
        spend_password_hash(ctx)
        if args and args[0].startswith("?"):
            raise CommandError(
                f"this judge has no CREATE ?game: write CREATE {args[0][1:].lower()} password "
                "[VARIANT v] [MAP name] [RULES +X -Y], and you are its master"
            )
        if len(args) < 2:
            raise CommandError("write CREATE game password [VARIANT v] [MAP name] [RULES +X -Y]")
        opts = _options(args[2:], ("VARIANT", "MAP", "RULES"))
        game = games.create_game(
            args[0], ctx.sender, args[1], variant=opts.get("VARIANT", "standard").lower(),
            rules=opts.get("RULES", ""), map_name=opts.get("MAP", "standard").lower(),
        )  # fmt: skip
        ctx.game, ctx.seat = game, state.seat_named(game, "master")
        rules = game.rules or "none"
        powers = playable_powers(state.game_map(game))
        example = "FRANCE" if "FRANCE" in powers else powers[0]
        power = f" {example}" if state.has_rule(game, "POWER_CHOICE") else ""
        on_map = "" if game.map_name == "standard" else f" on the map {game.map_name}"
        return [
            f"game {game.name} created ({game.variant}{on_map}; rules: {rules}); "
            "you are its master",
            f"players join with: JOIN {game.name} password{power}",
            "(each player makes up their own password when joining: never send them yours)",
        ]


# DPjudge's CREATE is followed by lines that set the game up, one a line, until the first
# line that is something else. Those naming a feature this judge has are read as our own
# commands would be; the others are answered with the form this judge uses instead.
SETUP_WORDS = frozenset({"PRIVATE", "PUBLIC", "MAP", "TIMING", "RULE", "RULES", "VARIANT",
                         "DEADLINE", "ZONE", "PRESS", "MORPH", "DESCRIPTION"})  # fmt: skip


def is_setup_line(words: list[str]) -> bool:
    """Whether a line right after CREATE is one of DPjudge's setup lines: a setup word
    with something after it, or PRIVATE / PUBLIC alone (a bare MAP is our MAP command)."""
    key = words[0].upper()
    return key in SETUP_WORDS and (len(words) > 1 or key in ("PRIVATE", "PUBLIC"))


def create_setup(ctx: Context, game: Game, words: list[str]) -> list[str]:
    """One DPjudge setup line after CREATE (``private``, ``map standard``, ``timing move
    2d``, ``rule no_press``) applied to the game just created, or a CommandError that
    names how to say it here."""
    key, rest = words[0].upper(), words[1:]
    if key in ("PRIVATE", "PUBLIC") and not rest:
        game.private = key == "PRIVATE"
        game.save()
        if game.private:
            return ["the game is private: LIST and the web site do not show it"]
        return ["the game is public: LIST shows it"]
    if key == "PRIVATE":
        raise CommandError(
            "this judge has no password for joining a private game: write PRIVATE alone, "
            "which keeps the game off LIST and the web site; players JOIN with their own"
        )
    if key == "MAP" and len(rest) == 1:
        if rest[0].lower() != game.map_name:
            try:
                games.set_map(game, rest[0])
            except ServiceError as err:
                raise CommandError(str(err)) from None
        return [f"the map is {game.map_name}; {game.victory_count} centres win"]
    if key == "TIMING" and rest:
        try:
            timing = schedule.set_timing(game, " ".join(rest), ctx.now)
        except ServiceError as err:
            raise CommandError(str(err)) from None
        return [f"timing: {timing}"]
    if key in ("RULE", "RULES") and rest:
        change = " ".join(w if w[:1] in "+-" else f"+{w}" for w in rest).upper()
        return [f"rules now: {state.set_rules(game, change) or 'none'}"]
    forms = {
        "VARIANT": f"name the variant on the CREATE line: CREATE {game.name} password VARIANT v",
        "DEADLINE": "the master sets it once the game runs: SET DEADLINE 2026-12-01 18:00",
        "ZONE": "write TIMING AT 12:00 Europe/London (the zone goes with the time of day)",
        "PRESS": "press is set by rules: RULE NO_PRESS, RULE GREY_PRESS (HELP RULES)",
    }
    raise CommandError(
        f"this judge does not read {' '.join(words)!r} after CREATE; "
        + forms.get(key, "it reads PRIVATE, MAP name, TIMING MOVE 2D ..., RULE NAME")
    )


@register
class Join(Command):
    action = Action.JOIN
    name = "JOIN"
    arguments = "game password [power] [AS name]"
    summary = "join a forming game (name a power only under POWER_CHOICE)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.JOIN)
        spend_password_hash(ctx)
        game = state.get_game(args[0])
        judged_by_record(ctx, game)  # MIN_RECORD: the answer goes to the From only
        rest = args[2:]
        name = None
        if len(rest) >= 2 and rest[-2].upper() == "AS":
            name, rest = rest[-1], rest[:-2]
        if len(rest) > 1:
            raise CommandError("write JOIN game password [power] [AS name]")
        started: list[Outgoing] = []
        proven = guard.is_proven(ctx.sender)
        late = game.state == GameState.ACTIVE  # a citizen joining a running game
        seat = seats.join(
            game, ctx.sender, args[1], power=rest[0] if rest else None, name=name, started=started
        )
        game = state.get_game(game.name)
        if seat.role == "citizen" and not proven:
            # A citizen is on its country's list: only once its address answers a token
            # (a forged JOIN would put a stranger there). Until then the seat waits.
            seat.status = "invited"
            seat.save()
            token = confirmations.new_token("citizen", seat, ctx.sender)
            ctx.token_for_sender = True  # the token goes to the joining address only
            return [
                f"you joined {game.name} as {seat.name} once this address confirms: answer "
                "this mail with the line",
                f"    CONFIRM {token}",
                "from this address. Until then you are no citizen and get no list mail.",
            ]
        if seat.status == "invited":  # it waited for a token, and the address is proven now
            seat.status = "active"
            seat.save()
        ctx.outgoing += started
        ctx.game, ctx.seat = game, seat
        lines = [f"you joined {game.name} as {seat.name}"]
        if late:
            ctx.outgoing += welcome_late_citizen(game, seat)
            lines.append(f"the game is under way: you are a citizen of {seat_country(seat)}")
        elif game.state == GameState.ACTIVE:
            announce_start(ctx, game)
            lines.append(f"the game has started: you play {seat.powers}")
        elif seat.powers:
            lines.append(f"you will play {seat.powers} when the game starts; you will be told "
                         "by mail")  # fmt: skip
        else:
            lines.append("your power is dealt when the game starts; you will be told by mail")
        return lines


def welcome_late_citizen(game: Game, seat: Seat) -> list[Outgoing]:
    """Seed 000: "this variant allows any number of citizens to play", and Setup
    Rule 2: "Add each citizen to their country's mailing list". A citizen joining a running game is
    told the game is under way, and its country's list is told once; nobody else is mailed
    (each late join used to re-send "the game has started" to every citizen)."""
    return [started_mail(game, seat), *variant_of(game).joined_late(game, seat)]


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
    these are typically private games." Here the privacy password is the one the master
    chose at CREATE (so no mail ever carries it): only who knows it may OBSERVE."""
    master = Seat.get((Seat.game == game) & (Seat.role == "master"))
    if not master.password_hash or not verify_password(password, master.password_hash):
        raise CommandError(
            f"{game.name} is a SOLITAIRE game, private: OBSERVE it with its privacy password "
            f"(the one its master created it with): OBSERVE name@{game.name} privacy-password"
        )


@register
class Confirm(Command):
    action = Action.INFO
    name = "CONFIRM"
    arguments = "token"
    hint = "write CONFIRM and the token the judge sent to this address"
    summary = "confirm, from the address it was sent to, an OBSERVE or a SET ADDRESS"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if openings.holds_token(args[0]):  # OPENINGS ON's token
            openings.confirm(args[0], ctx.sender)
            return ["this address gets a mail whenever a power needs a player (OPENINGS OFF "
                    "stops it)"]  # fmt: skip
        done = confirmations.confirm(args[0], ctx.sender)
        seat, game = done.seat, done.seat.game
        if done.kind == "observe":
            return [f"you observe {game.name} as {seat.name}: its results come to this address"]
        if done.kind == "citizen":
            if game.state == GameState.ACTIVE:  # a late citizen: told now, and its list once
                ctx.outgoing += welcome_late_citizen(game, seat)
            return [f"you are a citizen of {game.name} as {seat.name}"]
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
    summary = "take a power nobody holds"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        power, game_name = split_at(args[0])
        game = state.get_game(game_name)
        spend_password_hash(ctx)
        judged_by_record(ctx, game)
        seat, told, lines = opening_mail.take_over(game, power, ctx.sender, args[1], ctx.now)
        ctx.outgoing += told  # the power leaves the openings; the deadline may move
        ctx.outgoing += variant_of(game).on_takeover(game, seat)  # Diplonomic rule 25
        ctx.game, ctx.seat = game, seat
        return [f"you now play {seat.powers} in {game.name}", *lines]


@register
class Resign(Command):
    action = Action.SEAT
    name = "RESIGN"
    arguments = ""
    hint = (
        "RESIGN takes no words: a player leaves with RESIGN alone; a master removes a "
        "player with EJECT power"
    )
    summary = "leave the game (your power becomes vacant)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.SEAT)
        refused = variant_of(game).resign_refused(game, seat)
        if refused:
            raise CommandError(refused)
        seats.resign(seat)
        if seat.role == "player":  # the power is open: told to who asked (OPENINGS ON)
            ctx.outgoing += opening_mail.announce(game, seat.powers, "resigned", ctx.now)
        ctx.outgoing += variant_of(game).on_resign(game, seat)  # Diplonomic rule 24
        ctx.seat = None
        return [f"you left {game.name}; {seat.powers or seat.name} is vacant"]


@register
class SetPassword(Command):
    action = Action.SEAT
    name = "SET PASSWORD"
    arguments = "newpassword"
    hint = "write SET PASSWORD newpassword (one word)"
    summary = "change your password for this game"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        spend_password_hash(ctx)
        seats.set_password(seat, args[0])
        return ["password changed"]


@register
class SetAddress(Command):
    action = Action.SEAT
    name = "SET ADDRESS"
    usage = "SET ADDRESS you@example.org"
    summary = "send this game's mail for you to another address"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        if len(args) != 1 or "@" not in args[0] or "," in args[0]:
            raise CommandError("write SET ADDRESS you@example.org (one address)")
        new = args[0].strip("<>").lower()
        token = confirmations.new_token("address", seat, new)
        body = render("confirm_address.txt.j2", game=game, seat=seat, token=token, judge=ctx.judge)
        ctx.outgoing.append(Outgoing(to=[new], subject=f"[{game.name}] confirm your address",
                                     body=body, kind="notice", game=game.name))  # fmt: skip
        old = seat.person.email if seat.person is not None else "your old address"
        return [f"a token went to {new}: mail for {seat.name} moves there once it is answered "
                f"with CONFIRM from that address; until then it keeps coming to {old}"]  # fmt: skip


@register
class SetWait(Command):
    action = Action.SEAT
    name = "SET WAIT"
    arguments = ""
    summary = "do not process before the deadline, even when all orders are in"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        seats.set_wait(seat, True)
        return ["the game waits for the deadline"]


@register
class SetNoWait(Command):
    action = Action.SEAT
    name = "SET NOWAIT"
    aliases = ("SET NO WAIT",)
    arguments = ""
    summary = "process as soon as all orders are in"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        seats.set_wait(seat, False)
        ctx.touched.add(seat.game_id)
        return ["no longer waiting for the deadline"]


@register
class SetAbsence(Command):
    action = Action.SEAT
    name = "SET ABSENCE"
    usage = "SET ABSENCE 2026-12-01 TO 2026-12-05"
    summary = "no deadline falls while you are away (at most 14 days; dates in the game's zone)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        words = [w for w in args if w.upper() != "TO"]
        if len(words) != 2:
            raise CommandError("write SET ABSENCE 2026-12-01 TO 2026-12-05")
        schedule.set_absence(seat, words[0], words[1], ctx.now)
        game = seat.game
        when = deadline_text(game, seat.person) or "none"
        return [f"absence noted from {words[0]} to {words[1]}; the deadline is {when}"]


@register
class SetNoAbsence(Command):
    action = Action.SEAT
    name = "SET NOABSENCE"
    aliases = ("SET NO ABSENCE",)
    arguments = ""
    summary = "cancel the absences you planned (a deadline already moved stays)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        cancelled = schedule.clear_absence(seat, ctx.now)
        if not cancelled:
            return ["you had no absence planned; nothing to cancel"]
        return [f"{cancelled} planned absence(s) cancelled; deadlines fall as the timing says"]


@register
class SetStandin(Command):
    action = Action.SEAT_STANDIN
    name = "SET STANDIN"
    usage = "SET STANDIN ON | OFF"
    summary = (
        "under STANDIN: while you are away (SET ABSENCE) the stand-in orders for your power"
        " and the deadline does not wait for you (HELP STANDIN)"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        word = args[0].upper() if len(args) == 1 else ""
        if word not in ("ON", "OFF"):
            raise CommandError("write SET STANDIN ON, or SET STANDIN OFF to take it back")
        return [standin.set_standin(seat, word == "ON")]


@register
class SetPreference(Command):
    action = Action.SEAT
    name = "SET PREFERENCE"
    usage = "SET PREFERENCE E,F,G"
    summary = (
        "njudge's power preference, best first (initials or names), honoured when the"
        " powers are dealt at random; SET PREFERENCE RANDOM clears it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        if not args:
            raise CommandError("write SET PREFERENCE E,F,G (power initials, best first)")
        wanted = seats.set_preference(seat, args)
        if not wanted:
            return ["no preference: your power is dealt at random"]
        return [f"your preference, best first: {', '.join(wanted)}"]


@register
class SetZone(Command):
    action = Action.SEAT
    name = "SET ZONE"
    usage = "SET ZONE Europe/Paris"
    summary = "show deadlines in your own time zone too"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        _, seat = ctx.signed_on()
        if len(args) != 1 or seat.person is None:
            raise CommandError("write SET ZONE Europe/Paris (a zone name)")
        seat.person.timezone = zone_of(args[0]).key
        seat.person.save()
        return [f"times are shown in {seat.person.timezone} too"]

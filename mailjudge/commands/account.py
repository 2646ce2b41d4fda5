"""Signing on and off, creating a game, and a seat's password and address (joining a game
is in joining.py, a seat's other settings in seat_settings.py)."""

from __future__ import annotations

from functools import cache

from mailjudge.commands import presets
from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.config.settings import current_settings
from mailjudge.engine.catalogue import playable_powers
from mailjudge.engine.maps import load_map
from mailjudge.engine.rules import catalogue
from mailjudge.game import confirmations, guard, reply_tokens, schedule, state
from mailjudge.game.bounces import clear_bounces
from mailjudge.game.errors import BadSecret, NotFound, ServiceError
from mailjudge.outbound.mailbox import writable
from mailjudge.permissions.vocabulary import Action
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.secrecy.passwords import PLACEHOLDER
from mailjudge.service import games, seats
from mailjudge.store.models import Game, Seat


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
    if who[:1] == "?" or (who[:1].upper() == "O" and is_game(who[1:])):
        # njudge's ways in: SIGNON ?game (join a forming game), SIGNON Ogame (observe).
        game_name = who[1:].lower() or "game"
        if who[:1] == "?":
            raise CommandError(
                f"this judge has no SIGNON ?game: to join {game_name}, write JOIN {game_name} "
                "password (and a power under POWER_CHOICE); then SIGNON power@game password"
                + ("; LIST shows the games forming" if game_name == "game" else "")
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
    if not is_game(game_name) and (is_game(who) or who.upper() in _power_names()):
        # "SIGNON england pw" (not Engl-and): a power, or a game, without the other half.
        where = who.lower() if is_game(who) else "game"
        seat = "power" if is_game(who) else who.lower()
        raise CommandError(
            f"write SIGNON {seat}@{where} password: the power, @ and the game's name (or "
            "the power's initial and the game's name run together, like Fgame)"
        )
    if initial == "M":
        return game_name, "master"
    game = state.get_game(game_name)
    for power in state.game_map(game).powers.values():
        if power.initial.upper() == initial:
            return game_name, power.name.lower()
    if initial.isdigit():  # DPjudge numbers the powers of a game still forming
        raise CommandError(
            f"players here sign on by their power's name or initial: SIGNON power@{game.name} "
            "password (or Fgame); a power has no number"
        )
    raise CommandError(f"{initial} is not a power's initial in {game.name}")


@cache
def _power_names() -> frozenset[str]:
    """The standard map's powers, and MASTER: the words a SIGNON without its game most
    likely names (reading every map would cost seconds)."""
    return frozenset({*load_map().power_names, "MASTER"})


def is_game(name: str) -> bool:
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
    hint = "write SIGNON power@game password (to join a forming game: JOIN game password)"
    stops_mail = True  # a mail whose SIGNON cannot be read does nothing else
    summary = "sign on to a game; also SIGNON Fgame password (initial) or Mgame (master)"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        if args[1] == PLACEHOLDER:  # the ready-to-send block sent back as the judge wrote it
            ctx.stopped = True  # no guess at anyone's password: nothing is counted
            raise CommandError(
                f"{PLACEHOLDER} stands for your password: write your own password in its "
                f"place (SIGNON {args[0]} yourpassword) and send the lines again; nothing "
                "after this line was done"
            )
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
    followers = ("PRIVATE password",)  # DPjudge's setup line: the game's privacy password

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
        rest = presets.expand(list(args[2:]))
        if rest and rest[0].upper() not in ("VARIANT", "MAP", "RULES"):
            rest.insert(0, "VARIANT")  # DPjudge: CREATE game password variant
        opts = _options(rest, ("VARIANT", "MAP", "RULES"))
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
        lines = [
            f"game {game.name} created ({game.variant}{on_map}; rules: {rules}); "
            "you are its master",
            f"players join with: JOIN {game.name} password{power}",
            "(each player makes up their own password when joining: never send them yours)",
        ]
        if game.rules.has("SOLITAIRE"):
            # Sent once, to the From address only: a password of the judge's making, not
            # one the master chose (seed 001: "automatically assigned").
            ctx.token_for_sender = True
            privacy = games.assign_privacy(game)
            lines[1:] = [
                f"a SOLITAIRE game is private: its privacy password is {privacy}",
                f"give it to whoever may watch: they write OBSERVE name@{game.name} and this "
                "password. It is not your master's password, and the judge sends it only "
                "this once.",
            ]
        return lines


# DPjudge's CREATE is followed by lines that set the game up, one a line, until the first
# line that is something else. Those naming a feature this judge has are read as our own
# commands would be; the others are answered with the form this judge uses instead.
SETUP_WORDS = frozenset({"PRIVATE", "PUBLIC", "MAP", "TIMING", "RULE", "RULES", "VARIANT",
                         "DEADLINE", "ZONE", "PRESS", "MORPH", "DESCRIPTION", "DESC", "FORM",
                         "ALLOW", "DENY", "UNLISTED", "LISTED"})  # fmt: skip
_SETUP_ALONE = frozenset({"PRIVATE", "PUBLIC", "FORM", "UNLISTED", "LISTED"})


def is_setup_line(words: list[str]) -> bool:
    """Whether a line right after CREATE is one of DPjudge's setup lines: a setup word
    with something after it, or PRIVATE, PUBLIC or FORM alone (a bare MAP is our MAP
    command)."""
    key = words[0].upper()
    return key in SETUP_WORDS and (len(words) > 1 or key in _SETUP_ALONE)


def create_setup(ctx: Context, game: Game, words: list[str]) -> list[str]:
    """One DPjudge setup line after CREATE (``private``, ``map standard``, ``timing move
    2d``, ``rule no_press``) applied to the game just created, or a CommandError that
    names how to say it here."""
    key, rest = words[0].upper(), words[1:]
    key = {"UNLISTED": "PRIVATE", "LISTED": "PUBLIC"}.get(key, key)
    if key == "FORM" and not rest:
        return [f"{game.name} is forming: players JOIN it now (it starts when it is full)"]
    if key in ("DESC", "DESCRIPTION"):
        raise CommandError(
            "no description is kept here: LIST game shows a game's map, rules and players"
        )
    if key in ("PRIVATE", "PUBLIC") and not rest:
        game.private = key == "PRIVATE"
        game.save()
        if game.private:
            return ["the game is private: LIST and the web site do not show it"]
        return ["the game is public: LIST shows it"]
    if key == "PRIVATE":
        game.private = True
        game.save()
        return ["the game is private: LIST and the web site do not show it; this judge asks "
                "no password for joining, so keep the privacy password to yourself: players "
                "told the game's name JOIN with their own"]  # fmt: skip
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
        return _setup_rules(game, rest)
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


def _setup_rules(game: Game, names: list[str]) -> list[str]:
    """DPjudge's ``rule no_press coastal_convoy``: the rules this judge has are set, and
    those it has not are named (HELP RULES lists them); nothing is set if none is known."""
    known = set(catalogue().names)
    asked = [w.upper() if w[:1] in "+-" else f"+{w.upper()}" for w in names]
    unknown = [w[1:] for w in asked if w[1:] not in known]
    change = [w for w in asked if w[1:] in known]
    if not change:
        raise CommandError(
            f"this judge has no rule {', '.join(unknown)}: HELP RULES lists the rules here"
        )
    lines = [f"rules now: {state.set_rules(game, ' '.join(change)) or 'none'}"]
    if unknown:
        lines.append(f"not a rule here, so not set: {', '.join(unknown)} (HELP RULES lists "
                     "the rules)")  # fmt: skip
    return lines


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
        if not writable(new):
            raise CommandError(f"the judge cannot write to {new!r} (an address in ASCII only); "
                               "write SET ADDRESS you@example.org")  # fmt: skip
        token = confirmations.new_token("address", seat, new)
        old = seat.person.email if seat.person is not None else "your old address"
        limits = current_settings().security
        if seat.person is not None and guard.guessed_at(seat, ctx.now) >= limits.signon_slow_after:
            # The seat is under guessing: the password that signed this mail on may be a
            # guesser's, so the token goes to the seat's address, never to the new one.
            body = render("confirm_address.txt.j2", game=game, seat=seat, token=token,
                          judge=ctx.judge, new=new)  # fmt: skip
            ctx.outgoing.append(mail_to_seat(seat, "confirm your new address", body, "notice"))
            return [f"{seat.name} has had wrong passwords this hour, so the token went to its "
                    f"own address ({old}), not to {new}: send CONFIRM and the token from {new} "
                    "to move the mail there"]  # fmt: skip
        body = render(
            "confirm_address.txt.j2", game=game, seat=seat, token=token, judge=ctx.judge, new=""
        )
        ctx.outgoing.append(Outgoing(to=[new], subject=f"[{game.name}] confirm your address",
                                     body=body, kind="notice", game=game.name))  # fmt: skip
        return [f"a token went to {new}: mail for {seat.name} moves there once it is answered "
                f"with CONFIRM from that address; until then it keeps coming to {old}"]  # fmt: skip

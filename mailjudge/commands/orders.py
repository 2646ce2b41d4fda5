"""ORDERS, bare order lines, CLEAR and STATUS."""

from __future__ import annotations

from mailjudge.commands.base import JUDGE_ERRORS, Answer, Block, Command, CommandError, Context
from mailjudge.commands.order_warnings import warning_lines
from mailjudge.commands.registry import register
from mailjudge.commands.veteran_lines import (
    conditional_text,
    lines_by_named_power,
    open_if,
    order_block_lines,
    prepare_bare_lines,
)
from mailjudge.engine.maps import GameMap, load_map
from mailjudge.engine.orders import OrderError
from mailjudge.engine.reader import looks_like_order, read_order, sounds_like_prose
from mailjudge.engine.readings import Readings
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, Phase
from mailjudge.game import delivery, state
from mailjudge.game.errors import NotAllowed
from mailjudge.game.state import game_map, has_rule
from mailjudge.permissions.vocabulary import Action
from mailjudge.render.deadline import deadline_text
from mailjudge.service import conditional, multiseat, seat_phases, standin
from mailjudge.service import orders as service_orders
from mailjudge.store.models import Game, OrderLine, Seat
from mailjudge.variants import questions, variant_of


def describe(report: service_orders.Submission, phase: str | None) -> list[str]:
    lines = [f"orders for {report.power} in {phase}:"]
    lines += [f"    {text}" for text in report.accepted] or ["    (none)"]
    for text, reason in report.errors:
        lines.append(f"  not accepted: {text}")
        lines.append(f"      {reason}")
        if text in report.kept_from_file:
            lines.append(f"      {report.kept_from_file[text]} kept: the order on file stands")
    for unit in report.several:
        lines.append(f"  {unit.upper()} has several orders: under NO_CHECK such a unit holds, "
                     "and its orders are void (send one order for it to change that)")  # fmt: skip
    if report.replaced:
        lines.append(
            "  replaced by the later ones (more than owed, or two for one province: "
            "the last given stand, as on njudge): " + ", ".join(report.replaced)
        )
    if report.missing:
        lines.append("  still without orders: " + ", ".join(report.missing))
    return lines


def submit(
    ctx: Context,
    power: str,
    texts: list[str],
    merge: bool = False,
    say_kept: bool = False,
    ready: bool = False,
) -> list[str]:
    """File ``texts`` as ``power``'s orders: the whole set, or (``merge``) laid over the
    orders on file unit by unit; ``say_kept``: the answer names the orders on file the
    texts left standing; ``ready``: they came in a ready-to-send block (its ORDERS line
    names the phase)."""
    game, seat = ctx.signed_on()
    ctx.require(Action.ORDERS)
    if not game.phase:  # a forming game (the master may order; there is no board yet)
        raise CommandError(f"{game.name} has not started: orders are for a running game")
    carried: list[str] = []  # orders on file the mail did not name: they keep their sender
    on_file = None
    # Each line is read once, here or before (bare lines), and every step takes that.
    read = ctx.readings_for(game_map(game), state.current_position(game).phase.type)
    if merge:
        on_file = service_orders.power_orders_on_file(game, power)
        texts, carried = service_orders.merged_with_file(game, seat, power, texts, on_file, read)
    asked = questions.Orders(game, power, tuple(texts))  # Diplonomic rule 17: convoy paths
    refused = variant_of(game).people.refusal(asked)
    if refused:
        raise CommandError(refused)
    report = service_orders.submit_orders(game, seat, power, texts, carried, on_file, read, ctx.now)
    ctx.orders_given = True
    lever = seat_phases.TOKEN if ctx.token_signed else seat_phases.READY if ready else None
    if lever is not None:  # for /stats: which lever brought the orders
        seat_phases.note_lever(game, [power], lever, ctx.now)
    if not report.missing:
        ctx.touched.add(game.id)  # only a complete order set can make the game ready
    if report.errors:
        ctx.order_errors += len(report.errors)
    lines = describe(report, game.phase)
    if say_kept and carried:
        lines.append(f"  kept on file, as the block does not name their units: {', '.join(carried)}"
                     f" (CLEAR {power} before the block drops them)")  # fmt: skip
    # Warnings, never refusals: orders that do not fit together (a support of a move the
    # own unit is not making, ...) stand as filed; the player is told to check them.
    return lines + warning_lines(game, seat, power, report.accepted, "  ", read)


def split_by_power(
    game: Game, seat: Seat, texts: list[str], read: Readings | None = None
) -> dict[str, list[str]]:
    """A player holding several powers may mix their orders: each line goes to the power
    whose unit it orders. ``read``: the lines read already."""
    powers = seat.powers
    if len(powers) == 1:
        return {powers[0]: texts}
    if seat.role == "master":
        raise CommandError("say which power the orders are for: ORDERS FRANCE ... END")
    pos = state.current_position(game)
    read = Readings.of(read, game_map(game), pos.phase.type)
    table: dict[str, list[str]] = {p: [] for p in powers}
    for text in texts:
        owner = None
        try:
            syntax = read.syntax(text)
            if syntax.loc is not None:
                prov = syntax.loc[0]
                unit = pos.units.get(prov) or (
                    pos.dislodged[prov].unit if prov in pos.dislodged else None
                )
                owner = unit.power if unit else pos.sc_owners.get(prov)
        except OrderError:
            pass
        if owner not in table:
            raise CommandError(
                f"cannot tell which of your powers {text!r} is for; use ORDERS POWER ... END"
            )
        table[owner].append(text)
    return table


def _map_of(ctx: Context) -> GameMap:
    return game_map(ctx.game) if ctx.game is not None else load_map()


def _phase_type(ctx: Context) -> str:
    """The kind of phase lines are read for; movement when there is no board yet (no game
    signed on, or a game still forming, which has no position)."""
    if ctx.game is None or not ctx.game.phase or ctx.game.position is None:
        return MOVEMENT
    return state.current_position(ctx.game).phase.type


def all_orders(line: str, ctx: Context) -> bool:
    """Whether every piece of ``line`` (split at commas and semicolons) reads cleanly as
    an order of the phase the mail's game is in (of a movement phase without a game)."""
    pieces = [piece.strip() for piece in line.replace(";", ",").split(",")]
    gmap, phase_type = _map_of(ctx), _phase_type(ctx)
    for piece in pieces:
        try:
            read_order(piece, gmap, phase_type)
        except OrderError:
            return False
    return bool(pieces)


def flush_bare_lines(ctx: Context) -> None:
    """Bare lines since the last command. Those that read as orders are laid over the
    orders on file unit by unit; the rest (small talk, a signature) are left alone with a
    note, and never change the orders on file."""
    if not ctx.pending:
        return
    pending, ctx.pending = ctx.pending, []
    gmap, phase_type = _map_of(ctx), _phase_type(ctx)
    mine = list(ctx.seat.powers) if ctx.seat is not None and ctx.seat.role != "master" else []
    pending = prepare_bare_lines(ctx, pending, gmap, phase_type, mine)
    if not pending:
        return
    if ctx.future_phase is not None:
        _file_future_orders(ctx, ctx.future_phase, pending, conditional_text(ctx, gmap))
        return
    gmap, phase_type = _map_of(ctx), _phase_type(ctx)
    read = ctx.readings_for(gmap, phase_type)
    # A line that reads is an order; one that does not may still be a wrong one, if it
    # opens as orders do and is no sentence (reader.reads_as_order and is_prose).
    meant = [read.reads(t) or (looks_like_order(t, gmap) and not sounds_like_prose(t, gmap))
             for _, t in pending]  # fmt: skip
    orders = [line for line, order in zip(pending, meant, strict=True) if order]
    chatter = [text for (_, text), order in zip(pending, meant, strict=True) if not order]
    if orders:
        _file_bare_orders(ctx, orders)
    if chatter:
        echo = chatter[0] + (f" ... ({len(chatter)} lines)" if len(chatter) > 1 else "")
        # "Unchanged" only when nothing in this mail gave orders: under an ORDERS block
        # just filed it would contradict the answer above it.
        gave_orders = bool(orders) or ctx.orders_given
        note = "not orders or commands, so left alone" + (
            "; the orders on file are unchanged" if ctx.seat and not gave_orders else ""
        )
        ctx.answers.append(Answer(echo, True, [note, "(HELP lists the commands)"]))


def _file_bare_orders(ctx: Context, pending: list[tuple[int, str]]) -> None:
    echo = pending[0][1] + (f" ... ({len(pending)} lines)" if len(pending) > 1 else "")
    try:
        game, seat = ctx.signed_on()
        texts = [t for _, t in pending]
        if seat.role == "master":  # only DPjudge's [ENGLAND] F LON - NTH says whose
            by_power = lines_by_named_power(texts, game_map(game))
        else:
            by_power = split_by_power(game, seat, texts, ctx.readings)
        lines: list[str] = []
        errors_before = ctx.order_errors
        for power, texts in by_power.items():
            if texts:
                lines += submit(ctx, power, texts, merge=True)
        ctx.answers.append(Answer(echo, ctx.order_errors == errors_before, lines))
    except JUDGE_ERRORS as err:
        ctx.answers.append(Answer(echo, False, [str(err)]))


def _file_future_orders(
    ctx: Context, phase: str, pending: list[tuple[int, str]], condition: str | None = None
) -> None:
    echo = pending[0][1] + (f" ... ({len(pending)} lines)" if len(pending) > 1 else "")
    try:
        game, seat = ctx.signed_on()
        ctx.require(Action.ORDERS)
        texts = [t for _, t in pending]
        if condition is None:
            filed = service_orders.file_future_orders(game, seat, phase, texts)
        else:
            filed = conditional.file_conditional_orders(game, seat, phase, condition, texts)
    except JUDGE_ERRORS as err:
        ctx.answers.append(Answer(echo, False, [str(err)]))
        return
    name = Phase.parse(filed.phase).long_name().upper()
    lines = [f"orders for {filed.power} for {name} ({filed.phase}), sent ahead:"]
    lines += [f"    {text}" for text in filed.accepted] or ["    (none)"]
    for text, reason in filed.errors:
        lines += [f"  not accepted: {text}", f"      {reason}"]
    lines.append(
        "  they are on file when that phase begins (checked against the board then), "
        "unless you send others in it"
    )
    if condition is not None:
        lines.append(f"  the lines under IF stand only if, when it begins, {condition}")
    ctx.order_errors += len(filed.errors)
    ctx.answers.append(Answer(echo, not filed.errors, lines))


@register
class PhaseAhead(Command):
    action = Action.ORDERS
    name = "PHASE"
    usage = "PHASE Fall 1901 Movement (then orders, one a line)"
    summary = (
        "njudge's orders for a later phase: the order lines after it are kept for that"
        " phase and are on file when it begins, unless you send others then"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, _ = ctx.signed_on()
        ctx.require(Action.ORDERS)
        # A refused PHASE line holds back the orders after it: they were not meant for now.
        ctx.held_back = "the PHASE line above was refused, and these orders were meant for it"
        if not args:
            raise CommandError("write PHASE Fall 1901 Movement (or PHASE F1901M), then orders")
        try:
            target = Phase.from_words(" ".join(args))
        except ValueError as err:
            raise CommandError(str(err)) from None
        ctx.held_back = None
        if str(target) == game.phase:
            ctx.future_phase = None
            return [f"{target} is the phase now: the orders below are for it"]
        ctx.future_phase = str(target)
        return [f"the order lines below are for {target.long_name().upper()} ({target})"]


@register
class Orders(Command):
    action = Action.ORDERS
    name = "ORDERS"
    usage = "ORDERS [power] [phase] ... END"
    summary = (
        "your orders for this phase, one a line; each replaces the order on file of the unit"
        " it names (the others stand: CLEAR first to drop them). A phase (S1901M), as the"
        " ready-to-send block names it, must be the phase now"
    )
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        named = len(args)
        args = _without_phase(game, args)
        ready = len(args) < named  # the phase named: the ready-to-send block's ORDERS line
        texts = [line for line in block.body if line.strip()]
        mine = [args[0].upper()] if args else list(seat.powers)
        texts = order_block_lines(texts, _map_of(ctx), _phase_type(ctx), mine)
        # A block replaces the orders of the units it names: one cut short, or edited
        # down to a line, never takes away the others. In an adjustment the block is the
        # power's whole set of builds or removals.
        merge = _phase_type(ctx) != ADJUSTMENT
        if args:
            return submit(ctx, args[0].upper(), texts, merge, True, ready)
        lines: list[str] = []
        for power, mine in split_by_power(game, seat, texts).items():
            lines += submit(ctx, power, mine, merge, True, ready)
        return lines


def _without_phase(game: Game, args: list[str]) -> list[str]:
    """ORDERS's words without the phase the ready-to-send block names (ORDERS FRANCE
    S1901M), once it is checked to be the phase now: a block mailed for another phase is
    refused, never filed in this one."""
    if not args:
        return args
    try:
        named = Phase.parse(args[-1].upper())
    except ValueError:
        return args
    if not game.phase:
        raise CommandError(f"{game.name} has not started: orders are for a running game")
    if str(named) != game.phase:
        now = Phase.parse(game.phase)
        raise CommandError(
            f"this block is for {named.long_name()} ({named}), and {game.name} is now in "
            f"{now.long_name()} ({now}): nothing was filed, the orders on file stand. Send "
            "the block of the judge's newest mail (STATUS shows the orders on file)"
        )
    return args[:-1]


@register
class IfOrder(Command):
    action = Action.ORDERS
    name = "IF"
    usage = (
        "IF A PAR AND NOT F BRE ... [ELSE ...] ENDIF | IF DISLODGED A PAR R BUR"
        " | IF DISLODGED A PAR D | IF ADJUSTING BUILD A PAR"
    )
    summary = (
        "njudge's conditional orders, after a PHASE line: the order lines up to ELSE stand"
        " if the condition (unit positions like A PAR or RUSSIAN F SEV, POWER OWNS BEL,"
        " with NOT, AND, OR, parentheses) holds when that phase begins, those after ELSE if"
        " not; blocks may nest. Diplonomic rule 15 (RULE15 timing): IF DISLODGED / IF"
        " ADJUSTING, with the movement orders, the retreat you want if a unit is dislodged,"
        " or (in Fall) a build, REMOVE or WAIVE if the count changes; used at once when"
        " that phase comes"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.ORDERS)
        if not args or args[0].upper() not in ("DISLODGED", "ADJUSTING"):
            flush_bare_lines(ctx)  # the lines before the IF are not part of it
            return open_if(ctx, " ".join(args), _map_of(ctx))
        reply = variant_of(game).people.lines(questions.InAdvance(game, seat, tuple(args)))
        if reply is None:
            raise NotAllowed(
                "orders in advance (IF DISLODGED, IF ADJUSTING) are for Diplonomic games"
            )
        return reply


@register
class Clear(Command):
    action = Action.ORDERS
    name = "CLEAR"
    aliases = ("NMR", "(NMR)", "[NMR]")  # DPjudge: (NMR) left in an order box clears it
    arguments = "[power]"
    summary = "withdraw your orders for this phase"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.ORDERS)
        powers = [args[0].upper()] if args else seat.powers
        if not powers:
            raise CommandError("say which power: CLEAR FRANCE")
        before = state.orders_on_file(game)
        for power in powers:
            service_orders.clear_orders(game, seat, power)
        # njudge's CLEAR withdraws the orders sent ahead, ours this phase's: say which.
        after = state.orders_on_file(game)
        lines = []
        for power in powers:
            gone = [o.text for o in before.get(power, [])]
            gone = [t for t in gone if t not in [o.text for o in after.get(power, [])]]
            lines.append(f"orders withdrawn for {power} in {game.phase}: "
                         + (", ".join(gone) if gone else "none were on file"))  # fmt: skip
        ahead = OrderLine.select().where(
            (OrderLine.game == game) & (OrderLine.power.in_(powers))
            & (OrderLine.phase != game.phase)
        ).count()  # fmt: skip
        if ahead:
            lines.append("the orders sent ahead for later phases with PHASE stay on file")
        return lines


def _shown(game: Game, seat: Seat, lines: list[OrderLine]) -> list[OrderLine]:
    """In Double a player sees their own orders for a shared power, and the partner's
    only under DOUBLE_SHOW_PARTNER (the seed does not say partners see each other's)."""
    if not variant_of(game).people.orders_per_player or seat.role != "player":
        return lines
    if has_rule(game, "DOUBLE_SHOW_PARTNER"):
        return lines
    return [line for line in lines if line.submitted_by_id in (seat.id, None)]


@register
class Status(Command):
    action = Action.STATUS
    name = "STATUS"
    arguments = "[power]"
    summary = (
        "the orders on file for your powers, who sent each, what is missing, and warnings;"
        " what became of the judge's last mails to you"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require(Action.STATUS)
        if not game.phase:  # a forming game has no board and no orders yet
            return [f"{game.name} is {game.state}: no orders until it starts", *_signals(seat)]
        when = deadline_text(game, seat.person)
        lines = [f"{game.name} {game.phase}" + (f", deadline {when}" if when else "")]
        # A Democratic citizen's country.
        own = variant_of(game).people.lines(questions.Status(game, seat))
        if own is not None:
            return lines + own + _mail_sent(game, seat) + _signals(seat)
        pos = state.current_position(game)
        on_file = state.orders_on_file(game)
        powers = service_orders.powers_to_order(game, pos) if seat.role == "master" else seat.powers
        asked = standin.asked_for(game)  # SET STANDIN ON
        for power in powers:
            mine = _shown(game, seat, on_file.get(power, []))
            lines.append(f"{power}:")
            if power in asked:
                lines.append("    stand-in: on, it orders while the player is away")
            for line in mine:
                by = line.submitted_by.name if line.submitted_by is not None else "the judge"
                lines.append(
                    f"    {line.text:<28} (by {by}, {line.submitted_at:%Y-%m-%d %H:%M} UTC)"
                )
            if not mine:
                lines.append("    no orders")
            missing = state.missing_orders(game, pos, power, [line.text for line in mine])
            if missing:
                lines.append("    missing: " + ", ".join(missing))
            lines += warning_lines(game, seat, power, indent="    ")
            lines += _sent_ahead(game, seat, power)
        return lines + _mail_sent(game, seat) + _signals(seat)


def _signals(seat: Seat) -> list[str]:
    """The master's only: seats whose mail says they may be one person."""
    return multiseat.status_lines(seat.game) if seat.role == "master" else []


def _mail_sent(game: Game, seat: Seat) -> list[str]:
    """What became of the judge's last mails of the game to the seat's own address (never
    anyone else's): taken by the relay, deferred, bounced with the far server's words, held."""
    if seat.person is None:
        return []
    fates = delivery.recent_mail(game, seat.person.email)
    if not fates:
        return []
    lines = ["Mail the judge sent you:"]
    for fate in fates:
        lines.append(f"    {fate.queued_at:%Y-%m-%d %H:%M} UTC {fate.subject}")
        lines.append(f"        {fate.outcome}")
    return lines


def _sent_ahead(game: Game, seat: Seat, power: str) -> list[str]:
    """The orders sent ahead for later phases with PHASE, conditional ones written as their
    condition (IF A PAR AND NOT F BRE: A PAR - BUR), shown to whoever sees the orders."""
    rows = OrderLine.select().where(
        (OrderLine.game == game) & (OrderLine.power == power) & (OrderLine.phase != game.phase)
    )
    shown = sorted(_shown(game, seat, list(rows)),
                   key=lambda r: (Phase.parse(r.phase).order_key(), r.line))  # fmt: skip
    lines: list[str] = []
    phase = None
    for row in shown:
        if row.phase != phase:
            phase = row.phase
            lines.append(f"    sent ahead for {phase}:")
        lines.append(f"      {row.text}")
    return lines

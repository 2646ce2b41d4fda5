"""ORDERS, bare order lines, CLEAR and STATUS."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.engine.orders import OrderError
from mailjudge.engine.reader import read_order
from mailjudge.models import Game, OrderLine, Seat
from mailjudge.service import orders as service_orders
from mailjudge.service.games import game_map, has_rule
from mailjudge.variants import variant_of


def describe(report: service_orders.Submission, phase: str | None) -> list[str]:
    lines = [f"orders for {report.power} in {phase}:"]
    lines += [f"    {text}" for text in report.accepted] or ["    (none)"]
    for text, reason in report.errors:
        lines.append(f"  not accepted: {text}")
        lines.append(f"      {reason}")
    if report.missing:
        lines.append("  still without orders: " + ", ".join(report.missing))
    return lines


def submit(ctx: Context, power: str, texts: list[str], adding: bool = False) -> list[str]:
    game, seat = ctx.signed_on()
    ctx.require("orders")
    key = (game.id, power.upper())
    earlier = ctx.filed.get(key, []) if adding else []
    report = service_orders.submit_orders(game, seat, power, earlier + texts)
    ctx.filed[key] = report.accepted
    if not report.missing:
        ctx.touched.add(game.id)  # only a complete order set can make the game ready
    if report.errors:
        ctx.order_errors += len(report.errors)
    return describe(report, game.phase)


def split_by_power(game: Game, seat: Seat, texts: list[str]) -> dict[str, list[str]]:
    """A player holding several powers may mix their orders: each line goes to the power
    whose unit it orders."""
    powers = seat.powers.split()
    if len(powers) == 1:
        return {powers[0]: texts}
    if seat.role == "master":
        raise CommandError("say which power the orders are for: ORDERS FRANCE ... END")
    pos = service_orders.current_position(game)
    gmap = game_map(game)
    table: dict[str, list[str]] = {p: [] for p in powers}
    for text in texts:
        owner = None
        try:
            syntax = read_order(text, gmap, pos.phase.type)
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


def flush_bare_lines(ctx: Context) -> None:
    """Bare order lines since the last SIGNON become one order set (per power)."""
    if not ctx.pending:
        return
    pending, ctx.pending = ctx.pending, []
    from mailjudge.commands.base import Answer

    echo = pending[0][1] + (f" ... ({len(pending)} lines)" if len(pending) > 1 else "")
    try:
        game, seat = ctx.signed_on()
        if seat.role == "master":
            raise CommandError("order lines from the master need a power: ORDERS FRANCE ... END")
        lines: list[str] = []
        errors_before = ctx.order_errors
        for power, texts in split_by_power(game, seat, [t for _, t in pending]).items():
            if texts:
                lines += submit(ctx, power, texts, adding=True)
        if ctx.order_errors > errors_before:
            lines.append("(lines that are not orders or commands: HELP lists the commands)")
        ctx.answers.append(Answer(echo, ctx.order_errors == errors_before, lines))
    except (CommandError, ValueError) as err:
        hint = "" if ctx.seat else " (or this is not a command: HELP lists them)"
        ctx.answers.append(Answer(echo, False, [f"{err}{hint}"]))


@register
class Orders(Command):
    name = "ORDERS"
    usage = "ORDERS [power] ... END"
    summary = "your orders for this phase, one a line; they replace the orders on file"
    block_end = "END"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        texts = [line for line in block.body if line.strip()]
        if args:
            return submit(ctx, args[0].upper(), texts)
        lines: list[str] = []
        for power, mine in split_by_power(game, seat, texts).items():
            lines += submit(ctx, power, mine)
        return lines


@register
class Clear(Command):
    name = "CLEAR"
    usage = "CLEAR [power]"
    summary = "withdraw your orders for this phase"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require("orders")
        powers = [args[0].upper()] if args else seat.powers.split()
        if not powers:
            raise CommandError("say which power: CLEAR FRANCE")
        for power in powers:
            service_orders.clear_orders(game, seat, power)
        return [f"orders withdrawn for {', '.join(powers)}"]


def _shown(game: Game, seat: Seat, lines: list[OrderLine]) -> list[OrderLine]:
    """In Double a player sees their own orders for a shared power, and the partner's
    only under DOUBLE_SHOW_PARTNER (the seed does not say partners see each other's)."""
    if not variant_of(game).orders_per_player or seat.role != "player":
        return lines
    if has_rule(game, "DOUBLE_SHOW_PARTNER"):
        return lines
    return [line for line in lines if line.submitted_by_id in (seat.id, None)]


@register
class Status(Command):
    name = "STATUS"
    usage = "STATUS"
    summary = "the orders on file for your powers, who sent each, and what is missing"

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        game, seat = ctx.signed_on()
        ctx.require("status")
        pos = service_orders.current_position(game)
        on_file = service_orders.orders_on_file(game)
        powers = (
            service_orders.powers_to_order(game, pos)
            if seat.role == "master"
            else seat.powers.split()
        )
        lines = [
            f"{game.name} {game.phase}"
            + (f", deadline {game.deadline:%Y-%m-%d %H:%M} UTC" if game.deadline else "")
        ]
        for power in powers:
            mine = _shown(game, seat, on_file.get(power, []))
            lines.append(f"{power}:")
            for line in mine:
                by = line.submitted_by.name if line.submitted_by_id else "the judge"
                lines.append(
                    f"    {line.text:<28} (by {by}, {line.submitted_at:%Y-%m-%d %H:%M} UTC)"
                )
            if not mine:
                lines.append("    no orders")
            missing = service_orders.missing_orders(game, pos, power, [line.text for line in mine])
            if missing:
                lines.append("    missing: " + ", ".join(missing))
        return lines

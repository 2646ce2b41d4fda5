"""Free lines of a mail as players of njudge and DPjudge write them, before they are read
as orders: several orders on one line, DPjudge's [POWER] before an order, lines held back
after a refused PHASE or inside njudge's IF ... ENDIF, and a line that looks like a
command of another judge. The rule: a line is filed as the order it says, or answered
with an ERROR; it is never filed as something else, and "left alone" is only for prose.
"""

from __future__ import annotations

import difflib
import re

from mailjudge.commands.base import Answer, CommandError, Context
from mailjudge.commands.registry import COMMANDS
from mailjudge.engine.conditions import ConditionError, parse_condition
from mailjudge.engine.maps import GameMap
from mailjudge.engine.reader import power_alone, power_prefix, reads_as_order, split_orders
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT

NJUDGE_IF = (
    "conditional orders (njudge's IF ... ELSE ... ENDIF) are for a later phase: write "
    "PHASE Fall 1901 Movement first, then IF A PAR AND NOT F BRE, orders, ELSE, orders, "
    "ENDIF (for this phase, send the orders the board already calls for)"
)
HELD_BY_IF = "inside an IF refused above"


def conditional_text(ctx: Context, gmap: GameMap) -> str | None:
    """The condition the bare lines here stand under: the IFs open around them (an ELSE
    branch under NOT its IF), all together, in canonical form; None outside any IF."""
    if not ctx.conditions:
        return None
    parts = [f"NOT ({text})" if in_else else f"({text})" for text, in_else in ctx.conditions]
    return str(parse_condition(" AND ".join(parts), gmap))


def _hold_if_refused(ctx: Context) -> None:
    """Lines inside any refused IF are held back; outside every IF, nothing is."""
    refused = any(text is None for text, _ in ctx.conditions)
    if refused:
        ctx.held_back = HELD_BY_IF
    elif ctx.held_back == HELD_BY_IF:
        ctx.held_back = None


def open_if(ctx: Context, words: str, gmap: GameMap, chained: bool = False) -> list[str]:
    """njudge's IF line after a PHASE line: the order lines up to its ELSE stand if the
    condition holds when that phase begins. A refused IF holds back its lines to ENDIF.
    ``chained``: njudge's ELSE IF, an IF inside the ELSE that the same ENDIF closes."""
    ctx.conditions.append((None, False))
    ctx.chained_ifs.append(chained)
    _hold_if_refused(ctx)
    if ctx.held_back is not None and ctx.held_back != HELD_BY_IF:
        raise CommandError(f"not read: {ctx.held_back}")
    if ctx.future_phase is None:
        raise CommandError(NJUDGE_IF + "; none of the orders up to ENDIF were filed")
    try:
        condition = str(parse_condition(words, gmap))
    except ConditionError as err:
        raise CommandError(f"{err}; none of the orders up to ENDIF were filed") from None
    ctx.conditions[-1] = (condition, False)
    _hold_if_refused(ctx)
    return [f"the order lines below are for {ctx.future_phase} if {condition} then"]


def else_branch(ctx: Context) -> list[str]:
    """ELSE: the lines up to ENDIF stand if the IF's condition does not hold."""
    if not ctx.conditions or ctx.conditions[-1][1]:
        raise CommandError("an ELSE with no IF above it (or a second ELSE): nothing was done")
    text, _ = ctx.conditions[-1]
    ctx.conditions[-1] = (text, True)
    if text is None:
        return ["part of the refused IF above: the orders after it are not filed either"]
    return [f"the order lines below are for {ctx.future_phase} if NOT ({text}) then"]


def else_if(ctx: Context, words: str, gmap: GameMap) -> list[str]:
    """njudge's ELSE IF: the ELSE of the IF above, holding an IF of its own that the same
    ENDIF closes."""
    return [*else_branch(ctx), *open_if(ctx, words, gmap, chained=True)]


def close_if(ctx: Context) -> list[str]:
    """ENDIF: the innermost IF ends (with the IFs its ELSE IFs opened)."""
    if not ctx.conditions:
        raise CommandError("an ENDIF with no IF above it: nothing was done")
    while ctx.chained_ifs and ctx.chained_ifs.pop() and len(ctx.conditions) > 1:
        ctx.conditions.pop()
    text, _ = ctx.conditions.pop()
    _hold_if_refused(ctx)
    if text is None:
        return ["end of the refused IF above (none of its orders were filed)"]
    return [f"end of IF {text}"]


def looks_like_command(text: str) -> bool:
    """A line written as a command (all capitals, one to six words, a word first) rather
    than as prose: it gets an ERROR, never "left alone"."""
    words = text.split()
    first = words[0] if words else ""
    return (
        0 < len(words) <= 6
        and len(first) >= 3
        and first.isalpha()
        and first.isupper()
        and not any(c.islower() for c in text)
    )


_OBSERVE = (
    "write OBSERVE name@game password: an observer gets the game's results, and "
    "writes only to the master; players JOIN or TAKEOVER"
)
# Commands of njudge and DPjudge this judge does not have, known by the shape of the line
# in any case (their help says case never matters), and what to write here instead. A line
# of another shape with the same first word is read as any other line.
OTHER_JUDGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), answer)
    for pattern, answer in (
        (r"(monitor|observer|obs|invest|investor|spy)\s+\S+@\S+(\s+\S+)?", _OBSERVE),
        (
            r"purge\s+\S+(\s+\S+)?",
            "a game is never deleted here: its master ends it with "
            "DECLARE DRAW, or stops its clock with PAUSE",
        ),
        (
            r"rename\s+\S+\s+\S+(\s+\S+)?",
            "a game keeps the name it was created with: its name is fixed at CREATE",
        ),
        (
            r"reveal",
            "players' addresses are never revealed here, during or after a game, so "
            "there is nothing to REVEAL",
        ),
        (
            r"form",
            "a game is forming as soon as it is CREATEd: players JOIN it, and it starts "
            "when it is full (or when its master writes START)",
        ),
        (
            r"activate",
            "START begins a forming game now, and RESUME starts a paused game's "
            "clock again (both the master's)",
        ),
        (
            r"wait",
            "the master stops a game's clock with PAUSE (and RESUME starts it again); a "
            "player writes SET WAIT to keep the phase until its deadline",
        ),
        (
            r"infoplayer(\s+\S+)?",
            "there is no register of players: RECORD shows your own "
            "record of deadlines kept, and SET RECORD PUBLIC shows it on the web's /players",
        ),
        (
            r"iamalso(\s+\S+)?",
            "each seat belongs to one address; SET ADDRESS new@address moves "
            "your seat's mail to another one",
        ),
        (
            r"who(\s+is|\s+game)?(\s+\S+){0,2}",
            "there is no register of players, and addresses "
            "are never shown; LIST game shows who holds each power (played, vacant or a dummy)",
        ),
        (
            r"send(\s+me)?\s+\S+",
            "GET and SEND files are HELP here: HELP lists the commands, "
            "HELP command tells one, HELP RULES the rules flags",
        ),
    )
)


_PROXY = re.compile(r"^\s*(?:(?:A|F|ARMY|FLEET)\s+)?\S+\s+(?:PROXY|P)(?:\s+TO)?\s+\S+\s*$",
                    re.IGNORECASE)  # fmt: skip


def other_judges_command(text: str) -> str | None:
    """The answer to a line that is a command of njudge or DPjudge this judge does not
    have (in any case), or None."""
    line = text.strip()
    for pattern, answer in OTHER_JUDGES:
        if pattern.fullmatch(line):
            word = line.split()[0].upper()
            return f"this judge has no {word}: {answer}; nothing was done"
    return None


def unknown_command(text: str) -> str:
    """The answer to a line that looks like a command this judge does not have."""
    word = text.split()[0].upper()
    names = sorted({n.split()[0] for table in COMMANDS.values() for n in table})
    close = difflib.get_close_matches(word, names, n=2, cutoff=0.7)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"this judge has no command {word}{hint}: HELP lists the commands; nothing was done"


def written_for_another(text: str, gmap: GameMap, powers: list[str]) -> str | None:
    """DPjudge's [POWER] before an order: the refusal when it names a power the writer
    does not order for, else None."""
    named, order = power_prefix(text, gmap)
    if named is None or not powers or named in powers:
        return None
    if not any(reads_as_order(order, gmap, kind) for kind in (MOVEMENT, ADJUSTMENT)):
        return None  # "F: thanks" is small talk, not an order for France
    return (
        f"this order is written for {named} ([{named}] in front), and you order for "
        f"{', '.join(powers)}: not filed"
    )


def _power_line(ctx: Context, pending: list[tuple[int, str]], at: int, gmap: GameMap,
                phase_type: str) -> bool:  # fmt: skip
    """DPjudge's power named on a line of its own, before the orders that are its own:
    ``[ENGLAND]``, ``(FRANCE)``, ``FRANCE``. It counts only when an order line follows."""
    named = power_alone(pending[at][1], gmap)
    if named is None or at + 1 >= len(pending):
        return False
    following = pending[at + 1][1]
    _, order = power_prefix(following, gmap)
    if not reads_as_order(order, gmap, phase_type) and power_alone(following, gmap) is None:
        return False
    ctx.line_power = named
    return True


def prepare_bare_lines(
    ctx: Context, pending: list[tuple[int, str]], gmap: GameMap, phase_type: str,
    powers: list[str],
) -> list[tuple[int, str]]:  # fmt: skip
    """The bare lines to read as orders, after the refusals (answered here): lines held
    back, lines for another power, lines that look like a command. Several orders on
    one line become several lines; a power named on a line of its own stands in front of
    the lines after it; DPjudge's comment lines (``// ...``) are left out."""
    if ctx.held_back is not None:
        for _, text in pending:
            ctx.answers.append(Answer(text, False, [f"not filed: {ctx.held_back}"]))
        return []
    kept: list[tuple[int, str]] = []
    for at, (n, line) in enumerate(pending):
        if line.lstrip().startswith("//"):
            continue  # DPjudge: a line commented out is ignored
        if _power_line(ctx, pending, at, gmap, phase_type):
            continue
        other_judges = other_judges_command(line)
        if other_judges is not None:
            ctx.answers.append(Answer(line, False, [other_judges]))
            continue
        if _PROXY.search(line):  # njudge's A PAR PROXY GERMANY
            ctx.order_errors += 1
            ctx.answers.append(Answer(line, False, [
                "there are no proxy orders here: each power orders its own units (a unit "
                "without an order holds); not filed"]))  # fmt: skip
            continue
        for text in split_orders(line, gmap, phase_type):
            named, _ = power_prefix(text, gmap)
            if named is None and ctx.line_power is not None:
                text = f"[{ctx.line_power}] {text}"
            other = written_for_another(text, gmap, powers)
            if other is not None:
                ctx.order_errors += 1
                ctx.answers.append(Answer(text, False, [other]))
            elif looks_like_command(text) and not reads_as_order(text, gmap, phase_type):
                ctx.answers.append(Answer(text, False, [unknown_command(text)]))
            else:
                kept.append((n, text))
    return kept


def order_block_lines(
    texts: list[str], gmap: GameMap, phase_type: str, powers: list[str]
) -> list[str]:
    """The lines of an ORDERS block, several orders on a line cut apart; an order written
    for a power the writer does not order for refuses the block."""
    lines = [part for text in texts for part in split_orders(text, gmap, phase_type)]
    for text in lines:
        other = written_for_another(text, gmap, powers)
        if other is not None:
            raise CommandError(f"{text}: {other}; nothing was filed")
    return lines


def lines_by_named_power(texts: list[str], gmap: GameMap) -> dict[str, list[str]]:
    """The master's bare order lines, each for the power written in front of it (DPjudge's
    ``[ENGLAND] F LON - NTH``); a line without one says nothing of whose it is."""
    found: dict[str, list[str]] = {}
    for text in texts:
        named, order = power_prefix(text, gmap)
        if named is None:
            raise CommandError(
                "order lines from the master need a power: ORDERS FRANCE ... END, or "
                "[FRANCE] before each line"
            )
        found.setdefault(named, []).append(order)
    return found

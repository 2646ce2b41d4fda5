"""Running the commands of one mail, in order, into one reply."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime

from peewee import DatabaseError

from mailjudge.commands.account import create_setup, is_setup_line
from mailjudge.commands.arguments import fits
from mailjudge.commands.base import JUDGE_ERRORS, Answer, Block, CommandError, Context
from mailjudge.commands.finder import BARE, find_blocks
from mailjudge.commands.master import after_processing
from mailjudge.commands.orders import all_orders, flush_bare_lines
from mailjudge.commands.press import as_press_reply
from mailjudge.commands.registry import lookup
from mailjudge.game import state
from mailjudge.game.errors import BadSecret, ServiceError
from mailjudge.permissions.policy import check
from mailjudge.render import render
from mailjudge.secrecy.masking import mask_text
from mailjudge.service import processing
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Game

log = logging.getLogger(__name__)

# Commands after which bare order lines read so far must be on file.
_FLUSH_BEFORE = {
    "SIGNON", "SIGNOFF", "ORDERS", "CLEAR", "STATUS", "PROCESS", "PROCESS!", "PREVIEW", "PHASE",
}  # fmt: skip

# What a mail signed on by a Reply token may do: give the seat's orders for the phase.
_BY_TOKEN = {"ORDERS"}
_TOKEN_ONLY = ("not done: a mail signed on by the token may only give orders; to do this, "
               "sign on with the SIGNON line and your password")  # fmt: skip
# A token mail with anything else in it files nothing at all: a PHASE line refused there
# would leave the orders after it, meant for a later phase, filed for this one (issue 52).
_TOKEN_MAIL_REFUSED = ("not done: this mail signed on by the token holds more than orders "
                       "(see below), so none of it was filed; send the orders alone, or "
                       "sign on with your password")  # fmt: skip


def _within_limit(blocks: list[Block], limit: int) -> tuple[list[Block], Answer | None]:
    """The blocks of a mail up to `limit` commands (a run of bare order lines counts as
    one), and the answer refusing the rest: one mail cannot make the judge do unbounded
    work or send unbounded mail."""
    commands = 0
    for n, block in enumerate(blocks):
        bare = block.words[0] == BARE
        if not (bare and n and blocks[n - 1].words[0] == BARE):
            commands += 1
        if commands > limit:
            refusal = Answer(
                f"(the {len(blocks) - n} lines after command {limit})",
                False,
                [f"not done: one mail may hold at most {limit} commands; send the rest in "
                 "another mail"],
            )  # fmt: skip
            return blocks[:n], refusal
    return blocks, None


_FAREWELL = {"PRESS TO", "BROADCAST"}


def _farewell_first(blocks: list[Block]) -> list[Block]:
    """DPjudge sends the press written after a RESIGN in its mail (a parting word): it goes
    before the RESIGN, while the seat is still the writer's."""
    out: list[Block] = []
    resigns: list[int] = []  # where the RESIGNs of the run now ending stand in ``out``
    for block in blocks:
        found = lookup(list(block.words)) if block.words[0] != BARE else None
        name = found[0].name if found is not None else ""
        if name in _FAREWELL and resigns:
            out.insert(resigns[0], block)
            resigns = [n + 1 for n in resigns]
            continue
        if name == "RESIGN":
            resigns.append(len(out))
        elif name != "SIGNOFF":
            resigns = []
        out.append(block)
    return out


def run_commands(text: str, ctx: Context) -> None:
    """Each command is answered; an error never stops the rest, a failed SIGNON does."""
    blocks, limit_answer = _within_limit(_farewell_first(find_blocks(text)), ctx.max_commands)
    creating: Game | None = None  # the game a CREATE of this mail made, while set up
    for at, block in enumerate(blocks):
        if ctx.stopped:
            if not ctx.quiet:
                ctx.answers.append(
                    Answer(_echo(block), False, [f"not done: the {ctx.stopped_by} above failed"])
                )
            continue
        opening = block.words[1:] if block.words[0] == BARE else block.words
        if creating is not None and is_setup_line(list(opening)):
            ctx.answers.append(_set_up(ctx, creating, list(opening)))
            continue
        creating = None
        if block.words[0] == BARE:
            ctx.pending.append((block.line_no, " ".join(block.words[1:])))
            continue
        found = lookup(list(block.words), ctx.game.variant if ctx.game is not None else None)
        assert found is not None
        command, size = found
        ctx.command_name, ctx.command_variant = command.name, command.variant
        # The permission table is the gate: a command the actor may not do is not run.
        decision = check(ctx.actor, command.action)
        if not decision:
            ctx.answers.append(Answer(command.echo(block), False, [decision.reason]))
            continue
        if ctx.token_signed and command.name not in _BY_TOKEN:
            ctx.answers.append(Answer(command.echo(block), False, [_TOKEN_ONLY]))
            continue
        if command.name in _FLUSH_BEFORE:
            _flush(ctx)
        answer = Answer(command.echo(block), True)
        errors_before, mails_before = ctx.order_errors, len(ctx.outgoing)
        standing: BadSecret | None = None
        try:
            # Each command in its own savepoint: one that fails leaves nothing half done,
            # and the mail it meant to send is not sent. A wrong password is the exception:
            # its count and the owner's notice stand.
            with database_proxy.atomic():
                if block.unterminated and command.block_end == "END":
                    raise CommandError(f"no END closes this {command.name}; nothing was done")
                words = list(block.words[size:])
                if command.arguments is not None and not fits(command.arguments, words):
                    ctx.stopped = ctx.stopped or command.stops_mail
                    raise CommandError(command.hint or f"write {command.usage}")
                try:
                    answer.lines = command.run(ctx, list(block.words[size:]), block)
                except BadSecret as err:
                    standing = err
            if standing is not None:
                raise standing
            answer.ok = ctx.order_errors == errors_before
            if command.name == "CREATE" and ctx.game is not None:
                creating = ctx.game
            if _help_ends_mail(ctx, command.name, words, blocks[at + 1 :]):
                answer.lines.append(HELP_ENDS_MAIL)
        except JUDGE_ERRORS as err:
            # Only the judge's own refusals are answered; anything else is a bug, and the
            # mail is shunted with its traceback for the operator.
            if err is not standing:
                del ctx.outgoing[mails_before:]
            answer.ok = False
            answer.lines = [str(err)]
        ctx.answers.append(answer)
        if command.name == "SIGNON" and ctx.token_signed:
            _refuse_token_mail_with_more(ctx, blocks[at + 1 :])
    if not ctx.stopped or ctx.pending:
        _flush(ctx)
    if limit_answer is not None:
        ctx.answers.append(limit_answer)
    process_touched(ctx)


def _refuse_token_mail_with_more(ctx: Context, rest: list[Block]) -> None:
    """A mail signed on by a token files orders only when it holds nothing else: with any
    other command in it, the rest of the mail is refused, each line said why."""
    seat_variant = ctx.game.variant if ctx.game is not None else None
    others = []
    for block in rest:
        if block.words[0] == BARE:
            continue
        found = lookup(list(block.words), seat_variant)
        if found is None or found[0].name not in _BY_TOKEN:
            others.append(block)
    if not others:
        return
    ctx.stopped, ctx.stopped_by = True, "token's SIGNON"
    ctx.answers.append(Answer("(the orders of this mail)", False, [_TOKEN_MAIL_REFUSED]))
    for block in others:
        ctx.answers.append(Answer(_echo(block), False, [_TOKEN_ONLY]))
    ctx.quiet = True  # the lines are answered above, once


HELP_ENDS_MAIL = (
    "(HELP before a SIGNON ends the mail, as on njudge: nothing after it was read; send "
    "the rest without HELP)"
)


def _help_ends_mail(ctx: Context, name: str, words: list[str], rest: list[Block]) -> bool:
    """njudge's HELP before any SIGNON: the help is sent and the rest of the mail is
    ignored (its help file says so), so that a veteran's lines after it are not done by
    surprise. The rest is not read; the answer says so when it held a command (a
    signature under HELP needs no word)."""
    if name != "HELP" or words or ctx.game is not None or not rest:
        return False
    ctx.stopped = ctx.quiet = True
    return any(block.words[0] != BARE for block in rest)


def _set_up(ctx: Context, game: Game, words: list[str]) -> Answer:
    """A DPjudge setup line after CREATE, in its own savepoint like any command."""
    # DPjudge's privacy password (PRIVATE password) is not echoed.
    answer = Answer(mask_text(" ".join(words), after="CREATE"), True)
    try:
        with database_proxy.atomic():
            answer.lines = create_setup(ctx, game, words)
    except JUDGE_ERRORS as err:
        answer.ok, answer.lines = False, [str(err)]
    return answer


def _flush(ctx: Context) -> None:
    """File the bare lines read so far. Any line may arrive in a mail to any game in any
    state, so a line the judge cannot place is answered, never a traceback that leaves the
    whole mail unanswered: what went wrong is logged for the operator, the lines are undone
    (their savepoint) and the rest of the mail is still done. A failing database is not
    hidden: the mail is retried."""
    if not ctx.pending:  # nothing to file: no savepoint (a SIGNON flushes before it runs)
        return
    pending = list(ctx.pending)
    answered = len(ctx.answers)
    try:
        with database_proxy.atomic():
            flush_bare_lines(ctx)
    except DatabaseError:
        raise
    except Exception:
        if not pending:
            raise
        log.exception("bare lines of a mail from %s could not be read", ctx.sender)
        del ctx.answers[answered:]
        ctx.pending = []
        echo = pending[0][1] + (f" ... ({len(pending)} lines)" if len(pending) > 1 else "")
        ctx.answers.append(Answer(echo, False, [
            "the judge could not read these lines, so nothing was done with them (a fault "
            "of the judge, reported to its operator); HELP lists the commands"]))  # fmt: skip


def _echo(block: Block) -> str:
    if block.words[0] == BARE:
        return " ".join(block.words[1:])
    found = lookup(list(block.words))
    return found[0].echo(block) if found else " ".join(block.words)


def process_touched(ctx: Context) -> None:
    """Games whose orders changed may now be ready (all in, nobody waiting), each read
    afresh (the reply speaks of the phase the mail was read in). One mail processes one phase
    at most (issue 52): when the master's PROCESS of this mail moved one already, or one
    processed leaves the next ready at once (Diplonomic rule 15: retreats and builds given
    in advance; a game of dummies), the clock's next tick processes it."""
    for game_id in sorted(ctx.touched):
        if ctx.phase_moved is not None:
            break
        game = state.game_by_id(game_id)
        try:
            done = processing.process_if_ready(game, ctx.now, ctx.readings)
        except ServiceError:
            continue  # someone else processed it meanwhile, or it was paused
        if done is None:
            continue
        if not done.waiting:
            ctx.phase_moved = f"the processing of {done.phase}"
        note = after_processing(ctx, game, done)
        ctx.answers.append(Answer("(the judge)", True, note))
    ctx.touched.clear()


def execute(
    text: str,
    sender: str,
    judge: str,
    now: datetime,
    default_game: str | None = None,
    press_to: list[str] | None = None,
    max_commands: int = 40,
    notes: Sequence[tuple[str, str]] = (),
    sender_proven: bool = False,
    subject: str = "",
) -> Context:
    """Run a mail's commands; the context holds the answers and the other mail to send.
    ``press_to``: the mail is a Reply to press by those powers, so its text is press.
    ``notes``: what the answer must say about how the mail was read (what, why), each
    answered first as not done: a forwarded mail left unread, a Reply to grey press.
    ``sender_proven``: the MTA vouches that ``sender`` wrote it (a Reply token may work).
    ``subject``: the mail's Subject, never read, but answered when it holds orders."""
    ctx = Context(sender=sender, judge=judge, now=now, default_game=default_game,
                  max_commands=max_commands, sender_proven=sender_proven)  # fmt: skip
    ctx.answers += [Answer(what, False, [note]) for what, note in notes]
    if press_to is not None:
        try:
            text = as_press_reply(text, press_to)
        except CommandError as err:
            ctx.answers.append(Answer("(your reply to press)", False, [str(err)]))
            return ctx
    run_commands(text, ctx)
    unread = subject_unread(subject, text, ctx)
    if unread is not None:
        ctx.answers.insert(len(notes), unread)
    return ctx


# How an order line opens: a unit, or a build, removal or waive; or it holds a move's sign.
_ORDER_START = re.compile(
    r"^(?:a|f|army|fleet|build|b|remove|disband|d|waive)\b|\s(?:-|->)\s", re.IGNORECASE
)


def _looks_like_orders(line: str) -> bool:
    """A quick look before the map is read: most Subjects are no orders."""
    return _ORDER_START.search(line) is not None


def _all_orders(line: str, ctx: Context) -> bool:
    """Whether the Subject reads as orders; False when the game cannot tell (a word on a
    Subject is a courtesy that never fails a mail)."""
    try:
        return all_orders(line, ctx)
    except Exception:
        log.exception("the Subject of a mail from %s could not be read as orders", ctx.sender)
        return False


# What clients put before a Subject they answer or forward, and a game's [tag].
_SUBJECT_PREFIX = re.compile(
    r"^(?:[ \t]*(?:re|fwd?|aw|wg|tr|rv|sv|vs|antw|r)[ \t]*:|[ \t]*\[[^\]]*\])*[ \t]*",
    re.IGNORECASE,
)


def subject_unread(subject: str, text: str, ctx: Context) -> Answer | None:
    """A word on a Subject that holds orders or a command the mail's text does not: the
    judge never reads a Subject (njudge and DPjudge do not either), and without a word the
    writer thinks they were filed. A command counts only in capitals, as HELP writes it,
    and only one without a block (so "Orders" or "Press" is a Subject, not a command)."""
    line = _SUBJECT_PREFIX.sub("", subject).strip()
    if not line or " ".join(line.split()).upper() in {
        " ".join(own.split()).upper() for own in text.splitlines()
    }:
        return None
    words = line.split()
    found = lookup(words) if words[0].isupper() else None
    if found is not None and found[0].block_end is None:
        command, size = found
        if command.arguments is None or fits(command.arguments, words[size:]):
            what = "command"
        else:
            return None
    elif _looks_like_orders(line) and _all_orders(line, ctx):
        what = "orders"
    else:
        return None
    return Answer(f"(your Subject: {line})", False, [
        f"not read: the judge reads only the text of a mail, never its Subject; write the "
        f"{what} in the text"])  # fmt: skip


def reply_text(ctx: Context) -> str:
    for answer in ctx.answers:  # whatever the line was read as, a password stays hidden
        answer.echo = mask_text(answer.echo)
    errors = sum(1 for a in ctx.answers if not a.ok)
    return render("reply.txt.j2", answers=ctx.answers, errors=errors, judge=ctx.judge)

"""One handler for each kind of mail the judge answers, which app/pipeline.py picks: a
bounce of the judge's own mail, a post to a Democratic country's list, a Reply to press,
and mail of commands. Each queues what it causes and the answer (app/replies.py), and
returns one line for the log saying what came of the mail."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime

from mailjudge.app import replies
from mailjudge.app.caps import GAME_KINDS, queue_within_caps
from mailjudge.commands.base import Answer, Context
from mailjudge.commands.finder import BARE, find_blocks
from mailjudge.commands.registry import lookup
from mailjudge.commands.run import execute, reply_text
from mailjudge.config.settings import Settings
from mailjudge.game import guard
from mailjudge.game.bounces import Failure, take_bounce
from mailjudge.game.errors import BadSecret, ServiceError
from mailjudge.inbound.auth_results import sender_proven
from mailjudge.inbound.bounces import failures
from mailjudge.inbound.own_words import read_reply, reading_notes
from mailjudge.inbound.parse import ParsedMail
from mailjudge.inbound.signals import signals
from mailjudge.outbound.answered import may_reply
from mailjudge.outbound.draft import Outgoing
from mailjudge.outbound.mailbox import mailbox
from mailjudge.render import render
from mailjudge.service import multiseat
from mailjudge.store.models import Game, InboundMessage, Person
from mailjudge.variants import list_target, variant_of
from mailjudge.variants.addresses import ListThread

log = logging.getLogger(__name__)


def handle_bounce(
    row: InboundMessage, target: tuple[int, str], settings: Settings, now: datetime
) -> str:
    """A bounce to the judge's VERP address `target`: the failing seats are marked and
    their games' masters told. A bounce is never answered."""
    reported = [Failure(f.recipient, f.status, f.diagnostic) for f in failures(row.raw)]
    what, notices = take_bounce(target, reported)
    queue_within_caps(notices, settings, now)
    return what


def handle_calendar_note(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime
) -> str:
    """A calendar's answer to a deadline's invitation with a note typed into it (an
    Accept or Decline "with a note"): the note is meant for someone, and nobody reads a
    calendar's answer, so its writer is told (within their caps), never the calendar."""
    body = render("calendar_note.txt.j2", note=mail.calendar_note, judge=settings.judge.address)
    target = replies.answer_address(mail)
    if may_reply(target, settings.outbound, now) and replies.may_answer(
        mail, target, len(body), settings, now
    ):
        replies.queue_reply(mail, body, row, settings, now, target)
        return "a calendar's answer with a note: answered, the note reaches nobody"
    return "a calendar's answer with a note: not answered (its caps)"


def list_post_target(row: InboundMessage, mail: ParsedMail, judge: str) -> tuple[Game, str] | None:
    """(game, country) when the mail went to one of the judge's country lists."""
    for address in (*row.envelope_to.split(), *mail.to):
        found = list_target(address, judge)
        if found is not None:
            return found
    return None


def handle_list_post(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: Game, power: str
) -> str:
    """A post to a country's list: out to its citizens, and a short answer to the sender
    (to its Reply-To only as any answer: game.guard.is_proven), within its caps. A copy of
    the judge's own mail below the writer's text (a Reply to a list mail, in a client the
    reply reader does not know) is cut off, as from any mail. Commands in it (NOMINATE,
    VOTE: a Reply to the list's mail is an easy way to send them) are done, not posted."""
    done = f"a post to the list of {power} in {game.name}"
    text = read_reply(mail, settings.judge.address).text
    post = split_post(text)
    if post.commands:
        return _list_post_with_commands(row, mail, settings, now, game, power, post)
    outcome = _post(mail, settings, now, game, power, text)
    if outcome is None:
        return done
    ok, words = outcome
    answer = f"{'ok' if ok else 'ERROR'}: {words}\n"
    target = replies.answer_address(mail)
    if may_reply(target, settings.outbound, now) and replies.may_answer(
        mail, target, len(answer), settings, now
    ):
        replies.queue_reply(mail, answer, row, settings, now, target)
    return done


def _post(
    mail: ParsedMail, settings: Settings, now: datetime, game: Game, power: str, text: str
) -> tuple[bool, str] | None:
    """Post ``text`` (its SIGNON line first) to the list: whether it went, and the words
    that say so; None when the mail gets no answer (a wrong password beyond a few)."""
    try:
        thread = ListThread(mail.message_id, mail.in_reply_to, mail.references)
        seat, item = variant_of(game).addresses.post_to_list(
            game, power, text, mail.subject, mail.sender, thread
        )
        queue_within_caps([item], settings, now)
        words = f"your post went to the list of {power} in {game.name}."
        if seat.person is not None and seat.person.email != mail.reply_to.lower():
            words += f"\n(Posted as {seat.name}.)"
        return True, words
    except BadSecret as err:
        if not err.answered:
            return None
        return False, f"nothing was posted to the list of {power}: {err}"
    except ServiceError as err:
        return False, f"nothing was posted to the list of {power}: {err}"


@dataclass(frozen=True)
class ListPost:
    """A mail to a list, cut up: its SIGNON lines, the text to post, the commands in it
    (with their blocks) and their names."""

    signon: list[str]
    posted: list[str]
    commands: list[str]
    names: list[str]


def split_post(text: str) -> ListPost:
    """A list post's lines: a command is a line that begins with a command's name written
    in capitals as the judge's HELP writes it (with its block, up to END), so that "Vote
    for Ann!" stays the writer's words."""
    post = ListPost([], [], [], [])
    for block in find_blocks(text):
        words = list(block.words)
        if words[0] == BARE:
            post.posted.append(" ".join(words[1:]))
        elif words[0].upper() == "SIGNON":
            post.signon.append(" ".join(words))
        elif not words[0].isupper():
            post.posted.extend([" ".join(words), *block.body])
        else:
            found = lookup(words)
            ends = found is not None and found[0].block_end is not None and not block.unterminated
            post.commands.extend([" ".join(words), *block.body, *(["END"] if ends else [])])
            if found is not None and found[0].name not in post.names:
                post.names.append(found[0].name)
    return post


def _list_post_with_commands(
    row: InboundMessage,
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: Game,
    power: str,
    post: ListPost,
) -> str:
    """A mail to a list with commands in it: they are done as in a mail to the judge, the
    rest of its text (if any) goes to the list, and one answer says what came of each."""
    ctx = _run(mail, settings, now, None, None, "\n".join([*post.signon, *post.commands]), [])
    note = [f"its commands ({', '.join(post.names)}) were done, as below"]
    ok = True
    if any(line.strip() for line in post.posted):
        outcome = _post(mail, settings, now, game, power, "\n".join([*post.signon, *post.posted]))
        if outcome is not None:
            ok, words = outcome
            note.append(f"and the rest of it: {words}")
    else:
        note.append("nothing else was in it, so nothing was posted to the list")
    ctx.answers.insert(0, Answer(f"(your mail to the list of {power})", ok, note))
    return f"a mail to the list of {power} in {game.name} with commands, " + _answer_and_send(
        row, mail, settings, now, ctx
    )


def handle_press_reply(
    row: InboundMessage,
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: str,
    writers: list[str],
) -> str:
    """A Reply to press (sent to judge+GAME-press-POWERS@): its text is press back to the
    powers that wrote, its SIGNON and any commands run as in any mail."""
    ctx = _run_commands(mail, settings, now, game, writers)
    return _answer_and_send(row, mail, settings, now, ctx)


def handle_commands(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, game: str | None
) -> str:
    """A mail of commands; `game` stands in for the game's name in SIGNON when the mail
    went to judge+GAME@."""
    remember_written(mail)  # before: the mail the commands cause goes as it is written
    ctx = _run_commands(mail, settings, now, game, None)
    if ctx.seat is not None and ctx.seat.role != "master":  # the master's signals
        ctx.outgoing += multiseat.note_mail(ctx.seat, signals(bytes(row.raw), mail.sender), now)
    return _answer_and_send(row, mail, settings, now, ctx)


def _run_commands(
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: str | None,
    press_to: list[str] | None,
) -> Context:
    reading = read_reply(mail, settings.judge.address)
    notes = [*reading_notes(mail), *reading.notes]
    return _run(mail, settings, now, game, press_to, reading.text, notes)


def _run(
    mail: ParsedMail,
    settings: Settings,
    now: datetime,
    game: str | None,
    press_to: list[str] | None,
    text: str,
    notes: list[tuple[str, str]],
) -> Context:
    judge = settings.judge.address
    proven = sender_proven(mail.auth_results, settings.security.trusted_authserv_id, mail.sender)
    return execute(
        text, mail.sender or mail.reply_to, judge, now, game, press_to,
        settings.security.max_commands, notes=notes, sender_proven=proven,
        subject=mail.subject,
    )  # fmt: skip


def _answer_and_send(
    row: InboundMessage, mail: ParsedMail, settings: Settings, now: datetime, ctx: Context
) -> str:
    """The answer to a mail whose commands ran, within its caps, and the mail they caused."""
    answer_to = replies.answer_address(mail, ctx)
    remember_written(mail, ctx)
    if answer_to.lower() != (mail.sender or mail.reply_to) and ctx.seat is None:
        for answer in ctx.answers:  # a third address never reads an outsider's words
            answer.echo = answer.echo.split()[0] if answer.echo else answer.echo
    outgoing = _bounded(ctx.outgoing, settings.security.max_mails_out)
    errors = sum(1 for answer in ctx.answers if not answer.ok)
    summary = f"{len(ctx.answers)} commands, {errors} with errors, {len(outgoing)} mails out"
    body = replies.within_bytes(reply_text(ctx), settings.security.max_reply_bytes)
    if ctx.unanswered:
        summary += ", not answered: a wrong password after too many"
    elif ctx.seat is None and _repeated(mail, now, settings):
        summary += f", not answered: the same text came from {mail.sender} too often this hour"
        sender = mail.sender or mail.reply_to
        until = guard.repeats_end_at(sender, _fingerprint(mail), now)
        replies.tell_answers_held(mail, settings, now, sender, until, same=True)
    elif not may_reply(answer_to, settings.outbound, now):
        log.warning("reply to %s held back: too many replies lately", answer_to)
        replies.tell_answers_paused(mail, settings, now, answer_to)
        summary += ", answer held back (reply limit)"
    elif not replies.may_answer(mail, answer_to, len(body), settings, now, ctx):
        summary += f", answer not sent: {answer_to} has had its hour's mail"
        # Never a stranger told of another's mail: only the allowance's own address.
        if mailbox(answer_to) == mailbox(replies.own_address(mail, ctx)):
            until = guard.answers_reopen_at(answer_to, now)
            replies.tell_answers_held(mail, settings, now, answer_to, until, same=False)
    else:
        replies.queue_reply(mail, body, row, settings, now, answer_to, ctx.game, ctx.seat)
        summary += ", answered"
    return summary + _send_caused(outgoing, mail, ctx, settings, now)


def remember_written(mail: ParsedMail, ctx: Context | None = None) -> None:
    """The case the sender writes their address in (Jean.Dupont@), kept on their Person
    for the judge's mail to them: set the first time, and changed by a mail that signed on
    to one of their seats with its password (``ctx``, once the commands ran). Nothing at
    all for an address all in lower case, nearly every mail."""
    written = mail.as_written(mail.sender) if mail.sender else ""
    if written == mail.sender:
        return
    seat = ctx.seat if ctx is not None else None
    signed_on = seat is not None and seat.person is not None and seat.person.email == mail.sender
    change = Person.update(address=written).where(
        (Person.email == mail.sender) & (Person.address != written)
    )
    if not signed_on:
        change = change.where(Person.address == "")
    change.execute()


def _send_caused(
    outgoing: list[Outgoing], mail: ParsedMail, ctx: Context, settings: Settings, now: datetime
) -> str:
    """Queue the mail the commands caused, each recipient within its mailbox's hour's
    caps (app/caps.py: a phase's results too); what was held back, for the log line."""
    own = mailbox(replies.own_address(mail, ctx))
    held = queue_within_caps(outgoing, settings, now, own=lambda a: mailbox(a) == own)
    return "".join(f", a mail to {address} not sent (its hour's cap)" for address in held)


def _repeated(mail: ParsedMail, now: datetime, settings: Settings) -> bool:
    """The same text from the same address more than `same_mail_answers` times this
    hour: an auto-responder that sets no auto-reply header. It is not answered. (Asked
    only of mail that signed on to no seat: a player may send the same orders again.)"""
    return guard.repeats(mail.sender or mail.reply_to, _fingerprint(mail), now) > (
        settings.security.same_mail_answers
    )


def _fingerprint(mail: ParsedMail) -> str:
    words = " ".join(mail.text.split()).lower().encode("utf-8")
    return hashlib.sha256(words).hexdigest()[:16]


def _bounded(items: list[Outgoing], limit: int) -> list[Outgoing]:
    """At most `limit` mails caused by one mail to addresses outside the game's seats,
    besides what processing sends. A mail to a seat's own person (it has a role) is the
    game's business with someone who joined it: a Democratic START tells every citizen."""
    kept: list[Outgoing] = []
    counted = 0
    for item in items:
        if item.kind not in GAME_KINDS and not item.role:
            counted += 1
            if counted > limit:
                continue
        kept.append(item)
    if counted > limit:
        log.warning("%s mails caused by one mail were not sent (security.max_mails_out)",
                    counted - limit)  # fmt: skip
    return kept

"""The judge never reads its own words back.

A reply often carries a copy of the mail it answers: an answer (whose echo lines begin
with '>'), results, a notice, a press copy. Quoted with '>' such a copy is never read; but
Outlook, phones and forwards put it below the writer's text unquoted, and an unknown client
or language may put it there without an attribution line the reply reader knows. Then its
order lines ("A TRI H", the orders list of an answer) would be read as the writer's.

How the judge knows its own words: the outbox keeps the text of every mail it sent
(outbound.keep_sent_days). For a reply, the candidates are the mail it names
(In-Reply-To, References), or when the outbox has none of those, the last mails sent to its
writer. A mail that is no reply and does not name the judge's address is read without a
look at the outbox. A copy always begins with
the beginning of the mail copied, so the reply is cut at the first line from which its
words run on as the opening words of one of them (up to `OPENING_WORDS`; the whole text
for a shorter mail), whatever the line breaks, spacing or letter case the client gave them.
What stands above the cut (an attribution, Outlook's From:/Sent:/To:/Subject: block, a
separator line) is then taken away by the reply reader as for any reply. A copy quoted
with '>' is left to the quote rule: the writer may have answered between its lines.

Two things of the copy are read all the same, as the writer meant them (`read_reply`): a
ready-to-send block they filled in there (inbound/quoted_block.py finds it; the first that
shows their hand is read, naming the phase its block was for), and the CONFIRM line of a
mail that asked for one, when their Reply says yes. What they may have meant but the judge
cannot be sure of is left unread, and the answer says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser

from peewee import fn

from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.parse import ParsedMail, body_text, command_lines
from mailjudge.inbound.quoted_block import MASKED, TYPED, CopiedBlock, copied_blocks
from mailjudge.inbound.replies import unquoted_copy_at, without_quoted_reply
from mailjudge.outbound.draft import MailDraft
from mailjudge.outbound.message import wrapped
from mailjudge.store.models import Outbox

# How many of a sent mail's first words must follow in a reply for it to be a copy: so
# many that a writer's own lines never match by chance, few enough that a copy cut short
# by a client (or a short answer) still does.
OPENING_WORDS = 24
# When the mail answered is not in the outbox (a forward, a client that names none): the
# most recent mails to the writer looked at, among the outbox's newest rows.
RECENT_MAILS = 20
RECENT_WINDOW = 20_000
# A copy found inside a line (not at its start) must run on for so many of the mail's
# opening words: never a short answer's few words that a writer's sentence may hold.
MID_LINE_WORDS = 12

_WORD = re.compile(r"\S+")
# Lines a client puts between the writer's text and the copy, left at the end by the cut.
_CLIENT_LINE = re.compile(
    r"^[ \t]*(?:[_=\-]{8,}|-+ ?(?:Original Message|Forwarded message|Forwarded Message|"
    r"Weitergeleitete Nachricht|Message transféré|Mensaje reenviado)[^\n]*|"
    r"Begin forwarded message:)[ \t]*$",
    re.IGNORECASE,
)


def opening(text: str) -> tuple[str, ...]:
    """The first words of a mail the judge sent, up to its signature line, folded to
    lower case: what a copy of it starts with."""
    words: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.rstrip() == "--":
            break
        words += _WORD.findall(line.lower())
        if len(words) >= OPENING_WORDS:
            break
    return tuple(words[:OPENING_WORDS])


def cut_at_own_words(body: str, sent: Iterable[str]) -> str | None:
    """``body`` up to where a copy of one of the ``sent`` texts begins; None when there is
    none."""
    body = body.replace("\r\n", "\n")
    at = own_copy_at(body, sent)
    if at is None:
        return None
    return "\n".join(_without_client_lines(body[:at].rstrip(" \t").split("\n")))


def own_copy_at(body: str, sent: Iterable[str]) -> int | None:
    """Where in ``body`` (its line ends bare newlines) the first copy of one of the
    ``sent`` texts begins: at the start of a line, or, for an opening of
    `MID_LINE_WORDS` words or more, inside one (Yahoo's phone app begins the copy on its
    attribution line, after "wrote:"). None when there is none."""
    openings = {o for o in (opening(text) for text in sent) if len(o) >= 3}
    if not openings:
        return None
    lines = body.split("\n")
    words: list[str] = []
    starts: list[int] = []  # for each line, where its words begin in `words`
    for line in lines:
        starts.append(len(words))
        words += _WORD.findall(line.lower())
    by_start: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for found in openings:  # looked up by their first three words
        by_start.setdefault(found[:3], []).append(found)
    firsts = {found[0] for found in openings}  # a set probe a word, a tuple only then
    row = 0  # the line of the word at `at`
    for at, word in enumerate(words):
        if word not in firsts:
            continue
        while row + 1 < len(starts) and starts[row + 1] <= at:
            row += 1
        for found in by_start.get(tuple(words[at : at + 3]), ()):
            begins = starts[row] == at
            if not begins and len(found) < MID_LINE_WORDS:
                continue
            if tuple(words[at : at + len(found)]) == found:
                line_at = sum(len(text) + 1 for text in lines[:row])
                if begins:
                    return line_at
                inside = list(_WORD.finditer(lines[row]))[at - starts[row]]
                return line_at + inside.start()
    return None


def _without_client_lines(lines: list[str]) -> list[str]:
    """The lines above a copy without the separator or forward line at their end."""
    out = list(lines)
    while out and (not out[-1].strip() or _CLIENT_LINE.match(out[-1])):
        out.pop()
    return out


def sent_texts(raw_rows: Sequence[tuple[bytes, object]]) -> list[str]:
    """The texts of outbox rows given as (raw, draft): the plain part, and the HTML part
    as text, since a client replying to HTML copies what it showed."""
    texts: list[str] = []
    for raw, draft in raw_rows:
        if isinstance(draft, dict):
            stored = MailDraft.from_json(draft)
            texts.append(wrapped(stored.text))
            if stored.html:
                texts.append(html_to_text(stored.html))
        elif raw:
            texts += _texts_of_raw(raw)
    return texts


def _texts_of_raw(raw: bytes) -> list[str]:
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        return []
    texts = [body_text(message)]
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                texts.append(html_to_text(payload.decode(part.get_content_charset() or "utf-8",
                                                         "replace")))  # fmt: skip
            break
    return texts


def _may_hold_a_copy(mail: ParsedMail, judge: str) -> bool:
    """Only a reply (every client names the mail answered), or a mail naming the judge's
    address in its text (a forward, a header block), can hold a copy of the judge's mail:
    any other mail is read without a look at the outbox."""
    return bool(mail.in_reply_to or mail.references or judge.lower() in mail.body.lower())


def candidates(mail: ParsedMail) -> list[str]:
    """The texts of the mails the judge sent that this reply may copy: those it names,
    else the last `RECENT_MAILS` sent to its writer among the last `RECENT_WINDOW` the
    outbox holds (a bounded look, however large the outbox)."""
    named = [i for i in (mail.in_reply_to, *mail.references) if i][-10:]
    if named:
        query = Outbox.select(Outbox.raw, Outbox.draft).where(Outbox.message_id.in_(named))
        texts = sent_texts([(row.raw, row.draft) for row in query])
        if texts:
            return texts
    address = mail.sender or mail.reply_to
    newest = Outbox.select(fn.MAX(Outbox.id)).scalar()
    if not address or newest is None:
        return []
    recent = (
        Outbox.select(Outbox.raw, Outbox.draft, Outbox.to_addrs)
        .where((Outbox.id > newest - RECENT_WINDOW) & Outbox.to_addrs.contains(address))
        .order_by(Outbox.id.desc())
        .limit(RECENT_MAILS * 2)
    )
    address = address.lower()
    rows = [(row.raw, row.draft) for row in recent if address in row.to_addrs.lower().split()]
    return sent_texts(rows[:RECENT_MAILS])


@dataclass(frozen=True)
class Reading:
    """What the judge reads of a reply: the command text (the writer's own words, and a
    block or CONFIRM line taken from the copy of the judge's mail), and what the answer
    must say about what it did not read, as (what, note)."""

    text: str
    notes: tuple[tuple[str, str], ...] = ()


def without_own_words(mail: ParsedMail, judge: str) -> str:
    """The command text of ``mail`` with any copy of the judge's own mail cut off, and the
    ready-to-send block the writer edited inside that copy after it."""
    return read_reply(mail, judge).text


def read_reply(mail: ParsedMail, judge: str) -> Reading:
    """The command text of ``mail`` (see `without_own_words`) and the notes on what of the
    copy of the judge's mail it left unread though the writer may have meant it."""
    body = mail.body.replace("\r\n", "\n")
    if not body:
        return Reading(mail.text)
    holds_copy = _may_hold_a_copy(mail, judge)
    own_at = own_copy_at(body, candidates(mail)) if holds_copy else None
    text = mail.text
    if own_at is not None:
        above = "\n".join(_without_client_lines(body[:own_at].rstrip(" \t").split("\n")))
        text = "\n".join(command_lines(without_quoted_reply(above)))
    if mail.forwarded or (not mail.in_reply_to and not holds_copy):
        return Reading(text)  # nothing of a forwarded mail is read (the answer says so)
    starts = [at for at in (own_at, unquoted_copy_at(body)) if at is not None]
    blocks = copied_blocks(body, min(starts) if starts else None)
    answered, phase = _answered(mail)
    block, notes = _block_to_read(blocks, answered)
    confirm, confirm_notes = _confirm_to_read(text, answered)
    read = [text, *command_lines("\n".join(_with_phase(block, phase))), *confirm]
    return Reading("\n".join(read).strip("\n"), (*notes, *confirm_notes))


def _answered(mail: ParsedMail) -> tuple[list[str], str]:
    """The texts of the judge's mail this one answers (In-Reply-To), as sent, and the
    phase its ready-to-send block is for, as its first line says ("" for none)."""
    if not mail.in_reply_to:
        return [], ""
    query = Outbox.select(Outbox.raw, Outbox.draft).where(Outbox.message_id == mail.in_reply_to)
    texts = sent_texts([(row.raw, row.draft) for row in query])
    said = next((found for text in texts if (found := _READY_FOR.search(text))), None)
    if said is None:
        return texts, ""
    season, year, kind = said.groups()
    return texts, f"{season[0].upper()}{int(year):04d}{kind[0].upper()}"


# A phase as the ready-to-send block's ORDERS line names it (S1901M), and as the block's
# first comment line does (render/ready_block.py: "Ready to send for Spring 1901 movement").
_PHASE = re.compile(r"[SFW]\d{4}[MRA]", re.IGNORECASE)
_READY_FOR = re.compile(
    r"^// Ready to send for (Spring|Fall|Winter) (\d{1,4}) (movement|retreat|adjustment)\b",
    re.MULTILINE,
)


def _with_phase(block: tuple[str, ...], phase: str) -> list[str]:
    """The block's lines, each ORDERS line naming the phase the judge's block was for
    when it names none (the judge's mails before ORDERS lines named their phase): a block
    of an older phase is refused, never filed in this one."""
    if not _PHASE.fullmatch(phase):
        return list(block)
    return [
        f"{line} {phase}"
        if line.split()[:1] == ["ORDERS"] and not _PHASE.fullmatch(line.split()[-1])
        else line
        for line in block
    ]


COPIED_BLOCK = "(the ORDERS block in the copy of the judge's mail)"
UNSURE_NOTE = (
    "nothing was filed from it: the mail your Reply answers is not one of the judge's "
    "mails with a ready-to-send block (or is too old for the judge to have kept), so the "
    "judge cannot be sure the block is yours and of now. Send its lines above the quoted "
    "mail, or in a new mail"
)


def _block_to_read(
    blocks: list[CopiedBlock], answered: list[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The block of the copy to read, if any: the first that shows the player's hand. A
    password typed in does; so does the placeholder or the Reply token of a block whose
    orders differ from the judge's (then SIGNON refuses the placeholder, naming it, or
    checks the token). Only a block in the copy of one of the judge's mails with a block
    counts: the notes say why one the player filled in was not read."""
    sent = [b for text in answered for b in copied_blocks(text.replace("\r\n", "\n"), 0)]
    for block in blocks:
        if block.signed == MASKED:
            continue  # an echo in one of the judge's answers
        if not sent:
            if block.signed == TYPED:
                return (), ((COPIED_BLOCK, UNSURE_NOTE),)
            continue
        theirs = next((b for b in sent if b.name == block.name), sent[0])
        if block.signed == TYPED or block.orders != theirs.orders:
            return block.lines, ()
    return (), ()


# The line of the judge's mail that asks for a token back (commands/account.py, openings).
_CONFIRM_LINE = re.compile(r"^[ \t]*CONFIRM[ \t]+(o?[0-9a-f]{12})[ \t]*$", re.MULTILINE)
# A writer's yes to what the mail asked: a text that opens with yes, or says confirm
# ("Yes, confirm.", "Confirmed", "Oui", "Bestätigt"), with no word of no in it and no
# question.
_YES_FIRST = re.compile(r"^\W*(?:yes|yep|ok(?:ay)?|sure|oui|ja|s[ií])\b", re.IGNORECASE)
_CONFIRM_WORD = re.compile(r"\b(?:confirm|best[äa]tig|confirme)\w*", re.IGNORECASE)
_NO_WORD = re.compile(r"\b(?:no|not|never|nicht|nein|kein\w*|non|pas)\b|n't\b", re.IGNORECASE)
CONFIRM_ASKED = "(the CONFIRM the mail you answer asks for)"


def _agrees(text: str) -> bool:
    """A yes, and nothing but a yes: no word of no, and no question ("Yes? Who is this?")."""
    said = text.strip()
    if "?" in said or _NO_WORD.search(said):
        return False
    return bool(_YES_FIRST.search(said) or _CONFIRM_WORD.search(said))


def _confirm_to_read(
    text: str, answered: list[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """A Reply to the judge's mail that asked for CONFIRM and a token: when the writer
    says yes (and wrote no CONFIRM of their own), the CONFIRM line of the copy is read as
    theirs (their Reply names the judge's mail, sent to their address only: as good a
    proof as the token); else the answer says how to confirm."""
    tokens = [t for sent in answered for t in _CONFIRM_LINE.findall(sent)]
    if not tokens or any(line.split()[:1] == ["CONFIRM"] for line in text.upper().splitlines()):
        return (), ()
    if _agrees(text):
        return (f"CONFIRM {tokens[0]}",), ()
    return (), ((CONFIRM_ASKED, (
        f"nothing was confirmed: your Reply does not say so. Answer with the line CONFIRM "
        f"{tokens[0]} (or a Reply that says \"yes, confirm\")"
    )),)  # fmt: skip


FORWARD_NOTE = (
    "not read: the judge reads only what you write yourself, never a forwarded mail (nor "
    "the orders in it); to send its commands, write or paste them as your own text"
)
GREY_PRESS_NOTE = (
    "your Reply to grey press reaches nobody: grey press does not say who wrote it, so the "
    "judge cannot pass a Reply on, and what you wrote was read as commands to the judge. "
    "To answer, send press yourself: SIGNON, then PRESS TO FRANCE (or BROADCAST), your "
    "text, ENDPRESS"
)


def reading_notes(mail: ParsedMail) -> list[tuple[str, str]]:
    """What the answer must say about how the mail was read, as (what, note): a
    forwarded mail left unread, a Reply to grey press that cannot reach its writer."""
    notes: list[tuple[str, str]] = []
    if mail.forwarded:
        notes.append(("(the forwarded mail in your mail)", FORWARD_NOTE))
    if mail.in_reply_to and _is_grey_press(mail.in_reply_to):
        notes.append(("(your Reply to grey press)", GREY_PRESS_NOTE))
    return notes


def _is_grey_press(message_id: str) -> bool:
    """Whether the judge's mail ``message_id`` is a press copy with no writer to answer:
    press copies carry a Reply-To to their writer unless they are grey."""
    row = Outbox.get_or_none(Outbox.message_id == message_id)
    if row is None:
        return False
    if isinstance(row.draft, dict):
        draft = MailDraft.from_json(row.draft)
        subject, reply_to = draft.subject, draft.reply_to
    else:
        headers = BytesParser(policy=policy.compat32).parsebytes(row.raw, headersonly=True)
        subject, reply_to = str(headers.get("Subject", "")), headers.get("Reply-To")
    return " press from " in f" {subject}" and not reply_to

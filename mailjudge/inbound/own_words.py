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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from email import policy
from email.parser import BytesParser

from peewee import fn

from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.parse import ParsedMail, body_text, command_lines
from mailjudge.inbound.quoted_block import edited_quoted_block
from mailjudge.inbound.replies import without_quoted_reply
from mailjudge.models import Outbox
from mailjudge.outbound.draft import MailDraft
from mailjudge.outbound.message import wrapped
from mailjudge.passwords import PLACEHOLDER

# How many of a sent mail's first words must follow in a reply for it to be a copy: so
# many that a writer's own lines never match by chance, few enough that a copy cut short
# by a client (or a short answer) still does.
OPENING_WORDS = 24
# When the mail answered is not in the outbox (a forward, a client that names none): the
# most recent mails to the writer looked at, among the outbox's newest rows.
RECENT_MAILS = 20
RECENT_WINDOW = 20_000

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
    """``body`` up to the first line where a copy of one of the ``sent`` texts begins;
    None when there is none."""
    openings = {o for o in (opening(text) for text in sent) if len(o) >= 3}
    if not openings:
        return None
    lines = body.replace("\r\n", "\n").split("\n")
    words: list[str] = []
    starts: list[int] = []  # for each line, where its words begin in `words`
    for line in lines:
        starts.append(len(words))
        words += _WORD.findall(line.lower())
    by_start: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for found in openings:  # looked up by their first three words: one probe a line
        by_start.setdefault(found[:3], []).append(found)
    for number, at in enumerate(starts):
        for found in by_start.get(tuple(words[at : at + 3]), ()):
            if tuple(words[at : at + len(found)]) == found:
                return "\n".join(_without_client_lines(lines[:number]))
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
    rows = [(row.raw, row.draft) for row in recent if address in row.to_addrs.split()]
    return sent_texts(rows[:RECENT_MAILS])


def without_own_words(mail: ParsedMail, judge: str) -> str:
    """The command text of ``mail`` with any copy of the judge's own mail cut off, and the
    ready-to-send block the writer edited inside the quote of that mail after it."""
    text = _own_text(mail, judge)
    block = edited_quoted_block(mail.body) if mail.in_reply_to else []
    if not block or not _answers_a_block(mail):
        return text
    return "\n".join([text, *command_lines("\n".join(block))]).strip("\n")


def _own_text(mail: ParsedMail, judge: str) -> str:
    if not mail.body or not _may_hold_a_copy(mail, judge):
        return mail.text
    cut = cut_at_own_words(mail.body, candidates(mail))
    if cut is None:
        return mail.text
    return "\n".join(command_lines(without_quoted_reply(cut)))


def _answers_a_block(mail: ParsedMail) -> bool:
    """Whether the mail this one answers (In-Reply-To) is one of the judge's that carried
    a ready-to-send block: only such a block may be read inside a quote."""
    query = Outbox.select(Outbox.raw, Outbox.draft).where(Outbox.message_id == mail.in_reply_to)
    texts = sent_texts([(row.raw, row.draft) for row in query])
    return any(f" {PLACEHOLDER}\n" in text.replace("\r\n", "\n") for text in texts)


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

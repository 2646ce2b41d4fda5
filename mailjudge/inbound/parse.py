"""Raw mail bytes to a `ParsedMail`: who sent it, what it answers, and its command text.

Mail from the outside is often malformed. Parsing therefore uses the lenient compat32
parser and decodes every header and body by hand, replacing what cannot be decoded:
`parse_mail` raises only the documented `MailLimitError`s, never on bad MIME.
"""

from __future__ import annotations

import codecs
import email.utils
import functools
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from email import policy
from email.header import Header, decode_header
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser

from icalendar import Calendar

from mailjudge.addresses import kept_case
from mailjudge.inbound.auth_results import AuthResults, results_on_top
from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.plain_head import plain_head
from mailjudge.inbound.replies import reply_parts, without_sent_from
from mailjudge.remembered import remembered

DEFAULT_MAX_BYTES = 256 * 1024
DEFAULT_MAX_LINES = 500

_MSGID = re.compile(r"<[^<>\s]+>")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_NBSP = {0xA0: " ", 0x202F: " ", 0x2007: " "}


class MailLimitError(ValueError):
    """The mail breaks a size limit. `mail` holds its headers (text left empty), so the
    caller can send the one error reply that the message explains."""

    def __init__(self, message: str, mail: ParsedMail) -> None:
        super().__init__(message)
        self.mail = mail


class MailTooLarge(MailLimitError):
    pass


class TooManyLines(MailLimitError):
    pass


@dataclass(frozen=True)
class ParsedMail:
    sender: str  # the From address, lower-cased; "" when there is none
    sender_name: str
    reply_to: str  # where an answer goes: Reply-To if given, else the sender
    return_path: str | None  # envelope sender; "" for <> (a bounce), None when unknown
    to: tuple[str, ...]  # To and Cc addresses
    delivered_to: tuple[str, ...]  # Delivered-To / X-Original-To, added by the MTA
    subject: str
    message_id: str | None
    in_reply_to: str | None
    references: tuple[str, ...]
    auto_submitted: str
    precedence: str
    list_id: str
    autoreply: str  # X-Autoreply, X-Autorespond: set by vacation responders
    suppress: str  # X-Auto-Response-Suppress (Microsoft): what the sender wants no answer to
    content_type: str  # of the whole message, e.g. multipart/report for a bounce
    text: str  # the command text: quotes, signature and // comments removed
    size: int
    body: str = ""  # the whole body as text, before the reply's copy was cut off
    forwarded: bool = False  # a forwarded mail below the writer's text was left unread
    # The method of a text/calendar part (iMIP, RFC 6047): REPLY when a player's calendar
    # answers the judge's invitation to a deadline; "" without one.
    calendar_method: str = ""
    # Authentication-Results headers above the first Received one (inbound/auth_results).
    auth_results: tuple[AuthResults, ...] = ()
    # The note a person typed into a calendar's answer (its COMMENT, or Google's
    # X-RESPONSE-COMMENT on the ATTENDEE): meant for someone, so not left unanswered.
    calendar_note: str = ""

    # The From and Reply-To addresses whose local part has capitals, as written (the
    # domain lower-cased): the judge's answer goes to the address as its owner wrote it.
    written: tuple[str, ...] = ()

    def as_written(self, address: str) -> str:
        """``address`` (compared lower-cased) as this mail wrote it, where it did."""
        key = address.lower()
        return next((w for w in self.written if w.lower() == key), address)

    def with_mime(
        self, calendar_method: str, auth_results: tuple[AuthResults, ...], calendar_note: str = ""
    ) -> ParsedMail:
        """The mail with what only the email package's reading finds (a plain mail has
        neither a calendar part nor Authentication-Results)."""
        if not calendar_method and not auth_results:
            return self
        return replace(self, calendar_method=calendar_method, auth_results=auth_results,
                       calendar_note=calendar_note)  # fmt: skip

    @property
    def reply_references(self) -> tuple[str, ...]:
        """The References an answer to this mail carries (RFC 5322 3.6.4)."""
        if self.message_id and self.message_id not in self.references:
            return (*self.references, self.message_id)
        return self.references


# -- decoding helpers: each returns something sensible for any input ---------------------


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset to text; unknown charsets fall back to UTF-8."""
    name = (charset or "utf-8").strip().strip('"').lower() or "utf-8"
    if name in ("unknown-8bit", "x-unknown", "us-ascii", "ascii"):
        name = "utf-8"  # 8-bit bytes labelled ASCII are UTF-8 more often than not
    try:
        if not codecs.lookup(name)._is_text_encoding:
            name = "utf-8"
        return data.decode(name, "replace")
    except Exception:  # LookupError, and codecs that fail on odd input
        return data.decode("utf-8", "replace")


def _unescape(text: str) -> str:
    """compat32 keeps undecodable header bytes as surrogates: make them text."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def header_text(message: Message, name: str) -> str:
    """A header's value with RFC 2047 words decoded and folding undone; "" if absent."""
    try:
        value = message.get(name)
    except Exception:
        return ""
    if value is None:
        return ""
    try:
        text = _join_words(decode_header(value if isinstance(value, Header) else str(value)))
    except Exception:  # a broken encoded word: keep the raw text
        text = str(value)
    return " ".join(_unescape(text).split())


def _join_words(chunks: list[tuple[bytes | str, str | None]]) -> str:
    """Join decoded header chunks. decode_header drops the space between an encoded
    word and plain text; between two encoded words there is none (RFC 2047 6.2)."""
    text = ""
    previous: str | None = None
    for index, (chunk, charset) in enumerate(chunks):
        part = decode_bytes(chunk, charset) if isinstance(chunk, bytes) else chunk
        boundary = index > 0 and (previous is None) != (charset is None)
        if boundary and text and part and not text[-1].isspace() and not part[0].isspace():
            text += " "
        text += part
        previous = charset
    return text


# A header's text by its name, as header_text gives it: read from a parsed Message, or
# from a plain header block (inbound/plain_head.py) without the parser.
HeaderText = Callable[[str], str]


def raw_header_text(message: Message, name: str) -> str:
    """A header's value as written, folding undone, its RFC 2047 words left encoded: the
    text to read addresses from. An encoded word may stand in a display name only, never
    in an address (RFC 2047 5), so an address is never read from decoded text: a name
    ``=?utf-8?q?victim=40example.org?= <me@evil.test>`` would become the sender."""
    try:
        value = message.get(name)
    except Exception:
        return ""
    return "" if value is None else " ".join(_unescape(str(value)).split())


def _addresses(text: HeaderText, *names: str) -> tuple[tuple[str, str], ...]:
    values = tuple(v for v in map(text, names) if v)
    if not values:  # most mails have no Cc, Sender, Delivered-To: no parser to run
        return ()
    return _address_pairs(values)


@remembered(1024)
def _address_pairs(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(name, address) of each address in the header texts ``values`` (as written: see
    raw_header_text), each name decoded. Remembered: a player's From and the judge's To
    come again and again, and getaddresses is slow."""
    try:
        pairs = email.utils.getaddresses(list(values))
    except Exception:
        return ()
    # As written (the case of a local part is the mailbox's own to decide: it is kept for
    # the mail that goes back); identity compares them in lower case.
    return tuple((_display_name(name), addr.strip()) for name, addr in pairs
                 if "@" in addr and "=?" not in addr)  # fmt: skip


def _display_name(name: str) -> str:
    if "=?" not in name:
        return name
    try:
        return " ".join(_unescape(_join_words(decode_header(name))).split())
    except Exception:  # a broken encoded word: keep it as written
        return name


def _message_id(value: str) -> str | None:
    found = _MSGID.search(value)
    if found:
        return found.group(0)
    token = value.strip()
    return f"<{token}>" if token and " " not in token else None


def message_id_of(value: str) -> str | None:
    """The Message-ID in a header value, in angle brackets; None if there is none."""
    return _message_id(value)


def _return_path(text: HeaderText, envelope_from: str | None) -> str | None:
    if envelope_from is not None:
        return envelope_from.strip().strip("<>").lower()
    value = text("Return-Path")
    if not value:
        return None
    return value.strip().strip("<>").strip().lower()


# -- body --------------------------------------------------------------------------------


def _is_attachment(part: Message) -> bool:
    try:
        return part.get_content_disposition() == "attachment"
    except Exception:
        return False


def _part_text(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        payload = _unescape(raw).encode() if isinstance(raw, str) else b""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text = decode_bytes(payload, charset)
    if _param(part, "format").lower() == "flowed":
        text = unflow(text, delsp=_param(part, "delsp").lower() == "yes")
    return text


def _param(part: Message, name: str) -> str:
    try:
        value = part.get_param(name)
    except Exception:
        return ""
    return value if isinstance(value, str) else ""


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _calendar_method(message: Message) -> str:
    try:
        for part in message.walk():
            if _content_type(part) == "text/calendar":
                return str(part.get_param("method") or "").strip().upper()
    except Exception:
        pass
    return ""


def _calendar_note(message: Message) -> str:
    """The note in a calendar answer's text/calendar part: a COMMENT of its event (RFC
    5546 lets a REPLY carry one), or Google Calendar's X-RESPONSE-COMMENT parameter on the
    ATTENDEE; "" without one."""
    try:
        for part in message.walk():
            if _content_type(part) != "text/calendar":
                continue
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes) or len(payload) > 64 * 1024:
                return ""
            for event in Calendar.from_ical(payload).walk("VEVENT"):
                notes = [str(c) for c in _as_list(event.get("COMMENT"))]
                for attendee in _as_list(event.get("ATTENDEE")):
                    params = getattr(attendee, "params", {})
                    notes.append(str(params.get("X-RESPONSE-COMMENT", "")))
                found = next((n for n in notes if n.strip()), "")
                if found:
                    # Google writes HTML entities and a backslash before a semicolon.
                    text = html.unescape(found.replace("\\;", ";"))
                    return " ".join(text.split())[:500]
            return ""
    except Exception:  # a calendar the library cannot read carries no note it can show
        pass
    return ""


def _as_list(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def body_text(message: Message) -> str:
    """The first text/plain part that is not an attachment, else the first HTML part
    converted to text, else "". Yahoo's web client is the exception: its text/plain part
    runs the writer's lines together (it drops the line break between two <div>s, so
    "SIGNON ..." and "ORDERS" come out as one line), and its HTML part is read first."""
    html: Message | None = None
    plain: Message | None = None
    try:
        for part in message.walk():
            if part.is_multipart() or _is_attachment(part):
                continue
            kind = _content_type(part)
            if kind == "text/plain" and plain is None:
                plain = part
            if kind == "text/html" and html is None:
                html = part
            if plain is not None and (html is not None or not _lines_run_together(message)):
                break
    except Exception:  # e.g. RecursionError on absurdly nested parts
        pass
    if html is not None and (plain is None or _lines_run_together(message)):
        return html_to_text(_part_text(html))
    return _part_text(plain) if plain is not None else ""


def _lines_run_together(message: Message) -> bool:
    """Whether the mail comes from a client whose text/plain part joins the writer's
    lines: Yahoo Mail on the web (X-Mailer: WebService/... YMailNorrin)."""
    return "ymailnorrin" in header_text(message, "X-Mailer").lower()


def unflow(text: str, delsp: bool = False) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space goes on in the next."""
    out: list[str] = []
    pending: list[str] = []  # the pieces of a flowed line so far (joined once: linear)
    for line in text.splitlines():
        if line.startswith(" "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            pending.append(line[:-1] if delsp else line)
            continue
        pending.append(line)
        out.append("".join(pending))
        pending = []
    if pending:
        out.append("".join(pending))
    return "\n".join(out)


def command_lines(text: str) -> list[str]:
    """The lines the judge reads: quotes (`>`), `//` comments and everything after a
    `-- ` signature line are left out, and so are leading and trailing blank lines."""
    out: list[str] = []
    for line in text.translate(_INVISIBLE).translate(_NBSP).splitlines():
        line = line.rstrip()
        if line == "--":  # "-- " once its trailing space is gone
            break
        stripped = line.lstrip()
        if stripped.startswith(">") or stripped.startswith("//"):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    # Counted, then cut once: popping the first line again and again is quadratic in a
    # mail of many blank lines before its text.
    first = next((i for i, line in enumerate(out) if line.strip()), len(out))
    return out[first:]


# -- the whole mail --------------------------------------------------------------------


_LONE_CR = re.compile(rb"\r(?!\n)")


def _without_lone_cr(raw: bytes) -> bytes:
    """A CR alone inside the header ends it for Python's parser, so every header after it
    (Message-ID, Auto-Submitted, List-Id, ...) would go unseen and the loop rules with
    them: in the header section such a CR becomes a space."""
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    end = min(ends, default=len(raw))
    head = raw[:end]
    if not _LONE_CR.search(head):
        return raw
    return _LONE_CR.sub(b" ", head) + raw[end:]


def _parse_bytes(raw: bytes, headers_only: bool) -> Message:
    raw = _without_lone_cr(raw)
    try:
        if headers_only:
            return BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
        return BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        pass
    # RecursionError on absurdly nested parts: keep the headers, drop the body.
    try:
        message = BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
    except Exception:
        message = Message()
    message.set_payload("")
    return message


def _headers(message: Message, raw: bytes, envelope_from: str | None) -> ParsedMail:
    return _mail_of(
        functools.partial(header_text, message),
        raw,
        envelope_from,
        _content_type(message),
        functools.partial(raw_header_text, message),
    ).with_mime(_calendar_method(message), results_on_top(message), _calendar_note(message))


def _mail_of(
    text: HeaderText,
    raw: bytes,
    envelope_from: str | None,
    content_type: str,
    as_written: HeaderText | None = None,
) -> ParsedMail:
    """The ParsedMail of a mail's header texts (its text and body left empty). Addresses
    are read from ``as_written`` (the headers undecoded; a plain header block has no
    encoded word, so there ``text`` is the same)."""
    written = as_written or text
    senders = _addresses(written, "From") or _addresses(written, "Sender")
    sender_name, sender = senders[0] if senders else ("", "")
    reply_to = _addresses(written, "Reply-To")
    answer_to = reply_to[0][1] if reply_to else sender
    return ParsedMail(
        sender=sender.lower(),
        sender_name=sender_name,
        reply_to=answer_to.lower(),
        return_path=_return_path(text, envelope_from),
        to=tuple(a.lower() for _, a in _addresses(written, "To", "Cc")),
        delivered_to=tuple(
            a.lower() for _, a in _addresses(written, "Delivered-To", "X-Original-To")
        ),
        subject=text("Subject"),
        message_id=_message_id(text("Message-ID")),
        in_reply_to=_message_id(text("In-Reply-To")),
        references=tuple(_MSGID.findall(text("References"))),
        auto_submitted=text("Auto-Submitted").lower(),
        precedence=text("Precedence").lower(),
        list_id=text("List-Id"),
        autoreply=text("X-Autoreply") or text("X-Autorespond"),
        suppress=text("X-Auto-Response-Suppress").lower(),
        content_type=content_type,
        text="",
        size=len(raw),
        written=_written(sender, answer_to),
    )


def _written(*addresses: str) -> tuple[str, ...]:
    """Those of ``addresses`` whose local part has capitals, as written: nearly always
    none, so that nothing else is done with the mail's addresses."""
    found = {kept_case(a): None for a in addresses if a and a != a.lower()}
    return tuple(a for a in found if a != a.lower())


def _parsed_mail(raw: bytes, envelope_from: str | None) -> tuple[ParsedMail, str]:
    """A mail's headers and its body as body_text gives it, read by the email package."""
    message = _parse_bytes(raw, headers_only=False)
    return _headers(message, raw, envelope_from), body_text(message)


# A plain mail's Content-Type: text/plain with parameters whose values hold no white
# space, no quote inside and no RFC 2231 form. Its parameters then read the same from
# the unfolded text plain_head gives as from the header as it stands.
_PLAIN_TYPE = re.compile(
    r'text/plain(?: ?; ?[A-Za-z0-9-]+=(?:[A-Za-z0-9._+:-]+|"[A-Za-z0-9._+:-]*"))* ?;?',
    re.IGNORECASE,
)
# Transfer encodings the parser hands back as the bytes they are (get_payload).
_AS_IS = ("", "7bit", "8bit", "binary")


def _plain_mail(raw: bytes, envelope_from: str | None) -> tuple[ParsedMail, str] | None:
    """A mail of one text/plain part in a plain header block, read without the email
    package: its headers, and its body as body_text gives it. None for any other mail
    (tests/mail/test_inbound_parse_plain.py holds the two readings to the same answers)."""
    found = plain_head(raw)
    if found is None:
        return None
    values, start = found
    if (
        "authentication-results" in values  # read from the header as it stands
        or "content-disposition" in values  # an attachment, perhaps
        or values.get("content-transfer-encoding", "").lower() not in _AS_IS
    ):
        return None
    kind = _plain_kind(values.get("content-type"))
    if kind is None:
        return None
    charset, flowed, delsp = kind
    body = decode_bytes(raw[start:], charset)
    if flowed:
        body = unflow(body, delsp=delsp)
    mail = _mail_of(lambda name: values.get(name.lower(), ""), raw, envelope_from, "text/plain")
    return mail, body


@remembered(256)
def _plain_kind(content_type: str | None) -> tuple[str | None, bool, bool] | None:
    """Of a plain mail's Content-Type (None: it has none): its charset, whether it is
    format=flowed and whether delsp=yes, as the parser reads them; None when it is not
    a plain text/plain type."""
    part = Message()
    if content_type is not None:
        if not _PLAIN_TYPE.fullmatch(content_type):
            return None
        part["Content-Type"] = content_type
    try:
        charset = part.get_content_charset()
    except Exception:
        return None
    delsp = _param(part, "delsp").lower() == "yes"
    return charset, _param(part, "format").lower() == "flowed", delsp


def parse_mail(
    raw: bytes,
    *,
    envelope_from: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_lines: int = DEFAULT_MAX_LINES,
) -> ParsedMail:
    """Parse one mail. `envelope_from` is the SMTP MAIL FROM when known (else the
    Return-Path header is used). Raises MailTooLarge or TooManyLines, nothing else."""
    if len(raw) > max_bytes:
        # Its header alone: a large mail is refused without a look at its body.
        mail = _headers(_parse_bytes(_header_block(raw), headers_only=True), raw, envelope_from)
        raise MailTooLarge(
            f"your mail is {len(raw)} bytes long; the judge reads mails of at most "
            f"{max_bytes} bytes. Send the commands without attachments or quoted text.",
            mail,
        )
    mail, body = _plain_mail(raw, envelope_from) or _parsed_mail(raw, envelope_from)
    kept, forwarded = reply_parts(body)
    cut = kept.strip() != without_sent_from(body.replace("\r\n", "\n")).strip()
    forwarded = forwarded or (cut and _FORWARD_SUBJECT.match(mail.subject) is not None)
    lines = command_lines(kept)
    counted = sum(1 for line in lines if line.strip())
    if counted > max_lines:
        raise TooManyLines(
            f"your mail has {counted} command lines; the judge reads at most {max_lines} "
            "in one mail. Split the commands over several mails.",
            mail,
        )
    # As dataclasses.replace, without its walk over the fields' definitions.
    return ParsedMail(**{**vars(mail), "text": "\n".join(lines), "body": body,
                         "forwarded": forwarded})  # fmt: skip


# A forward's subject (Outlook writes no forward line, only "FW:" and a header block).
_FORWARD_SUBJECT = re.compile(r"(?:fwd?|fw|wg|tr|rv|i|doorst)[ \t]*:", re.IGNORECASE)


def _header_block(raw: bytes) -> bytes:
    """The mail up to and with the blank line after its header (all of it without one)."""
    ends = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    return raw[: min(ends) + 4] if ends else raw


def parse_headers(raw: bytes) -> Message:
    """The header part of a mail, for a quick look at it; never raises."""
    return _parse_bytes(raw, headers_only=True)


def return_path_header(raw: bytes) -> str | None:
    """The Return-Path of a stored mail (IMAP has no envelope): "" for <>, None if absent."""
    headers = _parse_bytes(raw, headers_only=True)
    return _return_path(functools.partial(header_text, headers), None)

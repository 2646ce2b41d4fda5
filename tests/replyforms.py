"""How mail clients write a Reply (or a Forward) to a mail: the writer's text, then the
client's attribution line or header block, then the mail answered, quoted with '>' or
copied as it is. Used to build tests/data/replies/ from mails the judge really sent and by
the property test of tests/test_own_words.py.

The forms follow what the clients write (their defaults in 2026):
- mutt: "On Mon, Nov 23, 2026 at 11:43:24PM +0000, judge@... wrote:" and '> ' quotes;
- Thunderbird: "On 11/23/26 23:43, mailjudge wrote:" and '> ' quotes;
- Gmail (web and Android): "On Mon, Nov 23, 2026 at 11:43 PM mailjudge <judge@...>
  wrote:", a blank line, '> ' quotes; its HTML part a gmail_quote blockquote; its Forward a
  "---------- Forwarded message ---------" line and a From/Date/Subject/To block, unquoted
  (Thunderbird's "-------- Forwarded Message --------", Apple's "Begin forwarded
  message:", Outlook's "FW:" subject and its Reply block);
- Outlook desktop and new Outlook: a line of underscores, then From/Sent/To/Subject, then
  the mail unquoted (HTML: a divRplyFwdMsg block); older Outlook "-----Original
  Message-----"; Outlook on the web: the same header block without the underscores;
- Apple Mail (macOS): "> On 23 Nov 2026, at 23:43, mailjudge <judge@...> wrote:" quoted
  along with the mail; iOS Mail the same below "Sent from my iPhone".
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

JUDGE = "judge@example.test"
WHEN = datetime(2026, 11, 23, 23, 43, 24, tzinfo=UTC)


def quoted(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.rstrip("\n").split("\n"))


def _header_block(subject: str, to: str, sent: str = "Sent") -> str:
    return (f"From: mailjudge <{JUDGE}>\n{sent}: Monday, November 23, 2026 11:43 PM\n"
            f"To: {to}\nSubject: {subject}\n")  # fmt: skip


# Each form: (writer's text, the judge's mail text, its subject, the writer's address)
# -> the plain text of the reply.
Form = Callable[[str, str, str, str], str]

FORMS: dict[str, Form] = {
    "mutt": lambda w, t, s, a: (
        f"{w}\n\nOn Mon, Nov 23, 2026 at 11:43:24PM +0000, {JUDGE} wrote:\n{quoted(t)}\n"
    ),
    "thunderbird": lambda w, t, s, a: f"{w}\n\nOn 11/23/26 23:43, mailjudge wrote:\n{quoted(t)}\n",
    "gmail": lambda w, t, s, a: (
        f"{w}\n\nOn Mon, Nov 23, 2026 at 11:43 PM mailjudge <{JUDGE}> wrote:\n\n{quoted(t)}\n"
    ),
    "android-gmail": lambda w, t, s, a: (
        f"{w}\n\nOn Mon, 23 Nov 2026, 23:43 mailjudge, <{JUDGE}> wrote:\n\n{quoted(t)}\n"
    ),
    "gmail-forward": lambda w, t, s, a: (
        f"{w}\n\n---------- Forwarded message ---------\nFrom: mailjudge <{JUDGE}>\n"
        f"Date: Mon, Nov 23, 2026 at 11:43 PM\nSubject: {s}\nTo: <{a}>\n\n\n{t}\n"
    ),
    "thunderbird-forward": lambda w, t, s, a: (
        f"{w}\n\n-------- Forwarded Message --------\nSubject: \t{s}\n"
        f"Date: \tMon, 23 Nov 2026 23:43:24 +0000\nFrom: \tmailjudge <{JUDGE}>\nTo: \t{a}\n\n{t}\n"
    ),
    "apple-mail-forward": lambda w, t, s, a: (
        f"{w}\n\nBegin forwarded message:\n\nFrom: mailjudge <{JUDGE}>\nSubject: {s}\n"
        f"Date: 23 November 2026 at 23:43:24 GMT\nTo: {a}\n\n{t}\n"
    ),
    # Outlook writes no forward line: the same block as a Reply, under "FW:".
    "outlook-forward": lambda w, t, s, a: (
        f"{w}\n\n________________________________\n{_header_block(s, a)}\n{t}\n"
    ),
    "outlook-desktop": lambda w, t, s, a: (
        f"{w}\n\n________________________________\n{_header_block(s, a)}\n{t}\n"
    ),
    "outlook-original-message": lambda w, t, s, a: (
        f"{w}\n\n-----Original Message-----\n{_header_block(s, a)}\n{t}\n"
    ),
    "outlook-web": lambda w, t, s, a: f"{w}\n\n{_header_block(s, a)}\n{t}\n",
    "apple-mail": lambda w, t, s, a: (
        f"{w}\n\n> On 23 Nov 2026, at 23:43, mailjudge <{JUDGE}> wrote:\n>\n{quoted(t)}\n"
    ),
    "iphone": lambda w, t, s, a: (
        f"{w}\n\nSent from my iPhone\n\n> On Nov 23, 2026, at 11:43 PM, mailjudge <{JUDGE}> "
        f"wrote:\n>\n{quoted(t)}\n"
    ),
    # A client the reader knows nothing of: no attribution, the copy as it is.
    "unknown-unquoted": lambda w, t, s, a: f"{w}\n\n{t}\n",
}


def _html_lines(text: str) -> str:
    return "<br>".join(html.escape(line).replace("  ", "&nbsp; ") for line in text.split("\n"))


# The HTML-only forms: what the client sends when the writer composes in HTML and the
# plain part is left out (Outlook on the web, Gmail with plain text off).
HTML_FORMS: dict[str, Form] = {
    "gmail-html": lambda w, t, s, a: (
        f'<div dir="ltr">{_html_lines(w)}</div><br><div class="gmail_quote"><div dir="ltr" '
        f'class="gmail_attr">On Mon, Nov 23, 2026 at 11:43 PM mailjudge &lt;{JUDGE}&gt; '
        f'wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
        f'border-left:1px solid rgb(204,204,204);padding-left:1ex">{_html_lines(t)}'
        "</blockquote></div>"
    ),
    "outlook-html": lambda w, t, s, a: (
        f"<html><body><div>{_html_lines(w)}</div><div><br></div>"
        '<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" '
        f'dir="ltr"><font face="Calibri, sans-serif"><b>From:</b> mailjudge &lt;{JUDGE}&gt;'
        "<br><b>Sent:</b> Monday, November 23, 2026 11:43 PM<br><b>To:</b> "
        f"{html.escape(a)}<br><b>Subject:</b> {html.escape(s)}</font><div>&nbsp;</div></div>"
        f"<div>{_html_lines(t)}</div></body></html>"
    ),
}


def reply_mail(
    form: str,
    writer_text: str,
    judge_text: str,
    subject: str,
    sender: str,
    message_id: str,
    in_reply_to: str | None,
) -> EmailMessage:
    """The whole mail a client sends for a Reply (or Forward) in ``form``."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = f"mailjudge <{JUDGE}>"
    forward = form.endswith("forward")
    prefix = "FW: " if form.startswith("outlook") else "Fwd: "
    msg["Subject"] = (prefix if forward else "Re: ") + subject
    msg["Date"] = format_datetime(WHEN)
    msg["Message-ID"] = message_id
    if in_reply_to and not forward:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = in_reply_to
    if form in HTML_FORMS:
        msg.set_content(HTML_FORMS[form](writer_text, judge_text, subject, sender), subtype="html")
    else:
        msg.set_content(FORMS[form](writer_text, judge_text, subject, sender))
    return msg


ALL_FORMS = [*FORMS, *HTML_FORMS]

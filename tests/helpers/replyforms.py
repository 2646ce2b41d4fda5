"""How mail clients write a Reply (or a Forward) to a mail: the writer's text, then the
client's attribution line or header block, then the mail answered, quoted with '>' or
copied as it is. Used to build tests/data/replies/ from mails the judge really sent and by
the property test of tests/mail/test_own_words.py.

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

Round four (issue 53) adds the clients that copy the mail unquoted, as captures of their
mail show them (public mailing-list archives and reply-parser fixtures):
- Outlook for iOS and Android: "Get Outlook for iOS<https://aka.ms/o0ukef>" (Android:
  "Download Outlook for Android<https://aka.ms/ghei36>" and a blank line), the line of
  underscores, then From/Sent (with seconds)/To ("addr <addr>")/Subject, the mail unquoted;
- Outlook desktop in German (Von/Gesendet/An/Betreff) and French (De :/Envoyé :/À :/
  Objet :, a space before each colon);
- Samsung Email: "Sent from my Galaxy", then "-------- Original message --------" and
  From/Date "11/23/26 23:43 (GMT+00:00)"/To/Subject, the mail unquoted; in German "Von
  meinem Galaxy gesendet" and "-------- Ursprüngliche Nachricht --------" (Von/Datum/An/
  Betreff), in French "Envoyé depuis mon appareil Galaxy" and "-------- Message d'origine
  --------" (De :/Date :/À :/Objet :, each header line ending in a space);
- Yahoo Mail for Android: "Sent from Yahoo Mail on Android " and a line of one space, then
  "  On Mon, Nov 23, 2026 at 11:43 PM, mailjudge<judge@...> wrote:   " with the mail's
  first line run on after it, the rest unquoted;
- Yahoo Mail on the web (X-Mailer: WebService/1.1 YMailNorrin): text and HTML parts. Its
  text part runs the writer's lines together (no line break between two <div>s), indents
  "    On Monday, November 23, 2026, 11:43:24 PM GMT, mailjudge <judge@...> wrote: ",
  and copies the mail unquoted, each line indented by a space; its HTML part holds the
  writer's lines as <div>s and the copy in a yahoo_quoted <div> after the attribution;
- Gmail and Thunderbird in German ("Am Mo., 23. Nov. 2026 um 23:43 Uhr schrieb mailjudge
  <judge@...>:", "Am 23.11.26 um 23:43 schrieb mailjudge:") and French ("Le lun. 23 nov.
  2026 à 23:43, mailjudge <judge@...> a écrit :", "Le 23/11/2026 à 23:43, mailjudge a
  écrit :"), quoted with '>'.
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


UNDERSCORES = "_" * 32


def _mobile_block(subject: str, to: str) -> str:
    return (f"{UNDERSCORES}\nFrom: mailjudge <{JUDGE}>\nSent: Monday, November 23, 2026 "
            f"11:43:24 PM\nTo: {to} <{to}>\nSubject: {subject}\n")  # fmt: skip


def _yahoo_android(w: str, t: str) -> str:
    first, _, rest = t.partition("\n")
    return (f"{w}\n\nSent from Yahoo Mail on Android \n \n  On Mon, Nov 23, 2026 at 11:43 PM, "
            f"mailjudge<{JUDGE}> wrote:   {first}\n{rest}\n")  # fmt: skip


def yahoo_web_plain(w: str, t: str) -> str:
    """Yahoo's text part: the writer's lines run together, the copy indented."""
    copy = "\n".join(f" {line} " if line else " " for line in t.rstrip("\n").split("\n"))
    return (f" {''.join(w.split(chr(10)))}\n    On Monday, November 23, 2026, 11:43:24 PM GMT, "
            f"mailjudge <{JUDGE}> wrote: \n \n \n{copy}\n")  # fmt: skip


def yahoo_web_html(w: str, t: str) -> str:
    mine = "".join(f'<div dir="ltr" data-setdir="false">{html.escape(line) or "<br>"}</div>'
                   for line in w.split("\n"))  # fmt: skip
    return (
        '<html><head></head><body><div class="ydpaab9d6c7yahoo-style-wrap" style="font-family:'
        f'Helvetica Neue, Helvetica, Arial, sans-serif;font-size:16px;"><div></div>\n        {mine}'
        '<div><br></div>\n        \n        </div><div id="yahoo_quoted_9183161140" '
        'class="yahoo_quoted">\n            <div style="font-family:\'Helvetica Neue\', Helvetica, '
        'Arial, sans-serif;font-size:13px;color:#26282a;">\n                \n                '
        "<div>\n                    On Monday, November 23, 2026, 11:43:24 PM GMT, mailjudge "
        f"&lt;{JUDGE}&gt; wrote:\n                </div>\n                <div><br></div>\n"
        '                <div><br></div>\n                <div><div id="yiv0516350217"><div>'
        f"{_html_lines(t)}</div></div></div>\n            </div>\n        </div></body></html>"
    )


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
    # Round four: the clients that copy the mail unquoted, and more languages.
    "outlook-mobile": lambda w, t, s, a: (
        f"{w}\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n{_mobile_block(s, a)}\n{t}\n"
    ),
    "outlook-android": lambda w, t, s, a: (
        f"{w}\n\nDownload Outlook for Android<https://aka.ms/ghei36>\n\n{_mobile_block(s, a)}"
        f"\n{t}\n"
    ),
    "outlook-de": lambda w, t, s, a: (
        f"{w}\n\n{UNDERSCORES}\nVon: mailjudge <{JUDGE}>\nGesendet: Montag, 23. November 2026 "
        f"23:43\nAn: {a}\nBetreff: {s}\n\n{t}\n"
    ),
    "outlook-fr": lambda w, t, s, a: (
        f"{w}\n\n{UNDERSCORES}\nDe : mailjudge <{JUDGE}>\nEnvoyé : lundi 23 novembre 2026 "
        f"23:43\nÀ : {a}\nObjet : {s}\n\n{t}\n"
    ),
    "samsung": lambda w, t, s, a: (
        f"{w}\n\n\n\nSent from my Galaxy\n\n\n\n-------- Original message --------\n"
        f"From: mailjudge <{JUDGE}>\nDate: 11/23/26 23:43 (GMT+00:00)\nTo: {a}\n"
        f"Subject: {s}\n\n{t}\n"
    ),
    "samsung-de": lambda w, t, s, a: (
        f"{w}\n\n\n\nVon meinem Galaxy gesendet\n\n\n\n-------- Ursprüngliche Nachricht "
        f"--------\nVon: mailjudge <{JUDGE}> \nDatum: 23.11.26  23:43  (GMT+00:00) \n"
        f"An: {a} \nBetreff: {s} \n\n{t}\n"
    ),
    "samsung-fr": lambda w, t, s, a: (
        f"{w}\n\nEnvoyé depuis mon appareil Galaxy\n\n-------- Message d'origine --------\n"
        f"De : mailjudge <{JUDGE}> \nDate : 23/11/26  23:43  (GMT+00:00) \nÀ : {a} \n"
        f"Objet : {s} \n\n{t}\n"
    ),
    "yahoo-android": lambda w, t, s, a: _yahoo_android(w, t),
    "gmail-de": lambda w, t, s, a: (
        f"{w}\n\nAm Mo., 23. Nov. 2026 um 23:43 Uhr schrieb mailjudge <{JUDGE}>:\n\n{quoted(t)}\n"
    ),
    "gmail-fr": lambda w, t, s, a: (
        f"{w}\n\nLe lun. 23 nov. 2026 à 23:43, mailjudge <{JUDGE}> a écrit :\n\n{quoted(t)}\n"
    ),
    "thunderbird-de": lambda w, t, s, a: (
        f"{w}\n\nAm 23.11.26 um 23:43 schrieb mailjudge:\n{quoted(t)}\n"
    ),
    "thunderbird-fr": lambda w, t, s, a: (
        f"{w}\n\nLe 23/11/2026 à 23:43, mailjudge a écrit :\n{quoted(t)}\n"
    ),
}

# The forms that copy the mail unquoted (the writer may fill the block in there).
UNQUOTED_FORMS = ("outlook-desktop", "outlook-original-message", "outlook-web",
                  "outlook-mobile", "outlook-android", "outlook-de", "outlook-fr", "samsung",
                  "samsung-de", "samsung-fr", "yahoo-android", "yahoo-web", "unknown-unquoted")  # fmt: skip


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
    if form == "yahoo-web":
        msg["X-Mailer"] = "WebService/1.1.24794 YMailNorrin"
        msg.set_content(yahoo_web_plain(writer_text, judge_text), cte="quoted-printable")
        msg.add_alternative(yahoo_web_html(writer_text, judge_text), subtype="html")
    elif form in HTML_FORMS:
        msg.set_content(HTML_FORMS[form](writer_text, judge_text, subject, sender), subtype="html")
    else:
        msg.set_content(FORMS[form](writer_text, judge_text, subject, sender))
    return msg


ALL_FORMS = [*FORMS, *HTML_FORMS, "yahoo-web"]
